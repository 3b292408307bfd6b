/**
 * The resource registry: one declaration per resource, in two parts side by side.
 * - The declaration, plain data: its identity (kind, id prefix, collection, tag), its fields by
 *   name and order, and its relations (references, filters, search, indexes, read-only and
 *   immutable fields, guards). Keys, indexes, scopes, guards, the item mapping and tags derive
 *   from it; every function that touches the resource holds it.
 * - Its field schemas (valibot), `<name>Fields`, built by a pure call: a function that parses
 *   no input of the resource (retrieve, delete, another resource's operations) never imports
 *   them, and the bundler drops them with everything they alone use. A function that parses
 *   builds only its own action's schema from them (`withCreate(clientFields)`, define.ts);
 *   `<name>Schemas` holds every action's, for what documents or checks the whole API.
 * docs/extending.md walks through adding a resource.
 */
import * as v from 'valibot';
import { LIMITS } from '../core/field-limits.ts';
import { timeZoneName } from './dates.ts';
import { currencyCode, email, enumOf, isUniqueList, money, positiveInteger, reference, taxId, text, timestamp, webUrl, webhookUrl } from './fields.ts';
import { EVENT_TYPES } from './event-types.ts';
import { declareResource, type AnyResource } from './declare.ts';
import { createManySchema, declareFields, withActions } from './define.ts';
import { dueBeforePayments, invoiceBodies, invoiceFieldSchemas, paidBeforePayments, paymentFieldSchemas, taxes, taxesStoredBefore } from './invoice-fields.ts';
import { ULID_PATTERN } from '../core/ids.ts';
import { BILLING_TYPES, billingRunFieldSchemas, billingRunStartBody } from './billing-run-fields.ts';

/** The id prefix of invoices (contract, "Invoices"), which a time entry's `invoice_id` names. */
export const INVOICE_ID_PREFIX = 'inv_';

/** What a client stored before its `currency` existed reads as (contract, "Money"). */
export const CLIENT_STORED_CURRENCY = 'USD';

export const client = /* @__PURE__ */ declareResource({
  kind: 'client',
  idPrefix: 'cli_',
  collection: 'clients',
  tag: 'Clients',
  fields: ['company_name', 'company_email', 'company_address', 'website', 'status', 'language', 'currency', 'business_number', 'tps_number', 'tvq_number', 'relationship_start_date'],
  readOnly: { relationship_start_date: 'created_at' },
  immutable: { currency: "a client's amounts are all in the currency it was created with" },
  storedDefaults: { currency: CLIENT_STORED_CURRENCY },
  filters: ['status'],
  search: 'company_name',
  indexes: { GSI1: { partition: ['status'] } },
  deleteHint: 'archive the client instead by setting its status to SLEEPING or LOST',
});

export const clientFields = /* @__PURE__ */ declareFields(client, () => ({
  company_name: text('company_name', LIMITS.nameLength),
  company_email: email('company_email'),
  company_address: v.nullable(text('company_address', LIMITS.addressLength, 'multi')),
  website: v.nullable(webUrl('website')),
  status: v.optional(enumOf('status', ['LEAD', 'ACTIVE', 'SLEEPING', 'LOST']), 'LEAD'),
  language: v.optional(enumOf('language', ['ENGLISH', 'FRENCH']), 'ENGLISH'),
  currency: v.optional(currencyCode('currency'), 'USD'),
  business_number: v.nullable(taxId('business_number')),
  tps_number: v.nullable(taxId('tps_number')),
  tvq_number: v.nullable(taxId('tvq_number')),
  relationship_start_date: timestamp('relationship_start_date'),
}));
/** With every action's schemas (documents, tests, types); a function builds only its own action's from clientFields. */
export const clientSchemas = /* @__PURE__ */ withActions(clientFields);

