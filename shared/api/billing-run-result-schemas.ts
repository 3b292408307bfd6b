/**
 * A billing run's results (contract, "Billing runs"): one row per client, its outcome, read under
 * the run with the invoices' read scope. Rows are written by the run's work (domain/billing-runs.ts),
 * never by a caller, so they are not a registry resource; the row object is in object-schemas.ts.
 */
import * as v from 'valibot';
import { listBase } from '../model/define.ts';

/** The rows' names, as a registry resource has them. */
export const BILLING_RUN_RESULTS = { kind: 'billing_run_result', tag: 'Billing runs' } as const;

const { limit, cursor } = listBase();

/** The query: a page size and a cursor. */
export const ListBillingRunResultsQuery = v.strictObject({ limit, cursor });
export type ListBillingRunResultsInput = v.InferOutput<typeof ListBillingRunResultsQuery>;

/** A row's fields, in the order the API answers them (a CSV page's header row). */
export const BILLING_RUN_RESULT_COLUMNS = ['object', 'client_id', 'outcome', 'invoice_id', 'error', 'workspace_id'] as const;

/** The results as their list function passes them to the handler frame: their names, and their query. */
export const billingRunResultSchemas = { ...BILLING_RUN_RESULTS, listQuery: ListBillingRunResultsQuery } as const;
export type BillingRunResultSchemas = typeof billingRunResultSchemas;
