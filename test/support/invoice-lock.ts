/**
 * Locks and releases time entries as an invoice's create, void and delete do: the parts of
 * shared/domain/invoices/lock.ts in one `transact` call, run in the test process over the shared stack's
 * table (no invoice item: these tests are of the entries' side). Call `useSharedTable` first.
 */
import { randomUUID } from 'node:crypto';
import { newId } from '../../shared/core/ids.ts';

const modules = async () => ({
  lock: await import('../../shared/domain/invoices/lock.ts'),
  writes: await import('../../shared/data/writes.ts'),
  keys: (await import('../../shared/data/keys.ts')).keys,
  totals: await import('../../shared/totals/totals.ts'),
  storedTimeEntries: await import('../../shared/data/stored-time-entries.ts'),
});

/** A well-formed invoice id that names no invoice. */
export const invoiceId = () => newId('inv_', new Date());

/**
 * Locks (`lock`) or releases the entries in one transaction, as read now; throws when it is
 * cancelled (an entry changed or locked since, or not on that invoice).
 */
async function batch(action: 'lock' | 'release', workspaceId: string, entryIds: string[], invoice: string): Promise<void> {
  const { lock, writes, keys, totals, storedTimeEntries } = await modules();
  const items = await Promise.all(entryIds.map(async (id) => (await writes.getItem(keys.item(workspaceId, 'TIME_ENTRY', id)))!));
  const now = new Date();
  const requestId = `test-${action}-${randomUUID()}`;
  const part = action === 'lock' ? lock.lockEntryPart : lock.releaseEntryPart;
  const entries = items.map((item) => ({ entry: storedTimeEntries.storedTimeEntryOfItem(item), counted: item[totals.COUNTED_ATTRIBUTE] !== undefined }));
  const cancelled = await writes.transact<string>({
    ...Object.fromEntries(items.map((item, i) => [`entry${i}`, part(workspaceId, item, invoice, now, requestId)])),
    ...lock.invoicedTotalsParts(workspaceId, entries, action === 'lock' ? 1n : -1n),
  });
  if (cancelled) throw new Error(`${action} cancelled: ${cancelled.codes.join(',')}`);
}

export const lockEntries = (workspaceId: string, entryIds: string[], invoice: string) => batch('lock', workspaceId, entryIds, invoice);
export const releaseEntries = (workspaceId: string, entryIds: string[], invoice: string) => batch('release', workspaceId, entryIds, invoice);
