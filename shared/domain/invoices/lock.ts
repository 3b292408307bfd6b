/**
 * The time-entry side of an invoice (docs/decisions/0023-invoices.md): pure builders of the
 * transaction parts that lock entries into an invoice and release them, and of the invoiced
 * totals they move. An invoice's create, void and delete put them in their batches' transactions
 * (beside the invoice's own update), so that the entries naming an invoice and its lines change
 * together. Only these write a time entry's `invoice_id`, its GSI4 keys and the invoiced levels
 * of the totals (CLIENT_INVOICED, PROJECT_INVOICED); no request path of the time entries imports
 * this module.
 */
import * as keys from '../../data/keys.ts';
import { invoicedLevel } from '../../data/keys.ts';
import { storedTimeEntryOfItem, type StoredTimeEntry } from '../../data/stored-time-entries.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../data/table.ts';
import { allOf, atVersion, dataOfItem, exists, updatePart, versionOf, type TransactItem } from '../../data/writes.ts';
import { NOT_INVOICED, timeEntry } from '../../model/resources.ts';
import { addEntry, COUNTED_ATTRIBUTE, deltaParts, type CountedEntry, type TotalsDeltas } from '../../totals/totals.ts';

/** The invoiced levels of the totals: an entry on an invoice counts in these besides its base ones. */
export const INVOICED_LEVELS = [invoicedLevel('CLIENT'), invoicedLevel('PROJECT')] as const;

/** The field of a time entry naming its invoice, in `data`. */
export const INVOICE_ID_FIELD = 'invoice_id';

/**
 * The index whose partition is an invoice's entries (declared in the registry: `partition:
 * ['invoice_id']`). Its sort key is the one GSI1 to GSI4 share, which every entry holds (GSI1
 * lists them all): a lock sets its partition key alone, and a release removes it alone.
 */
const INVOICE_INDEX = 'GSI4';

/** The prefix of the invoiced totals' part names (`invoiced0`, `invoiced1`...): apart from `totals<n>`. */
export const INVOICED_PART_PREFIX = 'invoiced';

/** `updated_at` of the lock or release: now, or past the stored one when it comes from a faster clock. */
const updatedAt = (entry: StoredTimeEntry, now: Date) => new Date(Math.max(now.getTime(), Date.parse(entry.updated_at) + 1)).toISOString();

/**
 * Locks the entry (the item as readItem read it) into the invoice: `invoice_id` set, a new version
 * (its `time_entry.updated` event shows `previous_attributes.invoice_id: null`), `updated_at`, the
 * request's id, its GSI4 partition key, and `counted` (an entry not counted before is counted by the
 * same transaction: invoicedTotalsParts with `counted: false`). On condition that the entry exists at
 * the version read and names no invoice: a change or a lock since cancels the transaction.
 */
export function lockEntryPart(workspaceId: string, stored: Record<string, unknown>, invoiceId: string, now: Date, requestId: string): TransactItem {
  const entry = storedTimeEntryOfItem(stored);
  const version = versionOf(stored);
  const index = keys.indexes(timeEntry, workspaceId, entry.id, { ...dataOfItem(stored), [INVOICE_ID_FIELD]: invoiceId });
  return updatePart(
    keys.item(workspaceId, timeEntry.type, entry.id),
    {
      expression: 'SET #data.#invoice_id = :invoice, #data.#updated_at = :updated, #version = :next, #request_id = :request, #counted = :one, #index_pk = :index_pk',
      names: {
        '#data': DATA_ATTRIBUTE,
        '#invoice_id': INVOICE_ID_FIELD,
        '#updated_at': 'updated_at',
        '#version': VERSION_ATTRIBUTE,
        '#request_id': REQUEST_ID_ATTRIBUTE,
        '#counted': COUNTED_ATTRIBUTE,
        '#index_pk': `${INVOICE_INDEX}PK`,
      },
      values: { ':invoice': invoiceId, ':updated': updatedAt(entry, now), ':next': version + 1, ':request': requestId, ':one': 1, ':index_pk': index[`${INVOICE_INDEX}PK`] },
    },
    { condition: allOf(exists(), atVersion(version), NOT_INVOICED) },
  );
}

/**
 * Releases the entry from the invoice (a deleted draft's or a void invoice's): `invoice_id` null,
 * a new version, `updated_at`, the request's id, its GSI4 partition key removed. On condition that it still
 * names this invoice (nothing else changes a locked entry): a release that already landed cancels.
 */
export function releaseEntryPart(workspaceId: string, stored: Record<string, unknown>, invoiceId: string, now: Date, requestId: string): TransactItem {
  const entry = storedTimeEntryOfItem(stored);
  const names = { '#data': DATA_ATTRIBUTE, '#invoice_id': INVOICE_ID_FIELD };
  return updatePart(
    keys.item(workspaceId, timeEntry.type, entry.id),
    {
      expression: 'SET #data.#invoice_id = :none, #data.#updated_at = :updated, #version = #version + :one, #request_id = :request REMOVE #index_pk',
      names: { ...names, '#updated_at': 'updated_at', '#version': VERSION_ATTRIBUTE, '#request_id': REQUEST_ID_ATTRIBUTE, '#index_pk': `${INVOICE_INDEX}PK` },
      values: { ':none': null, ':updated': updatedAt(entry, now), ':one': 1, ':request': requestId },
    },
    { condition: { expression: '#data.#invoice_id = :invoice', names, values: { ':invoice': invoiceId } } },
  );
}

/**
 * The invoiced totals a batch moves: its entries added (`sign` 1n, a lock) to or subtracted (-1n,
 * a release) from the invoiced levels, one `ADD` per totals item however many entries fall on it
 * (a transaction may touch an item once), named `invoiced0`, `invoiced1`... A locked entry not yet
 * `counted` (stored before the totals, decision 0019) is also added to the base levels: the lock
 * counts it, as any write of it does. Each entry as it is locked (its values at the version read).
 */
export function invoicedTotalsParts(workspaceId: string, entries: { entry: CountedEntry; counted: boolean }[], sign: 1n | -1n): Record<string, TransactItem> {
  const deltas: TotalsDeltas = new Map();
  for (const { entry, counted } of entries) {
    addEntry(deltas, workspaceId, entry, sign, INVOICED_LEVELS);
    if (sign === 1n && !counted) addEntry(deltas, workspaceId, entry, 1n);
  }
  return deltaParts(deltas, INVOICED_PART_PREFIX);
}
