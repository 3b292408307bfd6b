/**
 * What invoices take and show (contract, "Invoices"), beside their declaration in resources.ts.
 * An invoice's object is made by the service from time; what a caller sends is a create (the
 * client and the range whose time to take), a PATCH of a draft's terms, and the transitions'
 * optional bodies. Built inside functions, never at load (as define.ts).
 */
import * as v from 'valibot';
import { LIMITS } from '../core/field-limits.ts';
import { formatMinor, minorOfAmount } from '../core/money.ts';
import { enumOf, hasMoneyDecimals, isNonEmpty, isUniqueList, money, percent, reference, text, timestamp } from './fields.ts';
import { calendarDate, dateRange, MAX_SUMMARY_DAYS, timeZoneName } from './dates.ts';
import { crossFieldCheck, type CrossFieldRule } from './cross-field.ts';
import { ULID_PATTERN } from '../core/ids.ts';

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** An amount as the API answers it: a decimal string in the currency's minor unit. */
const amount = (what: string) =>
  v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/), v.metadata({ description: `${what}: a decimal string in the currency's minor unit ("1234.50", JPY "1235", KWD "12.345")` }));

/**
 * What the OpenAPI document says of the dates a create and a PATCH take: given only where the
 * document's schemas are built (`invoiceBodies`, the object's fields).
 */
const SAID = {
  from: 'The first date whose time to invoice (inclusive), in `timezone`',
  to: `The date after the last one (exclusive), in \`timezone\`: after \`from\`, at most ${MAX_SUMMARY_DAYS} days from it`,
  due_date: 'The date payment is due (in the invoice\'s `timezone`); never before `issue_date`',
};
type Said = Partial<typeof SAID>;

const memo = () => v.nullable(text('memo', LIMITS.memoLength, 'multi'));
const purchaseOrder = () => v.nullable(text('purchase_order', LIMITS.purchaseOrderLength));
const dueDate = (said: Said) => v.nullable(calendarDate('due_date', said.due_date));

/**
 * An invoice's lines, one schema per `kind` (contract, "Billing types"; decision 0029): each holds
 * the fields of its kind and `taxable` (true on time and fee lines). A fee line's `description` is
 * its project's `name` at creation.
 */
const taxable = () => v.pipe(v.boolean(), v.metadata({ description: 'Whether the invoice\'s taxes apply to this line: true on time and fee lines' }));
const timeLine = () =>
  v.strictObject({
    kind: v.literal('time'),
    project_id: v.nullable(reference('project_id')),
    description: v.string(),
    billable_rate: v.nullable(v.number()),
    minutes: v.pipe(v.number(), v.integer()),
    time_entry_count: v.pipe(v.number(), v.integer()),
    amount: amount('minutes × billable_rate / 60, rounded once, half to even; zero for the time a ProjectBased, Retainer or CreditBased project covers (a ProjectBased or Retainer one\'s rate may be null)'),
    taxable: taxable(),
  });
const fixedPriceLine = () =>
  v.strictObject({
    kind: v.literal('fixed_price'),
    project_id: reference('project_id'),
    description: v.string(),
    amount: amount("A ProjectBased project's fixed_price, rounded once, half to even"),
    taxable: taxable(),
  });
const retainerLine = () =>
  v.strictObject({
    kind: v.literal('retainer'),
    project_id: reference('project_id'),
    description: v.string(),
    period_start: calendarDate('period_start', 'The first date of the period'),
    period_end: calendarDate('period_end', "The next period's first date (exclusive)"),
    amount: amount("A Retainer project's amount for the period, rounded once, half to even"),
    taxable: taxable(),
  });
const creditLine = () =>
  v.strictObject({
    kind: v.literal('credit'),
    project_id: reference('project_id'),
    description: v.string(),
    blocks: v.pipe(v.number(), v.integer(), v.metadata({ description: 'Blocks of prepaid credit this invoice buys: the fewest that leave the credit above zero when it charges the project\'s fees, else 0' })),
    block_amount: amount("A CreditBased project's amount (one block), rounded once, half to even"),
    credit_used: amount("The value of the project's time on this invoice (its time lines' minutes × rate / 60, summed exactly, rounded once, half to even)"),
    credit_balance: amount("The project's credit after this invoice: blocks bought less credit used, over its invoices that are not void, in the order they were created"),
    amount: amount('blocks × block_amount'),
    taxable: taxable(),
  });

