/**
 * A time entry as its item stores it (its API fields in the data map), decoded in one place: what
 * the totals count (shared/totals/totals.ts) and what an invoice selects, locks and prices
 * (shared/domain/invoices/) read of an entry. Entries stored before a field existed read as the
 * API shows them: `billable` true, `billable_rate`, `project_id` and `invoice_id` null.
 */
import { dataOfItem } from './writes.ts';

export interface StoredTimeEntry {
  id: string;
  client_id: string;
  project_id: string | null;
  /** UTC, milliseconds: its text sorts as its instant. */
  started_at: string;
  duration_minutes: number;
  billable: boolean;
  billable_rate: number | null;
  invoice_id: string | null;
  updated_at: string;
}

/** The entry a data map holds: an item's, or the one a write is about to store. */
export const storedTimeEntry = (data: Record<string, unknown>): StoredTimeEntry => ({
  id: String(data.id),
  client_id: String(data.client_id),
  project_id: (data.project_id ?? null) as string | null,
  started_at: String(data.started_at),
  duration_minutes: Number(data.duration_minutes),
  billable: data.billable !== false,
  billable_rate: (data.billable_rate ?? null) as number | null,
  invoice_id: (data.invoice_id ?? null) as string | null,
  updated_at: String(data.updated_at),
});

/** The entry an item holds. */
export const storedTimeEntryOfItem = (item: Record<string, unknown>): StoredTimeEntry => storedTimeEntry(dataOfItem(item));
