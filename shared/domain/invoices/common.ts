/**
 * What an invoice's writes share (contract, "Invoices"; docs/decisions/0023-invoices.md): its
 * unfinished work (`work`: a create's locking, a void's or delete's release), the lease that names
 * who holds it, the batches that fit DynamoDB's 100 items, and the Update of the invoice item.
 * Each operation is in its own module (create.ts, lifecycle.ts, release.ts), so a function's
 * bundle holds its own operation's code and this.
 */
import { invalidParam, keyInUse } from '../../core/errors.ts';
import { readItems } from '../../data/batches.ts';
import * as keys from '../../data/keys.ts';
import { storedTimeEntryOfItem, type StoredTimeEntry } from '../../data/stored-time-entries.ts';
import { changeExpression, type ItemChange } from '../../data/update.ts';
import { allOf, atVersion, counterUpdate, dataOfItem, deletePart, getItem, ITEM_PART, transact, updatePart, versionOf, type Condition, type TransactItem } from '../../data/writes.ts';
import { invoiceAmounts, itemLineOf, type FeeLine, type GivenItem, type InvoiceableEntry, type InvoiceLine, type ItemLine, type TaxRate } from './amounts.ts';
import { invoicedTotalsParts } from './lock.ts';
import type { CreditTerms } from './fees.ts';
import { client, counterOf, invoice, project, timeEntry } from '../../model/resources.ts';
import { storedField } from '../../model/objects.ts';
import { COUNTED_ATTRIBUTE } from '../../totals/totals.ts';
import type { CallerContext } from '../context.ts';
import { readItem } from '../entity.ts';

/** Unfinished work on an invoice, beside its `data`: a create's locking, or a void's or delete's release. */
export interface Work {
  kind: 'build' | 'release';
  /** The request holding it: only its writes land (each batch is conditioned on it). */
  owner: string;
  /** Epoch ms: past it, the holder is gone (the function's timeout has passed) and another request may take over. */
  lease_until: number;
  /** Position in the invoice's plan (its fees, then its entries: planOf) where the next batch starts. */
  next: number;
  /** What a release ends in. */
  then?: 'void' | 'delete';
  /** A delete's: the version of the draft's last event (the order of `invoice.deleted`, events/build.ts). */
  announced?: number;
  /** A delete of a draft whose build was abandoned: never announced, so it goes without an event. */
  unannounced?: true;
  /** A release's: the sort key of its request's Idempotency-Key record, so that a retry with that key knows it is in use. */
  key?: string;
}

export const WORK = 'work';
/** Entries naming the invoice: its delete waits for 0. */
export const LOCKED = 'locked_count';
/**
 * How long work is held: past the longest a request runs (API Gateway's 29 s), so a lease past
 * means its holder is gone. Tests shorten it (INVOICE_WORK_LEASE_MS) to take work over.
 */
export const LEASE_MS = Number(process.env.INVOICE_WORK_LEASE_MS ?? 35_000);
/**
 * Entries per batch, at most: the invoice, the entries, their totals items and the record fit
 * DynamoDB's 100 items. Tests that crash a create between batches make them small (INVOICE_BATCH_ENTRIES).
 */
export const BATCH_ENTRIES = Math.min(90, Math.max(1, Number(process.env.INVOICE_BATCH_ENTRIES ?? 90)));
const TRANSACTION_ITEMS = 100;

export const ENTRIES = 'entries';

export const workOf = (item: Record<string, unknown>) => item[WORK] as Work | undefined;

/** 409: another request holds the invoice's work, for `seconds` more at most. */
export const workInUse = (seconds: number) => keyInUse(seconds, 'creating this invoice: retry after the time in Retry-After');

/**
 * This request becomes the holder of the item's work, once its lease is past (409 with the
 * seconds left otherwise); `turn` makes it other work (an abandoned build a delete's release).
 */