const itemLine = () =>
  v.strictObject({
    kind: v.literal('item'),
    project_id: v.nullable(reference('project_id')),
    description: v.string(),
    quantity: v.number(),
    unit_price: v.number(),
    amount: amount('quantity × unit_price, rounded once, half to even'),
    taxable: v.pipe(v.boolean(), v.metadata({ description: "Whether the invoice's taxes apply to this line: as the item was given (default true)" })),
  });

/** The invoice's fields as its object shows them (resources.ts declares their order and `invoiceFields` from them). */
export const invoiceFieldSchemas = () => ({
  client_id: reference('client_id'),
  status: enumOf('status', INVOICE_STATUSES),
  number: v.nullable(v.pipe(v.string(), v.regex(/^INV-\d{6,}$/), v.metadata({ description: 'Given at finalize: unique, gapless and in order of finalization in the workspace (`INV-000042`)' }))),
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/), v.metadata({ description: "The client's currency" })),
  timezone: timeZoneName('timezone'),
  period_start: v.nullable(calendarDate('period_start', 'The `from` the invoice was created with (null: an invoice of items alone)')),
  period_end: v.nullable(calendarDate('period_end', 'The `to` the invoice was created with (exclusive; null: an invoice of items alone)')),
  project_ids: v.nullable(v.array(reference('project_ids'))),
  lines: v.array(v.variant('kind', [timeLine(), fixedPriceLine(), retainerLine(), creditLine(), itemLine()])),
  time_entry_count: v.pipe(v.number(), v.integer()),
  subtotal: amount('The sum of the lines'),
  discount_rate: percent('discount_rate'),
  discount_amount: amount('subtotal × discount_rate / 100, rounded once, half to even'),
  tax_rate: v.pipe(v.number(), v.minValue(0), v.maxValue(LIMITS.percent * LIMITS.invoiceTaxes), v.metadata({ description: 'The sum of the rates of `taxes` (0 when none)' })),
  taxes: v.array(
    v.strictObject({
      name: v.string(),
      rate: v.number(),
      taxable_amount: amount('The taxable lines\' sum less the discount\'s share of it (that share rounded half to even)'),
      amount: amount('taxable_amount × rate / 100, rounded half up (as Revenu Québec and the Canada Revenue Agency round taxes)'),
    }),
  ),
  tax_amount: amount('The sum of the taxes\' amounts'),
  total: amount('subtotal − discount_amount + tax_amount'),
  amount_paid: amount('The sum of its payments\' amounts (`total` on an invoice paid before payments were recorded)'),
  amount_due: amount('total − amount_paid: what a payment may bring to zero'),
  memo: memo(),
  purchase_order: purchaseOrder(),
  issue_date: v.nullable(calendarDate('issue_date', 'Set at finalize')),
  due_date: dueDate(SAID),
  finalized_at: v.nullable(timestamp('finalized_at')),
  paid_at: v.nullable(timestamp('paid_at')),
  voided_at: v.nullable(timestamp('voided_at')),
  issuer: v.nullable(
    v.pipe(
      v.strictObject(Object.fromEntries(ISSUER_FIELDS.map((field) => [field, field === 'bilingual_invoices' ? v.boolean() : v.nullable(v.string())]))),
      v.metadata({ description: "The business profile's fields the invoice's document shows, frozen at finalize (null on a draft, whose document shows the current ones; null on an invoice finalized before the profile existed)" }),
    ),
  ),
  recipient: v.nullable(
    v.pipe(
      v.strictObject(Object.fromEntries(RECIPIENT_FIELDS.map((field) => [field, field === 'language' ? v.string() : v.nullable(v.string())]))),
      v.metadata({ description: "The client's fields the invoice's document shows, frozen at finalize (null on a draft, and on an invoice finalized before they were)" }),
    ),
  ),
  billing_run_id: v.nullable(
    v.pipe(
      v.string('billing_run_id must be a string'),
      v.regex(new RegExp(`^brun_${ULID_PATTERN}$`), 'billing_run_id must be a billing run id (brun_ and 26 characters)'),
      v.metadata({ description: 'The billing run that made the draft (null: made by a create); as a list filter, only that run\'s invoices' }),
    ),
  ),
});