export const project = /* @__PURE__ */ declareResource({
  kind: 'project',
  idPrefix: 'prj_',
  collection: 'projects',
  tag: 'Projects',
  fields: ['name', 'description', 'status', 'billing_type', 'hourly_rate', 'fixed_price', 'amount', 'interval_count', 'interval_unit', 'client_id', 'start_date', 'end_date'],
  immutable: { client_id: 'a project stays with the client it was created for' },
  notBefore: { end_date: 'start_date' },
  references: { client_id: 'client' },
  filters: ['status', 'client_id'],
  search: 'name',
  indexes: {
    GSI1: { partition: ['status'] },
    GSI2: { partition: ['client_id'] },
    // The status leads the sort key (GSI5's own): a status change rewrites it without knowing the client.
    GSI5: { partition: ['client_id'], sortPrefix: 'status' },
  },
  deleteHint: 'close the project instead by setting its status to COMPLETED or CANCELLED',
});

export const projectFields = /* @__PURE__ */ declareFields(project, () => ({
  name: text('name', LIMITS.nameLength),
  description: v.nullable(text('description', LIMITS.descriptionLength, 'multi')),
  status: v.optional(enumOf('status', ['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED']), 'ACTIVE'),
  billing_type: enumOf('billing_type', BILLING_TYPES),
  hourly_rate: v.nullable(money('hourly_rate')),
  fixed_price: v.nullable(money('fixed_price')),
  amount: v.nullable(money('amount')),
  interval_count: v.nullable(positiveInteger('interval_count', LIMITS.intervalCount)),
  interval_unit: v.nullable(enumOf('interval_unit', ['Day', 'Week', 'Month', 'Year'])),
  client_id: reference('client_id'),
  /** Defaults to the creation time (domain/projects.ts). */
  start_date: v.optional(timestamp('start_date')),
  end_date: v.nullable(timestamp('end_date')),
}));
/** With every action's schemas (documents, tests, types); a function builds only its own action's from projectFields. */
export const projectSchemas = /* @__PURE__ */ withActions(projectFields);

export const timeEntry = /* @__PURE__ */ declareResource({
  kind: 'time_entry',
  idPrefix: 'te_',
  collection: 'time_entries',
  tag: 'Time entries',
  fields: ['project_id', 'client_id', 'started_at', 'duration_minutes', 'billable', 'billable_rate', 'description', 'invoice_id'],
  references: { client_id: 'client', project_id: 'project' },
  // The invoice the entry is on (docs/decisions/0023-invoices.md): null on log, set and cleared
  // only by an invoice's lock and release (shared/domain/invoices/lock.ts); entries stored before read null.
  readOnly: { invoice_id: 'server' },
  createRequiresOneOf: ['project_id', 'client_id'],
  filters: ['project_id', 'client_id', 'invoice_id'],
  // Every list newest first by started_at, in a range of it: each index's sort key holds it
  // (docs/decisions/0017-time-entries-by-started-at.md). GSI1 lists the whole workspace's. GSI4,
  // sparse, an invoice's (at most 2,000): it serves every list filtered by invoice_id.
  order: { field: 'started_at', from: 'started_from', to: 'started_to' },
  indexes: {
    GSI1: { partition: [] },
    GSI2: { partition: ['project_id'] },
    GSI3: { partition: ['client_id'] },
    GSI4: { partition: ['invoice_id'], bounded: true },
  },
});

/**
 * The condition that a time entry names no invoice (its `invoice_id` absent or null), with its
 * names and values: in every write of an entry (PATCH, DELETE, an invoice's lock), so that a lock
 * landing after a read cancels the write (docs/decisions/0023-invoices.md).
 */
export const NOT_INVOICED = {
  expression: '(attribute_not_exists(#data.#invoice_id) OR attribute_type(#data.#invoice_id, :NULL))',
  names: { '#data': 'data', '#invoice_id': 'invoice_id' },
  values: { ':NULL': 'NULL' },
} as const;