export async function takeOver(ctx: CallerContext, item: Record<string, unknown>, now: Date, turn?: Omit<Work, 'owner' | 'lease_until'>): Promise<Record<string, unknown>> {
  const work = workOf(item)!;
  if (work.lease_until > now.getTime()) throw workInUse((work.lease_until - now.getTime()) / 1000);
  const next: Work = { ...(turn ?? work), owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS };
  const leaseAsRead = { expression: '#work.#lease = :lease', names: { '#work': WORK, '#lease': 'lease_until' }, values: { ':lease': work.lease_until } };
  const cancelled = await transact<string>({
    [ITEM_PART]: updatePart(keys.keyOfItem(item), changeExpression({ attributes: { [WORK]: next } }), { condition: allOf(heldBy(work.owner), leaseAsRead) }),
  });
  if (cancelled) throw workInUse(LEASE_MS / 1000);
  return { ...item, [WORK]: next };
}

/** The entries of `ids` as stored now (strongly consistent), by id. */
export async function readEntries(ctx: CallerContext, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const items = await readItems(ids.map((id) => keys.item(ctx.workspaceId, timeEntry.type, id)));
  return new Map(items.map((item) => [storedTimeEntryOfItem(item).id, item]));
}

/** What a line takes of an entry: priced, as every entry an invoice selects is unless its project covers it (create.ts, `belongs`). */
export const invoiceableOf = (entry: StoredTimeEntry, covered: ReadonlySet<string>): InvoiceableEntry => ({
  id: entry.id,
  project_id: entry.project_id,
  billable_rate: entry.billable_rate,
  duration_minutes: entry.duration_minutes,
  covered: entry.project_id !== null && covered.has(entry.project_id),
});

/** The invoice's lines as stored, read as the API reads them (lines stored before kinds are time lines: objects.ts). */
export const linesOf = (data: Record<string, unknown>) => storedField(invoice, data, 'lines') as InvoiceLine[];

/** The invoice's taxes as stored, their names and rates (those stored before named taxes: objects.ts). */
export const taxesOf = (data: Record<string, unknown>): TaxRate[] => (storedField(invoice, data, 'taxes') as TaxRate[]).map(({ name, rate }) => ({ name, rate }));

/** The invoice's fields that its lines decide. */
export function linesFields(lines: InvoiceLine[], data: Record<string, unknown>) {
  return {
    lines,
    time_entry_count: lines.reduce((n, line) => n + (line.kind === 'time' ? line.time_entry_count : 0), 0),
    ...invoiceAmounts(lines, Number(data.discount_rate), taxesOf(data), String(data.currency)),
  };
}

/** An Update of the invoice, on `condition` (a failure hands back the invoice as it is). */
export const invoiceUpdate = (item: Record<string, unknown>, change: ItemChange, condition: Condition): TransactItem =>
  updatePart(keys.keyOfItem(item), changeExpression(change), { condition, returnItemOnFailure: true });

/** The invoice is as it was read (its version), and no request holds work on it. */
export const idleAsRead = (item: Record<string, unknown>): Condition =>
  allOf(atVersion(versionOf(item)), { expression: 'attribute_not_exists(#work)', names: { '#work': WORK }, values: {} });

/** The request `owner` still holds the invoice's work. */
export const heldBy = (owner: string): Condition => ({ expression: '#work.#owner = :owner', names: { '#work': WORK, '#owner': 'owner' }, values: { ':owner': owner } });

/**
 * What the invoice's create selected (its entry list, keys.invoiceEntries), in lock order: the
 * fees (positions 0 to fees.length − 1 of `work.next`), then the entries (`ids`): the first
 * `charging` of time and materials, then the time its `covered` projects cover; then its
 * CreditBased projects (`credit`), whose lines are stated once their time is locked.
 */
export interface Plan {
  fees: FeeLine[];
  ids: string[];
  charging: number;
  covered: string[];
  credit: CreditTerms[];
}

export async function planOf(ctx: CallerContext, invoiceId: string): Promise<Plan> {
  const list = await getItem(keys.invoiceEntries(ctx.workspaceId, invoiceId));
  const ids = (list?.ids ?? []) as string[];
  // A list written before billing types (decision 0029) holds entries alone, all of time and materials.
  return {
    fees: (list?.fees ?? []) as FeeLine[],
    ids,
    charging: Number(list?.charging ?? ids.length),
    covered: (list?.covered ?? []) as string[],
    credit: (list?.credit ?? []) as CreditTerms[],
  };
}