/** What finalize freezes of the business profile (`issuer`) and of the client (`recipient`), exactly these (contract, "Business profile and the invoice document"). */
export const ISSUER_FIELDS = ['company_name', 'company_email', 'company_address', 'website', 'phone', 'business_number', 'tps_number', 'tvq_number', 'invoice_footer', 'bilingual_invoices'] as const;
export const RECIPIENT_FIELDS = ['company_name', 'company_email', 'company_address', 'business_number', 'tps_number', 'tvq_number', 'language'] as const;
/** What a document shows of the issuer: an invoice's `issuer`, or the current profile's for a draft. */
export type Issuer = { [F in (typeof ISSUER_FIELDS)[number]]: F extends 'bilingual_invoices' ? boolean : string | null };
/** What a document shows of the client billed: an invoice's `recipient`, or the current client's for a draft. */
export type Recipient = { [F in (typeof RECIPIENT_FIELDS)[number]]: F extends 'language' ? string : string | null };

/** One line of an invoice, as its object shows it: its `kind` says which. */
export type InvoiceLine = v.InferOutput<ReturnType<typeof invoiceFieldSchemas>['lines']>[number];
/** A `time` line: a project (or time without one) at one rate. */
export type TimeLine = Extract<InvoiceLine, { kind: 'time' }>;
/** A fee line: a `fixed_price`, or a `retainer` period (each has a mark: fee-marks.ts). */
export type FeeLine = Extract<InvoiceLine, { kind: 'fixed_price' | 'retainer' }>;
/** A `credit` line: a CreditBased project's blocks bought and credit used (its ledger: credit.ts). */
export type CreditLine = Extract<InvoiceLine, { kind: 'credit' }>;
/** An `item` line: a free-form line a create or PATCH gives. */
export type ItemLine = Extract<InvoiceLine, { kind: 'item' }>;

/** At most LIMITS.invoiceProjects: a check, which the OpenAPI document states as maxItems (model/documented.ts). */
export const hasAtMostProjects = (ids: string[]) => ids.length <= LIMITS.invoiceProjects;

/**
 * The taxes a create or PATCH gives (`taxes`), or the business profile's `default_taxes`: at most
 * LIMITS.invoiceTaxes, each `{name, rate}`, the names distinct (compared exactly); a 400 names
 * `taxes[i].name`, `taxes[i].rate`, or `taxes`.
 */
export const taxes = (field = 'taxes') =>
  v.pipe(
    v.array(
      v.strictObject({ name: text('name', LIMITS.taxNameLength), rate: percent('rate') }, 'each tax must be an object {"name", "rate"}'),
      `${field} must be an array of {"name", "rate"} objects`,
    ),
    v.check((list) => list.length <= LIMITS.invoiceTaxes, `${field} may hold at most ${LIMITS.invoiceTaxes} taxes (TPS and TVQ, or GST and QST)`),
    v.rawCheck<{ name: string; rate: number }[]>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const list = dataset.value;
      list.forEach((tax, i) => {
        if (list.findIndex((other) => other.name === tax.name) === i) return;
        addIssue({
          message: `name ${JSON.stringify(tax.name)} is given twice: each tax is named once`,
          path: [
            { type: 'array', origin: 'value', input: list, key: i, value: tax },
            { type: 'object', origin: 'value', input: tax, key: 'name', value: tax.name },
          ],
        });
      });
    }),
  );