export const timeEntryFields = /* @__PURE__ */ declareFields(timeEntry, () => ({
  project_id: v.nullable(reference('project_id')),
  /** Implied by the project when one is given (domain/time-entries.ts). */
  client_id: v.optional(reference('client_id')),
  started_at: timestamp('started_at'),
  duration_minutes: positiveInteger('duration_minutes', LIMITS.durationMinutes),
  billable: v.optional(v.boolean('billable must be true or false'), true),
  /** The project's hourly_rate when not sent on a log or a move (domain/time-entries.ts). */
  billable_rate: v.nullable(money('billable_rate')),
  description: v.nullable(text('description', LIMITS.descriptionLength, 'multi')),
  invoice_id: v.nullable(
    v.pipe(
      v.string('invoice_id must be a string'),
      v.regex(new RegExp(`^${INVOICE_ID_PREFIX}${ULID_PATTERN}$`), `invoice_id must be an invoice id (${INVOICE_ID_PREFIX} and 26 characters)`),
      v.metadata({
        description:
          'An invoice id: on an entry, the draft, open or paid invoice it is on (null when none; read-only; while on one, PATCH and DELETE are a 409 time_entry_invoiced); as a list filter, only the entries on that invoice',
      }),
    ),
  ),
}));
/** With every action's schemas (documents, tests, types); a function builds only its own action's from timeEntryFields. */
export const timeEntrySchemas = /* @__PURE__ */ (() => ({ ...withActions(timeEntryFields), createMany: createManySchema(timeEntryFields) }))();

/**
 * Invoices (contract, "Invoices"; docs/decisions/0023-invoices.md): a client's uninvoiced time
 * locked into a draft, then finalized, paid or voided (domain/invoices/). Every field is the
 * service's: a create names the client and the range, a PATCH changes a draft's terms.
 */
export const invoice = /* @__PURE__ */ declareResource({
  kind: 'invoice',
  idPrefix: INVOICE_ID_PREFIX,
  collection: 'invoices',
  tag: 'Invoices',
  fields: [
    'client_id', 'status', 'number', 'currency', 'timezone', 'period_start', 'period_end', 'project_ids', 'lines', 'time_entry_count',
    'subtotal', 'discount_rate', 'discount_amount', 'tax_rate', 'taxes', 'tax_amount', 'total', 'amount_paid', 'amount_due', 'memo', 'purchase_order', 'issue_date', 'due_date',
    'finalized_at', 'paid_at', 'voided_at', 'issuer', 'recipient', 'billing_run_id',
  ],
  // Set by the billing run that made it (domain/billing-runs.ts), null otherwise.
  readOnly: { billing_run_id: 'server' },
  indexes: {
    GSI1: { partition: ['status'] },
    GSI2: { partition: ['client_id'] },
    // Sparse: a billing run's invoices (at most its clients').
    GSI3: { partition: ['billing_run_id'] },
    GSI5: { partition: ['client_id'], sortPrefix: 'status' },
  },
  references: { client_id: 'client' },
  // Lines stored before billing types (decision 0029) are time lines, taxable.
  storedElementDefaults: { lines: { kind: 'time', taxable: true } },
  // Invoices stored before named taxes had one tax_rate (contract, "Taxes"); amount_paid and
  // amount_due are stored by the first payment (domain/invoices/payments.ts), derived until then.
  storedDerived: { taxes: taxesStoredBefore, amount_paid: paidBeforePayments, amount_due: dueBeforePayments },
  filters: ['client_id', 'status', 'billing_run_id'],
  deleteHint: 'void it instead once it is finalized',
  deletableOnly: 'an invoice only while it is a draft: one finalized stays, void or not',
  // What the client receives (shared/document/invoice-pdf.ts): its own function, decision 0034.
  document: 'application/pdf',
});

/** Its object's fields: what its list parses (`withListQuery(invoiceFields)`) and documents show. */
export const invoiceFields = /* @__PURE__ */ declareFields(invoice, invoiceFieldSchemas);
/** Its object's fields, and instead of the derived bodies, what each of its operations takes (documents, tests, types). */
export const invoiceSchemas = /* @__PURE__ */ (() => ({ ...withActions(invoiceFields), ...invoiceBodies() }))();

/**
 * What an invoice's create, PATCH or step function passes the handler frame: the declaration and
 * its own action's body (`invoiceWith('pay', invoicePayBody())`, model/invoice-fields.ts); neither
 * the object's field schemas nor another action's body.
 */
export const invoiceWith = <const A extends string, S>(action: A, body: S) => ({ ...invoice, [action]: body }) as typeof invoice & { [K in A]: S };

