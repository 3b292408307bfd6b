/**
 * What the OpenAPI document says of each operation in words. Everything else about an operation
 * (its path, scope, body, query, responses and errors) comes from the route table, the registry
 * and the contracts of shared/api/operations.ts.
 */
import type { Operation } from '../shared/api/routes.ts';

export interface OperationDoc {
  summary: string;
  /** Every operation has one (linters ask for it): what the path, schemas and statuses do not say. */
  description: string;
}

export const OPERATION_DOCS: Record<Operation, OperationDoc> = {
  listClients: {
    summary: 'List clients',
    description: 'Newest first. `status` and `search` (case-insensitive substring of company_name, Unicode full case folding: ß matches ss) filter; pages are always full.',
  },
  retrieveClient: { summary: 'Retrieve a client', description: 'The client with its current `ETag` (send it as `If-Match` to change or delete only this version).' },
  createClient: {
    summary: 'Create a client',
    description: '`status` defaults to LEAD and `language` to ENGLISH; `relationship_start_date` is set to the creation time. Makes a `client.created` event.',
  },
  updateClient: {
    summary: 'Update a client',
    description: 'Changes only the fields sent; null clears a nullable field. Setting status to SLEEPING or LOST archives the client.',
  },
  deleteClient: { summary: 'Delete a client', description: 'Refused with 409 while the client has projects or time entries.' },
  listProjects: {
    summary: 'List projects',
    description: 'Newest first. `status`, `client_id` and `search` (case-insensitive substring of name, Unicode full case folding: ß matches ss) filter; pages are always full.',
  },
  retrieveProject: { summary: 'Retrieve a project', description: 'The project with its current `ETag` (send it as `If-Match` to change or delete only this version).' },
  createProject: {
    summary: 'Create a project',
    description: "`client_id` must name a client of the caller's workspace (400 otherwise). `end_date` must not be before `start_date` (400 naming `end_date`).",
  },
  updateProject: {
    summary: 'Update a project',
    description:
      'Changes only the fields sent; null clears a nullable field. `client_id` cannot be changed. `end_date` must not be before `start_date` (the one sent, or the stored one), 400 naming `end_date`.',
  },
  deleteProject: { summary: 'Delete a project', description: 'Refused with 409 while time entries are logged against the project.' },
  listTimeEntries: {
    summary: 'List time entries',
    description:
      'Newest first by `started_at` (ties by id). Filters, combinable: `project_id`, `client_id`, `started_from` (inclusive) and `started_to` ' +
      '(exclusive); `started_from` after `started_to` is a 400 naming `started_to`. A cursor is bound to all of them. Every page costs the same, ' +
      'whatever the filters, the page and the number of entries.',
  },
  listInvoices: {
    summary: 'List invoices',
    description: 'Newest first by creation. `client_id` and `status` (draft, open, paid, void) filter, alone or together; pages are always full.',
  },
  retrieveInvoice: {
    summary: 'Retrieve an invoice',
    description:
      'The invoice with its lines and totals, and its current `ETag`. An `Accept` that prefers `application/pdf` answers its document instead, as `GET /invoices/{id}/document` does (`Vary: Accept` on both answers).',
  },
  retrieveInvoiceDocument: {
    summary: "Retrieve an invoice's PDF",
    description:
      "The invoice as its client receives it: a PDF with both parties, every line, tax, total and payment figure, in the recipient's language (French, English, or French then English with `bilingual_invoices`). A draft shows the current business profile and client, marked `BROUILLON / DRAFT`; a finalized invoice, the parties frozen at finalize. Its `ETag` is a hash of its bytes: the same while the invoice does not change, `If-None-Match` gives 304. 406 only when `Accept` excludes `application/pdf`.",
  },
  createInvoice: {
    summary: 'Create a draft invoice from uninvoiced time',
    description:
      "Takes every billable time entry of the client (of `project_ids`, when given) that is on no invoice and starts on a date from `from` to `to` " +
      '(exclusive) in `timezone`, as a time summary counts it, and locks it: its `invoice_id` is the draft\'s, and it cannot be changed or deleted ' +
      '(409 `time_entry_invoiced`) until the draft is deleted or the invoice voided. It also charges the fees of its projects\' billing types: ' +
      'a `ProjectBased` project\'s `fixed_price` once (`fixed_price` line, while ACTIVE or COMPLETED), a `Retainer` project\'s `amount` for each period ' +
      'starting in the range (`retainer` lines, while ACTIVE), and for a `CreditBased` project the fewest blocks of its `amount` that leave its ' +
      'prepaid credit above zero (a `credit` line, stating the credit used and the balance; blocks only while ACTIVE); their time is on `time` lines ' +
      'of amount zero. Each fee is on at most one invoice that is not void. Lines (`kind`: `time` per project and rate, `fixed_price`, `retainer`, ' +
      '`credit`) are ordered by project; amounts are decimal strings in ' +
      "the client's currency, rounded once, half to even; `items` (0 to 50 free-form lines, after the others) are charged `quantity × unit_price`, and without `from` and `to` the invoice is its items alone; `taxes` (0 to 2 named rates, or `tax_rate` as one named \"Tax\") are charged on the taxable lines less the discount's share, each rounded half up. 409 `unpriced_project` when a project that may be charged fees lacks what its type needs; " +
      '409 `unpriced_time` when time billed by the hour has no rate; 409 `nothing_to_invoice` when nothing would be charged; 400 naming `to` past ' +
      '2,000 entries or 100 lines. A retry with the same `Idempotency-Key` finishes the same invoice.',
  },
  updateInvoice: {
    summary: 'Change a draft',
    description:
      '`memo`, `purchase_order`, `due_date`, `discount_rate`, `items` (the whole list, replaced), and `taxes` (or `tax_rate`, their shorthand: one tax named "Tax", none at 0; not both), while the invoice is a draft ' +
      '(409 `invalid_state` otherwise); the totals follow. Without `taxes` or `tax_rate` the invoice keeps its taxes.',
  },
  deleteInvoice: { summary: 'Delete a draft', description: 'Only a draft (409 `invalid_state` otherwise): its fees and time entries are released, invoiceable again.' },
  finalizeInvoice: {
    summary: 'Finalize a draft',
    description:
      'draft → open. Gives the invoice its `number` (`INV-000042`: unique in the workspace, gapless, in order of finalization), its `issue_date` ' +
      '(default today in its `timezone`) and a `due_date` (default 30 days later; never before the issue date). The body is optional.',
  },
  payInvoice: {
    summary: 'Pay an invoice in full',
    description:
      'Records one payment of the whole `amount_due` (open → paid), on the terms the optional body gives: `paid_at` (default now; not after the request, nor before the invoice\'s `finalized_at` or the start of its `issue_date`), `method`, `reference`.',
  },
  voidInvoice: {
    summary: 'Void an invoice',
    description: 'open → void. Its fees and time entries are released (invoiceable again); the invoice keeps its lines and totals for the record. The body is optional.',
  },
  listPayments: { summary: "List an invoice's payments", description: 'Newest first. An invoice\'s `amount_paid` is the sum of the payments listed here.' },
  retrievePayment: { summary: 'Retrieve a payment', description: 'A payment of the invoice in the path (404 for a payment of another invoice).' },
  createPayment: {
    summary: 'Record a payment',
    description:
      'While the invoice is `open` (409 `invalid_state` otherwise, answered before the body is read). `amount`: a decimal string above 0, at most the invoice\'s `amount_due`, with at most the currency\'s minor-unit digits. The payment that brings `amount_due` to zero makes the invoice `paid`. Concurrent payments never take `amount_paid` above `total`: the one that would is a 400 naming `amount` (or a 409 once the invoice is paid).',
  },
  deletePayment: {
    summary: 'Delete a payment',
    description: 'A payment recorded by mistake, while the invoice is `open` or `paid`: `amount_paid` and `amount_due` follow, and a `paid` invoice with a balance again is `open` (`paid_at` null).',
  },
  retrieveBusinessProfile: {
    summary: 'Retrieve the business profile',
    description: 'What the workspace\'s invoices say of the business that issues them. There is one from the start: its fields are null (`bilingual_invoices` false, `default_taxes` []) until set, and `updated_at` null until its first change.',
  },
  updateBusinessProfile: {
    summary: 'Update the business profile',
    description: 'The fields given (null clears one). `default_taxes` are what an invoice created without `taxes` or `tax_rate` takes. An empty body changes nothing and makes no event.',
  },
  startBillingRun: {
    summary: 'Start a billing run: every client invoiced for a period',
    description:
      'Makes, for each client (`client_ids`, else every client of the workspace at the start), what `POST /invoices` would with the run\'s `from`, `to` and `timezone` and `project_ids` set to that client\'s projects of `billing_types` (when given; time without a project only when not). 202 with the run: one run at a time in a workspace, so a run started while another is `queued` or `running` is `queued`, and starts when those before it complete. `clients_total` is known from this answer. Each client ends with one row of the run\'s results, and at most one invoice, whatever fails or repeats; the run is `completed` when every client has one (event `billing_run.completed`). `client_ids` that name a client not in the workspace are a 400 naming `client_ids`.',
  },
  retrieveBillingRun: { summary: 'Retrieve a billing run', description: '`clients_done` counts the clients with an outcome so far; `status` is `completed` once every client has one.' },
  listBillingRuns: { summary: 'List billing runs', description: 'Newest first.' },
  listBillingRunResults: {
    summary: "List a billing run's results",
    description: 'One row per client with an outcome so far, in ascending order of `client_id`: `invoiced` (with `invoice_id`), `nothing_to_invoice`, or `failed` (with the `error` `POST /invoices` would have answered).',
  },
  listTimeSummaries: {
    summary: 'Summarize time: what to bill, to whom, for which period',
    description:
      'Totals of time entries by client (or project) and period (none, day, ISO week from Monday, month) over the dates `from` (inclusive) to ' +
      '`to` (exclusive) of `timezone` (IANA, default UTC). An entry counts once, whole, in the day of the zone in which it starts. ' +
      '`billable_amount` is a decimal string in the client\'s `currency`: the exact sum of `duration_minutes × billable_rate / 60`, rounded once, ' +
      'half to even, to the currency\'s minor unit. Rows with no minutes are left out; ordered by `period_start`, `client_id`, then `project_id` ' +
      '(null first). Current at once: every log, correction, move and delete counts exactly once. A page costs what its rows and the months ' +
      'they span cost, never what the number of entries would.',
  },
  retrieveTimeEntry: {
    summary: 'Retrieve a time entry',
    description: 'The time entry with its current `ETag` (send it as `If-Match` to change or delete only this version).',
  },
  logTimeEntry: {
    summary: 'Log a time entry',
    description:
      'Against a project (its client is implied) or a client. Counts against the delete guards of both. `billable` defaults to true; ' +
      "`billable_rate` to the project's `hourly_rate` (null without a project). Counted in the time summaries at once.",
  },
  logTimeEntryBatch: {
    summary: 'Log time entries in bulk',
    description:
      'For migrations: 1 to 100 log bodies in `entries`, each as `POST /time_entries` takes it; the body may be up to 1 MiB. ' +
      'All or nothing: 201 with the list of the entries made, in the order given (no `Location`); otherwise nothing is made and ' +
      'a 400 lists every invalid field by index (`entries[3].started_at`, `param` the lowest), references that name nothing among them. ' +
      'A batch may be written in several transactions; each entry written is whole (guards and summaries exact). Send an ' +
      '`Idempotency-Key`: a retry writes exactly the entries the first attempt left unwritten and answers the whole batch. ' +
      'One `time_entry.created` event per entry.',
  },
  updateTimeEntry: {
    summary: 'Correct or move a time entry',
    description:
      'Changes only the fields sent; null clears `description`. Another `project_id` moves the entry to that project and its client (a `client_id` ' +
      'sent beside it must be that client); `project_id: null` leaves it to its client, or to the `client_id` sent beside it; `client_id` alone on ' +
      "an entry with a project must be the project's client. A move adjusts the delete guards of the old and new project and client in one " +
      'transaction: a target deleted meanwhile is a 400 naming the field, with nothing changed. Makes a `time_entry.updated` event.',
  },
  deleteTimeEntry: {
    summary: 'Delete a time entry',
    description: 'Releases its hold on the delete guards of its project and client. Makes a `time_entry.deleted` event.',
  },
  listEvents: {
    summary: 'List events',
    description:
      'Newest first; `type` (one event type) and `object_id` (the events of one client, project or time entry) filter, and pages are always full. ' +
      "Sync mode: `after=<event id>` lists the events after that one, oldest first (with `limit`, `type` and `object_id`); follow next_cursor while has_more, then poll again later with after= the last event's id. " +
      "A reader in sync mode sees every event exactly once and each resource's in the order of its changes, even while writes go on. " +
      'Events are kept 30 days: after= an event that is unknown or no longer kept is a 400 (param `after`): re-list and start again. ' +
      'The feed holds the events of the collections whose read scope the token holds beside events:read (clients:read for client.*, …): none of them, or a `type` or `object_id` of another collection, is a 403.',
  },
  retrieveEvent: {
    summary: 'Retrieve an event',
    description:
      "The same object as in the list, and as a webhook delivery posts. Another workspace's event, or one no longer kept, is 404; an event of a collection the token cannot read is 403.",
  },
  listWebhookEndpoints: { summary: 'List webhook endpoints', description: 'Newest first. The secret is never listed.' },
  retrieveWebhookEndpoint: { summary: 'Retrieve a webhook endpoint', description: 'The secret is never shown again after create.' },
  createWebhookEndpoint: {
    summary: 'Create a webhook endpoint',
    description:
      "The response alone also holds `secret` (`whsec_` + the standard base64 of 32 random bytes), the key of the deliveries' Standard Webhooks signature (`webhook-signature`; standardwebhooks.com libraries take it as is); it is never shown again. `url` must be `https://` to a host that is not and does not resolve to a loopback, private, link-local, multicast or metadata address (400). At most 16 per workspace (409). `enabled_events` may name only events of collections whose read scope the token holds (`*`: all of them), 403 otherwise.",
  },
  updateWebhookEndpoint: {
    summary: 'Update a webhook endpoint',
    description: 'Changes `url` (checked again), `enabled_events`, `description` and `status`. The token must hold the read scope of every collection the endpoint (as changed) sends events of, 403 otherwise.',
  },
  deleteWebhookEndpoint: { summary: 'Delete a webhook endpoint', description: 'No further deliveries are made to it, retries included.' },
  getOpenApiDocument: {
    summary: 'This API description (OpenAPI 3.1)',
    description: 'The document this page was made from, without a token; `servers` names the stage that served it.',
  },
};