/** A quantity: above 0, at most LIMITS.itemQuantity, at most 4 decimal places. */
const quantity = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.finite(`${field} must be a finite number`),
    v.check((n: number) => n > 0, `${field} must be above 0`),
    v.maxValue(LIMITS.itemQuantity, `${field} must be at most ${LIMITS.itemQuantity}`),
    v.check(hasMoneyDecimals, `${field} must have at most ${LIMITS.moneyDecimals} decimal places`),
  );

/**
 * The items a create or PATCH gives (0 to LIMITS.invoiceItems): each a line of `kind: "item"`,
 * its project (optional) one of the invoice client's, checked by the domain. A 400 names
 * `items[i].field`, `items[i]` (not an object), or `items`.
 */
const items = () =>
  v.pipe(
    v.array(
      v.strictObject(
        {
          description: text('description', LIMITS.itemDescriptionLength),
          quantity: quantity('quantity'),
          unit_price: money('unit_price'),
          project_id: v.optional(reference('project_id')),
          taxable: v.optional(v.boolean('taxable must be true or false'), true),
        },
        'each item must be an object {"description", "quantity", "unit_price"}',
      ),
      'items must be an array of objects',
    ),
    v.check((list) => list.length <= LIMITS.invoiceItems, `items may hold at most ${LIMITS.invoiceItems} items`),
  );

/** The period: `from` and `to` both, or neither (an invoice of items alone, which needs an item). */
const periodOrItems: CrossFieldRule[] = [
  { field: 'from', broken: (given) => (given.from === undefined && given.to !== undefined ? 'from is required with to' : undefined) },
  { field: 'to', broken: (given) => (given.to === undefined && given.from !== undefined ? 'to is required with from' : undefined) },
  {
    field: 'items',
    broken: (given) =>
      given.from === undefined && given.to === undefined && !(Array.isArray(given.items) && given.items.length > 0)
        ? 'items must hold at least one item when there is no period (from and to): an invoice of items alone'
        : undefined,
  },
];

/** `tax_rate` is shorthand for `taxes` (one tax named "Tax", or none at 0): both in one body is a 400 naming it. */
const taxRateOrTaxes: CrossFieldRule = {
  field: 'tax_rate',
  broken: (given) => (given.tax_rate !== undefined && given.taxes !== undefined ? 'tax_rate is shorthand for taxes: send one of them' : undefined),
};

const projectIds = () =>
  v.pipe(
    v.array(reference('project_ids'), 'project_ids must be an array of project ids'),
    v.check<string[], string>(isNonEmpty, 'project_ids must name at least one project (or be left out: every project of the client, and its time without a project)'),
    v.check(hasAtMostProjects, `project_ids may name at most ${LIMITS.invoiceProjects} projects`),
    v.check(isUniqueList, 'project_ids must not repeat a project'),
  );

/**
 * What each invoice operation takes, built apart: a function builds only its own action's body
 * (resources.ts `invoiceWith`), so a pay carries neither the create's rules nor the invoice's fields.
 * The create's range is a rule across `from` and `to` (model/dates.ts); no other body takes them.
 */
export const invoiceCreateBody = (said: Said = {}) =>
  v.pipe(
    v.strictObject({
      client_id: reference('client_id'),
      from: v.optional(calendarDate('from', said.from)),
      to: v.optional(calendarDate('to', said.to)),
      timezone: v.optional(timeZoneName('timezone'), 'UTC'),
      project_ids: v.optional(projectIds()),
      discount_rate: v.optional(percent('discount_rate'), 0),
      tax_rate: v.optional(percent('tax_rate')),
      taxes: v.optional(taxes()),
      items: v.optional(items()),
      memo: v.optional(memo()),
      purchase_order: v.optional(purchaseOrder()),
      due_date: v.optional(dueDate(said)),
    }),
    crossFieldCheck([...periodOrItems, dateRange, taxRateOrTaxes]),
  );

/** A PATCH of a draft: its terms. */
export const invoiceUpdateBody = (said: Said = {}) =>
  v.pipe(
    v.strictObject({
      memo: v.optional(memo()),
      purchase_order: v.optional(purchaseOrder()),
      due_date: v.optional(dueDate(said)),
      discount_rate: v.optional(percent('discount_rate')),
      tax_rate: v.optional(percent('tax_rate')),
      taxes: v.optional(taxes()),
      items: v.optional(items()),
    }),
    crossFieldCheck([taxRateOrTaxes]),
  );

