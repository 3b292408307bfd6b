/** The Timebill SDK: `import { Timebill, TimebillError, verifyWebhook } from '@timebill/sdk'`. */
export { Timebill, AutoPaginator, BillingRunCollection, Collection, CsvPaginator, InvoiceCollection, Listing, NestedCollection, NestedListing, ReadOnlyCollection, Singleton, TimeEntryCollection, etagOf, responseOf } from './client.ts';
export type { TimebillOptions, CreateOptions, WriteOptions, ListOptions, PdfOptions, CsvPage, ResponseInfo, WaitOptions } from './client.ts';
export { BillingRunTimeoutError, TimebillError, WebhookVerificationError } from './errors.ts';
export type { TimebillErrorType } from './errors.ts';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './webhooks.ts';
export type { WebhookHeaders } from './webhooks.ts';
export type * from './types.ts';