/**
 * A payment received for an invoice (contract, "Invoice items, taxes and payments";
 * docs/decisions/0030-taxes-items-payments.md): recorded and deleted under its invoice, with the
 * invoice's scopes, never changed. Its rules (the amount against the invoice's currency and
 * balance, the invoice updated in the same transaction) are in domain/invoices/payments.ts.
 */
export const payment = /* @__PURE__ */ declareResource({
  kind: 'payment',
  idPrefix: 'pay_',
  collection: 'payments',
  tag: 'Payments',
  parent: 'invoice',
  unchanging: true,
  fields: ['invoice_id', 'amount', 'paid_at', 'method', 'reference'],
  readOnly: { invoice_id: 'server' },
  // An invoice's payments, newest first (ids sort as their creation).
  indexes: { GSI2: { partition: ['invoice_id'] } },
});

export const paymentFields = /* @__PURE__ */ declareFields(payment, paymentFieldSchemas);
/** With every action's schemas (documents, tests, types); a function builds only its own action's from paymentFields. */
export const paymentSchemas = /* @__PURE__ */ withActions(paymentFields);

/**
 * The business that issues a workspace's invoices (contract, "Business profile and the invoice
 * document"): one per workspace, its fields null (`bilingual_invoices` false, `default_taxes` [])
 * until set. Its rules are in domain/business-profile.ts.
 */
export const businessProfile = /* @__PURE__ */ declareResource({
  kind: 'business_profile',
  idPrefix: 'bp_',
  collection: 'business_profile',
  tag: 'Business profile',
  singleton: true,
  fields: [
    'company_name', 'company_email', 'company_address', 'website', 'phone', 'business_number', 'tps_number', 'tvq_number', 'invoice_footer', 'bilingual_invoices', 'default_taxes',
    'auto_billing', 'billing_timezone',
  ],
  storedDefaults: { bilingual_invoices: false, auto_billing: false, billing_timezone: 'UTC' },
  storedDerived: { default_taxes: () => [] },
});

export const businessProfileFields = /* @__PURE__ */ declareFields(businessProfile, () => ({
  company_name: v.nullable(text('company_name', LIMITS.nameLength)),
  company_email: v.nullable(email('company_email')),
  company_address: v.nullable(text('company_address', LIMITS.addressLength, 'multi')),
  website: v.nullable(webUrl('website')),
  phone: v.nullable(text('phone', LIMITS.phoneLength)),
  business_number: v.nullable(taxId('business_number')),
  tps_number: v.nullable(taxId('tps_number')),
  tvq_number: v.nullable(taxId('tvq_number')),
  invoice_footer: v.nullable(text('invoice_footer', LIMITS.invoiceFooterLength, 'multi')),
  bilingual_invoices: v.boolean('bilingual_invoices must be true or false'),
  default_taxes: v.pipe(taxes('default_taxes'), v.metadata({ description: 'What an invoice created without `taxes` or `tax_rate` takes (0 to 2 `{name, rate}`; [] until set)' })),
  auto_billing: v.pipe(
    v.boolean('auto_billing must be true or false'),
    v.metadata({ description: "On: billing runs start by themselves on each project billing type's cycle, at the start of a local day in `billing_timezone` (a PATCH naming it needs `invoices:write` too)" }),
  ),
  billing_timezone: v.pipe(timeZoneName('billing_timezone'), v.metadata({ description: 'The IANA zone whose days the scheduled runs follow (`UTC` until set; a PATCH naming it needs `invoices:write` too)' })),
}));
/** With every action's schemas (documents, tests, types); its function builds only the update's from businessProfileFields. */
export const businessProfileSchemas = /* @__PURE__ */ withActions(businessProfileFields);

/**
 * A billing run (contract, "Billing runs"; docs/decisions/0033-billing-runs.md): every client of
 * the workspace (or those named) invoiced for one period, each client's outcome a row of its
 * results. Started with the invoices' write scope, moved on by the service alone. Its rules are
 * in domain/billing-runs.ts.
 */