/**
 * What an invoice stored before named taxes reads as: its one `tax_rate` as a tax named "Tax" on
 * the subtotal less the discount (every line was taxable), or none at 0.
 */
export function taxesStoredBefore(data: Readonly<Record<string, unknown>>) {
  const rate = Number(data.tax_rate ?? 0);
  if (rate === 0) return [];
  const taxable = formatMinor(minorOfAmount(String(data.subtotal)) - minorOfAmount(String(data.discount_amount)), String(data.currency));
  return [{ name: 'Tax', rate, taxable_amount: taxable, amount: String(data.tax_amount) }];
}

/** The taxes a create or PATCH gives, `tax_rate` read as its shorthand; undefined when it gives neither. */
export const givenTaxes = (body: { tax_rate?: number | undefined; taxes?: { name: string; rate: number }[] | undefined }) =>
  body.taxes ?? (body.tax_rate === undefined ? undefined : body.tax_rate > 0 ? [{ name: 'Tax', rate: body.tax_rate }] : []);

export const invoiceFinalizeBody = () =>
  v.strictObject({
    issue_date: v.optional(calendarDate('issue_date', "The invoice's date (default: today in its `timezone`)")),
  });

/** What an invoice reads as before its first payment: nothing paid, unless it was paid whole before payments were recorded. */
export const paidBeforePayments = (data: Readonly<Record<string, unknown>>) => (data.status === 'paid' ? String(data.total) : formatMinor(0n, String(data.currency)));
export const dueBeforePayments = (data: Readonly<Record<string, unknown>>) =>
  formatMinor(minorOfAmount(String(data.total)) - minorOfAmount(paidBeforePayments(data)), String(data.currency));

export const PAYMENT_METHODS = ['bank_transfer', 'card', 'cheque', 'cash', 'other'] as const;

/** A payment's terms: what its record takes beside the amount, and what `pay` takes (its amount the whole balance). */
const paymentTerms = () => ({
  paid_at: v.optional(
    v.pipe(timestamp('paid_at'), v.metadata({ description: "When it was paid (default: now): not after the request, not before the invoice's finalized_at or the start of its issue_date" })),
  ),
  method: v.optional(enumOf('method', PAYMENT_METHODS), 'other'),
  reference: v.nullable(text('reference', LIMITS.paymentReferenceLength)),
});

/**
 * A payment's fields (resources.ts declares their order): `amount` a decimal string without sign,
 * exponent or space, whose digits after the point the invoice's currency bounds (domain/invoices/payments.ts).
 */
export const paymentFieldSchemas = () => ({
  invoice_id: v.pipe(v.string(), v.regex(new RegExp(`^inv_${ULID_PATTERN}$`)), v.metadata({ description: 'The invoice it pays' })),
  amount: v.pipe(
    v.string('amount must be a decimal string ("150.50"), not a number'),
    v.regex(/^\d{1,15}(\.\d{1,4})?$/, 'amount must be a decimal string of digits with at most one point ("150", "150.5", "150.50"): no sign, exponent or space'),
    v.metadata({ description: "Above 0, at most the invoice's amount_due, with at most the currency's minor-unit digits (\"150.50\" in USD, \"1500\" in JPY); answered in the minor unit" }),
  ),
  ...paymentTerms(),
});

/** `pay`: one payment of the whole amount_due, on these terms. */
export const invoicePayBody = () => {
  const { reference, ...terms } = paymentTerms();
  return v.strictObject({ ...terms, reference: v.optional(reference) });
};

export const invoiceVoidBody = () => v.strictObject({});

/** Every operation's body: for what documents or checks the whole API (resources.ts `invoiceSchemas`). */
export const invoiceBodies = () => ({
  create: invoiceCreateBody(SAID),
  update: invoiceUpdateBody(SAID),
  finalize: invoiceFinalizeBody(),
  pay: invoicePayBody(),
  void: invoiceVoidBody(),
});
