/**
 * The SDK's types, derived from the generated `operations` and `components` of
 * sdk/src/openapi-types.ts (`npm run sdk:types`), so that a change to docs/openapi.json reaches
 * every body, parameter and result here by regenerating that file.
 */
import type { operations } from './openapi-types.ts';

export type { components, operations, paths } from './openapi-types.ts';

type OperationId = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON request body of an operation (of an optional body too: an invoice's steps). */
export type BodyOf<O extends OperationId> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's success (200, 201 for a create, or 202 for what the service goes on with: a billing run's start). */
export type ResultOf<O extends OperationId> = operations[O]['responses'] extends { 200: infer R }
  ? JsonOf<R>
  : operations[O]['responses'] extends { 201: infer R }
    ? JsonOf<R>
    : operations[O]['responses'] extends { 202: infer R }
      ? JsonOf<R>
      : never;

/** A list operation's filters and page size; the SDK follows `cursor` itself. */
export type ListParamsOf<O extends OperationId> = Omit<NonNullable<operations[O]['parameters']['query']>, 'cursor'>;

/** One item of a list operation's pages. */
export type ItemOf<O extends OperationId> = ResultOf<O> extends { data: (infer I)[] } ? I : never;

/** One page of a list operation (`object: "list"`, `data`, `has_more`, `next_cursor`). */
export type PageOf<O extends OperationId> = ResultOf<O>;

// Named by operation, not by schema name, so that a renamed or restructured schema (the event
// as a union discriminated on `type`, say) still reaches these names.
export type Client = ResultOf<'retrieveClient'>;
export type Project = ResultOf<'retrieveProject'>;
export type TimeEntry = ResultOf<'retrieveTimeEntry'>;
export type WebhookEndpoint = ResultOf<'retrieveWebhookEndpoint'>;
/** A webhook endpoint as created: the only time its `secret` is shown. */
export type CreatedWebhookEndpoint = ResultOf<'createWebhookEndpoint'>;
/** An invoice (`lines`, amounts as decimal strings in its currency's minor unit). */
export type Invoice = ResultOf<'retrieveInvoice'>;
/** A line of an invoice, discriminated by `kind`: `time` (one project, or none, and rate), `fixed_price`, `retainer`, `credit` or `item`. */
export type InvoiceLine = Invoice['lines'][number];
/** A line of one kind (`InvoiceLineOf<'retainer'>`), as `kind` narrows it. */
export type InvoiceLineOf<K extends InvoiceLine['kind']> = Extract<InvoiceLine, { kind: K }>;
/** A payment of an invoice (`amount` a decimal string in its currency's minor unit; `method`, `reference`). */
export type Payment = ResultOf<'retrievePayment'>;
/**
 * The workspace's business profile: what its invoices say of their issuer (`company_name`… `tvq_number`,
 * `invoice_footer`, `bilingual_invoices`) and `default_taxes`; `updated_at` null until its first change.
 */
export type BusinessProfile = ResultOf<'retrieveBusinessProfile'>;
export type Event = ResultOf<'retrieveEvent'>;
/** A billing run: `status` `queued`, `running`, then `completed`; `clients_done` of `clients_total`, `invoices_created`. */
export type BillingRun = ResultOf<'retrieveBillingRun'>;
/** A client's outcome in a billing run: `invoiced` (its `invoice_id`), `nothing_to_invoice`, or `failed` (the `error` create would have answered). */
export type BillingRunResult = ItemOf<'listBillingRunResults'>;
/** A row of a time summary. */
export type TimeSummary = ItemOf<'listTimeSummaries'>;
export type DeleteResult = ResultOf<'deleteClient'>;
/** The `error` member of every error response. */
export type ApiErrorBody = JsonOf<operations['retrieveClient']['responses'][404]> extends { error: infer E } ? E : never;