export const billingRun = /* @__PURE__ */ declareResource({
  kind: 'billing_run',
  idPrefix: 'brun_',
  collection: 'billing_runs',
  tag: 'Billing runs',
  scopesOf: 'invoices',
  unchanging: true,
  fields: ['status', 'from', 'to', 'timezone', 'billing_types', 'client_ids', 'clients_total', 'clients_done', 'invoices_created', 'completed_at'],
  readOnly: { status: 'server', clients_total: 'server', clients_done: 'server', invoices_created: 'server', completed_at: 'server' },
  // The workspace's queued runs, oldest first (ids sort as their creation): the next to start.
  indexes: { GSI1: { partition: ['status'] } },
});

export const billingRunFields = /* @__PURE__ */ declareFields(billingRun, billingRunFieldSchemas);
/** Its object's fields, and instead of the derived create, the start's body (documents, tests, types). */
export const billingRunSchemas = /* @__PURE__ */ (() => ({ ...withActions(billingRunFields), create: billingRunStartBody() }))();
/** What the start function passes the handler frame: the declaration and the start's body alone. */
export const billingRunWithStart = () => ({ ...billingRun, create: billingRunStartBody() });

/**
 * Where a workspace's events are posted (docs/events.md). Its own rules (the URL's SSRF check,
 * the secret made on create and shown once, at most MAX_WEBHOOK_ENDPOINTS per workspace) are
 * in domain/webhook-endpoints.ts.
 */
export const webhookEndpoint = /* @__PURE__ */ declareResource({
  kind: 'webhook_endpoint',
  idPrefix: 'we_',
  collection: 'webhook_endpoints',
  tag: 'Webhook endpoints',
  fields: ['url', 'enabled_events', 'description', 'status'],
});

export const webhookEndpointFields = /* @__PURE__ */ declareFields(webhookEndpoint, () => ({
  url: webhookUrl('url'),
  enabled_events: v.pipe(
    v.array(
      v.picklist(['*', ...EVENT_TYPES], `enabled_events may hold only ${EVENT_TYPES.join(', ')}, or "*" alone`),
      'enabled_events must be an array of event types',
    ),
    v.minLength(1, 'enabled_events must name at least one event type, or "*"'),
    v.maxLength(EVENT_TYPES.length, `enabled_events may hold at most ${EVENT_TYPES.length} types`),
    v.check((types) => !types.includes('*') || types.length === 1, 'enabled_events must be ["*"] alone or a list of event types'),
    v.check(isUniqueList, 'enabled_events must not repeat a type'),
  ),
  description: v.nullable(text('description', LIMITS.nameLength, 'multi')),
  status: v.optional(enumOf('status', ['enabled', 'disabled']), 'enabled'),
}));
/** With every action's schemas (documents, tests, types); a function builds only its own action's from webhookEndpointFields. */
export const webhookEndpointSchemas = /* @__PURE__ */ withActions(webhookEndpointFields);

/** Every resource, by kind. */
export const RESOURCES = {
  client, project, time_entry: timeEntry, invoice, payment, business_profile: businessProfile, billing_run: billingRun, webhook_endpoint: webhookEndpoint,
} as const;

export type ResourceKind = keyof typeof RESOURCES;
export type Resource = (typeof RESOURCES)[ResourceKind];
export type Collection = Resource['collection'];

export const RESOURCE_LIST: readonly AnyResource[] = /* @__PURE__ */ Object.values(RESOURCES) as AnyResource[];

export const resourceOf = (kind: string): AnyResource => {
  const found = (RESOURCES as Record<string, AnyResource>)[kind];
  if (!found) throw new Error(`Unknown resource ${kind}`);
  return found;
};

/**
 * The resources that reference `target` (their creation counts on it): a guarded resource
 * cannot be deleted while any of their counters is above zero.
 */
export function referrersOf(target: AnyResource): { resource: AnyResource; field: string; counter: string }[] {
  return RESOURCE_LIST.flatMap((resource) =>
    Object.entries(resource.references ?? {})
      .filter(([, kind]) => kind === target.kind)
      .map(([field]) => ({ resource, field, counter: counterOf(resource) })),
  );
}

/** The attribute that counts a referrer on the items it references: `time_entry_count`. */
export const counterOf = (referrer: Pick<AnyResource, 'kind'>) => `${referrer.kind}_count`;
