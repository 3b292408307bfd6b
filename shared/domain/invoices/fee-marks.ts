/**
 * The marks that keep each fee a project's billing type charges (fees.ts) on at most one non-void
 * invoice (contract, "Billing types"; docs/decisions/0029-billing-types.md).
 *
 * A fixed price, and each retainer period, has a mark in its project's fees partition once an
 * invoice charges it, naming that invoice. The mark is put in the transaction of the invoice's
 * batch that adds the fee's line, on condition that nothing charges the fee yet (or that it still
 * names the void invoice it was read with, whose release has not reached it); a void or a draft's
 * delete deletes it in a release batch, on condition that it still names that invoice. So at every
 * commit the marks naming an invoice are exactly the fee lines it charges, as its entries are
 * exactly its time lines' (lock.ts).
 */
import * as keys from '../../data/keys.ts';
import { readItems } from '../../data/batches.ts';
import { readAll } from '../../data/list.ts';
import { absent, dataOfItem, deletePart, putPart, type Condition, type TransactItem } from '../../data/writes.ts';
import { invoice } from '../../model/resources.ts';
import type { FeeLine } from './amounts.ts';

/** The attribute of a mark naming the invoice that charges it. */
const INVOICE_ID = 'invoice_id';

/** The key of a fee's mark. */
const markOf = (workspaceId: string, fee: FeeLine) =>
  fee.kind === 'fixed_price' ? keys.fixedPriceMark(workspaceId, fee.project_id) : keys.retainerMark(workspaceId, fee.project_id, fee.period_start);

const keyText = (key: { PK: unknown; SK: unknown }) => `${String(key.PK)}|${String(key.SK)}`;

/** The mark names this invoice. */
const names = (invoiceId: string): Condition => ({ expression: '#invoice_id = :holder', names: { '#invoice_id': INVOICE_ID }, values: { ':holder': invoiceId } });

/**
 * The invoices the marks of `fees` name now, by mark: one Query of each project's fees partition,
 * over the sort keys of its fees (strongly consistent).
 */
async function marksOf(workspaceId: string, fees: readonly FeeLine[]): Promise<Map<string, string>> {
  const byProject = new Map<string, string[]>();
  for (const fee of fees) byProject.set(fee.project_id, [...(byProject.get(fee.project_id) ?? []), markOf(workspaceId, fee).SK]);
  const marks = new Map<string, string>();
  await Promise.all(
    [...byProject].map(async ([projectId, sortKeys]) => {
      const sorted = sortKeys.sort();
      const range = keys.partitionRange(keys.feesPartition(workspaceId, projectId), { low: sorted[0]!, high: sorted.at(-1)! });
      for await (const mark of readAll(range)) marks.set(keyText(mark as { PK: string; SK: string }), String(mark[INVOICE_ID]));
    }),
  );
  return marks;
}

/** Of the invoices `ids`, those that exist and are not void: what their marks hold. */
async function liveInvoices(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  const items = await readItems(ids.map((id) => keys.item(workspaceId, invoice.type, id)));
  return new Set(items.filter((item) => dataOfItem(item).status !== 'void').map((item) => String(dataOfItem(item).id)));
}

/**
 * For each of `fees`, the condition on which invoice `invoiceId` may put its mark: none charges it
 * (no mark), or the void invoice its mark names still does (a release that has not reached it); or
 * undefined: a draft, open or paid invoice charges it (this one included).
 */
export async function claims(workspaceId: string, invoiceId: string, fees: readonly FeeLine[]): Promise<(Condition | undefined)[]> {
  const marks = await marksOf(workspaceId, fees);
  const live = await liveInvoices(workspaceId, [...new Set(marks.values())].filter((id) => id !== invoiceId));
  return fees.map((fee) => {
    const holder = marks.get(keyText(markOf(workspaceId, fee)));
    if (holder === undefined) return absent();
    return holder === invoiceId || live.has(holder) ? undefined : names(holder);
  });
}

/** Of `fees`, those whose marks name invoice `invoiceId` now (a release skips the others: taken over). */
export async function markedBy(workspaceId: string, invoiceId: string, fees: readonly FeeLine[]): Promise<FeeLine[]> {
  const marks = await marksOf(workspaceId, fees);
  return fees.filter((fee) => marks.get(keyText(markOf(workspaceId, fee))) === invoiceId);
}

/** The part that marks `fee` as charged by invoice `invoiceId`, on `condition` (claims). */
export const markPart = (workspaceId: string, fee: FeeLine, invoiceId: string, condition: Condition): TransactItem =>
  putPart({ ...markOf(workspaceId, fee), [INVOICE_ID]: invoiceId }, { condition });

/** The part that releases `fee` from invoice `invoiceId`: its mark deleted, on condition that it still names it. */
export const unmarkPart = (workspaceId: string, fee: FeeLine, invoiceId: string): TransactItem => deletePart(markOf(workspaceId, fee), { condition: names(invoiceId) });
