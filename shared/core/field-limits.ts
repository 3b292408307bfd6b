/**
 * The limits of the fields and requests, by name. A const enum: the bundler puts each value where
 * it is used, so a function's bundle holds only the numbers its own rules read, not the table.
 */
export const enum LIMITS {
  nameLength = 200,
  emailLength = 254,
  addressLength = 1000,
  urlLength = 2048,
  taxIdLength = 32,
  descriptionLength = 5000,
  idLength = 64,
  searchLength = 100,
  cursorLength = 1024,
  money = 1_000_000_000,
  moneyDecimals = 4,
  percent = 100,
  percentDecimals = 3,
  yearMin = 1900,
  yearMax = 9999,
  intervalCount = 1000,
  durationMinutes = 10_080,
  bodyBytes = 64 * 1024,
  /** A batch of time entries (`POST /time_entries/batch`): its entries, and its body's size. */
  batchEntries = 100,
  batchBodyBytes = 1024 * 1024,
  pageSizeDefault = 25,
  pageSizeMax = 100,
  /** Entries one invoice takes; more is a 400 naming `to` (narrow the range). */
  invoiceEntries = 2000,
  /** Lines (project × rate) of one invoice. */
  invoiceLines = 100,
  /** `project_ids` of one invoice create. */
  invoiceProjects = 50,
  /** Free-form items of one invoice, and their fields. */
  invoiceItems = 50,
  itemDescriptionLength = 500,
  itemQuantity = 1_000_000,
  /** Named taxes of one invoice (TPS and TVQ). */
  invoiceTaxes = 2,
  taxNameLength = 40,
  /** A payment's `reference`; payments of one invoice. */
  paymentReferenceLength = 200,
  invoicePayments = 100,
  memoLength = 2000,
  /** The business profile's phone and invoice footer. */
  phoneLength = 40,
  invoiceFooterLength = 2000,
  purchaseOrderLength = 100,
  /** `client_ids` of one billing run. */
  billingRunClients = 100,
}