/**
 * Statuses any operation can answer: a query parameter where it takes none (400), a request sent too slowly (408), a body over API Gateway's
 * 10 MB (413), headers over the local stack's limit (431), throttling (429), a bug (500), a
 * dependency failure (503; the public one too, through Lambda throttling).
 */
export const ANY_OPERATION = [400, 406, 408, 413, 429, 431, 500, 503];
/** And any protected one: a refused body or header (400), the token (401, 403). */
export const PROTECTED_OPERATION = [400, 401, 403];

/** The tag of the public API description. */
export const DESCRIPTION_TAG = 'API description';

/** What each tag groups, for the document's `tags` (every tag has one). */
export const TAG_DOCS: Record<string, string> = {
  Clients: 'The companies a workspace bills: their contact details, tax numbers and status (LEAD to LOST).',
  Projects: 'Work for one client, with its billing type and rates; a project stays with the client it was created for.',
  'Time entries': 'Time logged against a project (its client implied) or directly against a client.',
  Invoices: "A client's uninvoiced billable time, locked into a draft, then finalized (numbered), paid or voided.",
  'Business profile': "The business that issues the workspace's invoices: one per workspace, retrieved and changed at `/business_profile`.",
  'Billing runs': "Every client of the workspace (or those named) invoiced for one period in one request, with the invoices' scopes: a run is queued behind the workspace's run in progress, then works client by client on a queue; each client ends with one outcome, a row of its results, and at most one invoice.",
  Payments: "Payments received for an invoice, recorded in instalments under it (`/invoices/{id}/payments`, the invoices' scopes): its `amount_paid` is their sum, and the one that clears `amount_due` makes it paid.",
  'Webhook endpoints': 'Where the events of a workspace are posted, signed, as they happen.',
  'Time summaries': 'What to bill, to whom, for which period: totals of time entries by client or project and period, in any time zone.',
  Events: 'Every change of a client, project, time entry or invoice, kept 30 days: the feed, and what webhook deliveries post.',
  [DESCRIPTION_TAG]: 'This OpenAPI document, served by the API itself.',
};