/** How many of `parts` a transaction of this batch holds. */
const sizeOf = (n: number, totals: number, closing: number) => 1 + n + totals + closing;

/** A batch: the entries its transaction changes, their invoiced totals, how many list positions it uses, and whether it ends the list. */
interface Batch {
  entries: Record<string, unknown>[];
  totals: Record<string, TransactItem>;
  count: number;
  last: boolean;
}

/**
 * The longest start of `chunk` (list positions from `next` of `total`) whose transaction fits in
 * DynamoDB's 100 items: the invoice, the entries `pick` takes from it, their totals items, and the
 * closing writes (`closing(last)`: the key's record).
 */
export function fitBatch(
  ctx: CallerContext,
  chunk: readonly string[],
  position: { next: number; total: number },
  pick: (ids: readonly string[]) => Record<string, unknown>[],
  sign: 1n | -1n,
  closing: (last: boolean) => number,
): Batch {
  let count = chunk.length;
  for (;;) {
    const last = position.next + count >= position.total;
    const entries = pick(chunk.slice(0, count));
    const totals = invoicedTotalsParts(ctx.workspaceId, entries.map((e) => ({ entry: storedTimeEntryOfItem(e), counted: sign < 0n || e[COUNTED_ATTRIBUTE] !== undefined })), sign);
    const size = sizeOf(entries.length, Object.keys(totals).length, closing(last));
    if (size <= TRANSACTION_ITEMS) return { entries, totals, count, last };
    count = Math.max(1, count - Math.ceil((size - TRANSACTION_ITEMS) / 2));
  }
}

/**
 * A failed request gives its work up at once (best effort), so that a retry takes it over without
 * waiting for the lease. Only the lease: the failed write may have landed (its response lost), and
 * its `next` must stand.
 */
export async function endLease(item: Record<string, unknown>) {
  const work = workOf(item);
  if (!work) return;
  const leaseEnded = { expression: 'SET #work.#lease = :zero', names: { '#work': WORK, '#lease': 'lease_until' }, values: { ':zero': 0 } };
  await transact<string>({ [ITEM_PART]: updatePart(keys.keyOfItem(item), leaseEnded, { condition: heldBy(work.owner) }) });
}

/**
 * The writes that remove a draft holding no entry (on condition that `owner` holds its work): the
 * invoice, its count on the client (the client's delete guard) and its entry list.
 */
export function draftRemoval(ctx: CallerContext, item: Record<string, unknown>, owner: string): Record<string, TransactItem> {
  const data = dataOfItem(item);
  const holdsNoEntry = { expression: '#locked = :zero', names: { '#locked': LOCKED }, values: { ':zero': 0 } };
  return {
    [ITEM_PART]: deletePart(keys.keyOfItem(item), { condition: allOf(holdsNoEntry, heldBy(owner)) }),
    client_id: counterUpdate(keys.item(ctx.workspaceId, client.type, String(data.client_id)), counterOf(invoice), -1),
    [ENTRIES]: deletePart(keys.invoiceEntries(ctx.workspaceId, String(data.id))),
  };
}

/** The lines of `items` (a create's or a PATCH's), each project one of the client's (400 naming `items[i].project_id` otherwise). */
export async function itemLines(ctx: CallerContext, clientId: string, items: readonly GivenItem[], currency: string): Promise<ItemLine[]> {
  const projectIds = [...new Set(items.flatMap((item) => (item.project_id === undefined ? [] : [item.project_id])))];
  const read = await Promise.all(projectIds.map((id) => readItem(ctx, project, id)));
  const owners = new Map(projectIds.map((id, i) => [id, read[i] && dataOfItem(read[i]!).client_id]));
  items.forEach((item, i) => {
    if (item.project_id !== undefined && owners.get(item.project_id) !== clientId) {
      throw invalidParam(`items[${i}].project_id`, `items[${i}].project_id (${item.project_id}) is not a project of client ${clientId}`);
    }
  });
  return items.map((item) => itemLineOf(item, currency));
}
