/**
 * An invoice's release (docs/decisions/0023-invoices.md, 0029-billing-types.md): a void (open →
 * void) and a draft's DELETE free its fees' marks, then its time entries, then give its credit
 * back, batch by batch, each batch one transaction holding the invoice (on condition that this
 * request holds the work) and the marks, entries or credit ledgers it releases.
 */
import { ApiError, ERROR_TYPES, keyInUse, notFound } from '../../core/errors.ts';
import { isWellFormedId } from '../../core/ids.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE } from '../../data/table.ts';
import { storedTimeEntryOfItem } from '../../data/stored-time-entries.ts';
import { dataOfItem, ITEM_PART, matchesVersion, transact, versionOf, type TransactItem } from '../../data/writes.ts';
import { deletionRecordPut } from '../../data/deletion-records.ts';
import { removeFees, removeFromLines, type CreditLine, type FeeLine } from './amounts.ts';
import { returnCredit } from './credit.ts';
import { releaseEntryPart } from './lock.ts';
import { markedBy, unmarkPart } from './fee-marks.ts';
import { invoice } from '../../model/resources.ts';
import type { CallerContext, Deleted, IfMatch, Versioned } from '../context.ts';
import { storedField, type Invoice } from '../../model/objects.ts';
import { minorOfAmount } from '../../core/money.ts';
import { recordPart, refuseIfRecordTaken, versioned } from '../entity.ts';
import {
  BATCH_ENTRIES, draftRemoval, endLease, fitBatch, heldBy, idleAsRead, invoiceableOf, invoiceUpdate, workInUse, LEASE_MS, linesFields, linesOf, LOCKED,
  planOf, readEntries, takeOver, WORK, workOf, type Plan, type Work,
} from './common.ts';
import { commit, mustBe, mustRead, step } from './lifecycle.ts';

/** open → void; its entries released, batch by batch (a void of a void invoice still releasing resumes it). */
export async function voidInvoice(ctx: CallerContext, id: string, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  for (;;) {
    const read = await mustRead(ctx, id);
    const work = workOf(read);
    if (work?.then === 'void') return versioned(invoice, await release(ctx, await takeOverRelease(ctx, read, now), now));
    // An invoice paid at finalize, at a total of zero (no payment), may still be voided (contract, "Invoices").
    const paidAtZero = dataOfItem(read).status === 'paid' && minorOfAmount(String(dataOfItem(read).total)) === 0n;
    const item = mustBe(read, paidAtZero ? 'paid' : 'open', 'only an open invoice, or one paid at a total of zero, can be voided', expectedVersion);
    const paid = String(storedField(invoice, dataOfItem(item), 'amount_paid'));
    if (minorOfAmount(paid) > 0n) {
      throw new ApiError('invalid_state', ERROR_TYPES.invalid_state, `Invoice ${id} has payments (amount_paid ${paid}): only an invoice without payments can be voided; delete its payments first`);
    }
    const releaseWork: Work = { kind: 'release', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0, then: 'void', ...keyOf(ctx) };
    const { parts, after } = await step(ctx, item, { status: 'void', voided_at: now.toISOString() }, now, { work: releaseWork });
    if ((await commit(ctx, parts)) === undefined) return versioned(invoice, await release(ctx, after, now));
  }
}

/** DELETE of a draft: its entries released (and taken out of its lines), then the draft deleted with its guard's count. */
export async function deleteInvoice(ctx: CallerContext, id: string, expectedVersion: IfMatch, now = new Date()): Promise<Deleted> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  for (;;) {
    const read = await mustRead(ctx, id);
    const work = workOf(read);
    let item: Record<string, unknown>;
    if (work?.then === 'delete') item = await takeOverRelease(ctx, read, now);
    else if (work?.kind === 'build' && work.lease_until <= now.getTime() && matchesVersion(expectedVersion, versionOf(read))) {
      // A create that died part-way and was not retried with its key: its entries are released and the draft goes, unannounced.
      try {
        item = await takeOver(ctx, read, now, { kind: 'release', next: 0, then: 'delete', unannounced: true });
      } catch (error) {
        if (error instanceof ApiError && error.type === 'idempotency_key_in_use') continue; // taken by another request first: read again
        throw error;
      }
    } else {
      const draft = mustBe(read, 'draft', 'only a draft can be deleted (void an open invoice instead)', expectedVersion);
      const releaseWork: Work = { kind: 'release', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0, then: 'delete', announced: versionOf(draft), ...keyOf(ctx) };
      const started = { ...draft, [WORK]: releaseWork };
      const cancelled = await transact<string>({
        [ITEM_PART]: invoiceUpdate(draft, { attributes: { [WORK]: releaseWork, [REQUEST_ID_ATTRIBUTE]: ctx.requestId } }, idleAsRead(draft)),
      });
      if (cancelled) continue;
      item = started;
    }
    const released = await release(ctx, item, now, linesWithout);
    const deleted: Deleted = { object: invoice.kind, id, deleted: true };
    const cancelled = await transact<string>({
      ...draftRemoval(ctx, released, ctx.requestId),
      deletion: deletionRecordPut(ctx.workspaceId, invoice.type, id, ctx.requestId, now),
      ...recordPart(ctx, deleted),
    });
    if (!cancelled) return deleted;
    refuseIfRecordTaken(ctx, cancelled);
    throw workInUse(LEASE_MS / 1000);
  }
}

/** The release's own key, for a retry with it to be told apart from another request. */
const keyOf = (ctx: CallerContext) => (ctx.record ? { key: String(ctx.record.key.SK) } : {});

/**
 * A release left by a request that is gone is this one's now. While its holder may still be
 * running: a retry with the holder's own key is 409 idempotency_key_in_use (its reply is replayed
 * once the release ends), any other request 409 invalid_state naming the status.
 */
async function takeOverRelease(ctx: CallerContext, item: Record<string, unknown>, now: Date) {
  const work = workOf(item)!;
  const data = dataOfItem(item);
  if (work.lease_until > now.getTime()) {
    if (work.key !== undefined && work.key === keyOf(ctx).key) throw keyInUse(1, "releasing this invoice's time entries: its reply is replayed once that ends");
    throw new ApiError('invalid_state', ERROR_TYPES.invalid_state, `Invoice ${String(data.id)} is ${String(data.status)}, its time entries being released by another request: retry after the time in Retry-After`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((work.lease_until - now.getTime()) / 1000))) },
    });
  }
  return takeOver(ctx, item, now);
}

/**
 * A create's draft that charges nothing once its credit is stated (other invoices bought the
 * credit meanwhile: create.ts): its time and credit given back and the draft removed, unannounced,
 * as a delete of an abandoned build is; `closing` (the key's record) in the removal's transaction.
 */
export async function abandonDraft(ctx: CallerContext, item: Record<string, unknown>, now: Date, closing: Record<string, TransactItem>): Promise<void> {
  const work = workOf(item)!;
  let releasing = item;
  if (work.kind === 'build') {
    const turned: Work = { kind: 'release', owner: work.owner, lease_until: work.lease_until, next: 0, then: 'delete', unannounced: true };
    const cancelled = await transact<string>({ [ITEM_PART]: invoiceUpdate(item, { attributes: { [WORK]: turned } }, heldBy(work.owner)) });
    if (cancelled) throw workInUse(LEASE_MS / 1000);
    releasing = { ...item, [WORK]: turned };
  }
  const released = await release(ctx, releasing, now, linesWithout);
  const cancelled = await transact<string>({ ...draftRemoval(ctx, released, workOf(released)!.owner), ...closing });
  if (cancelled) throw workInUse(LEASE_MS / 1000);
}

/** What one release batch frees: the fees whose marks it deletes, the credit it gives back, the entries it releases, their parts, the plan positions it uses. */
interface Released {
  fees: FeeLine[];
  credits: CreditLine[];
  entries: Record<string, unknown>[];
  parts: Record<string, TransactItem>;
  count: number;
  last: boolean;
}

/**
 * Releases the invoice's plan from `work.next` on, batch by batch: first its fees (each mark that
 * still names it deleted), then its entries (each entry's `invoice_id` null, the invoiced totals
 * subtracted, `locked_count` lowered); a draft being deleted also loses them from its lines
 * (`shrink`, the delete's). A void ends by removing its work (and writing its key's record); a
 * delete answers the item for its last transaction.
 */
async function release(ctx: CallerContext, start: Record<string, unknown>, now: Date, shrink?: typeof linesWithout): Promise<Record<string, unknown>> {
  let item = start;
  const id = String(dataOfItem(item).id);
  const plan = await planOf(ctx, id);
  const covered = new Set(plan.covered);
  try {
    for (;;) {
      const work = workOf(item)!;
      const data = dataOfItem(item);
      const at = work.next - plan.fees.length;
      const step =
        at < 0 ? await feesReleased(ctx, plan, work.next, id)
        : at < plan.ids.length || plan.credit.length === 0 ? await entriesReleased(ctx, plan, work, id, now)
        : await creditReleased(ctx, plan, at - plan.ids.length, data);
      const closesVoid = step.last && work.then === 'void';
      const set = shrink && step.fees.length + step.credits.length + step.entries.length > 0 ? shrink(data, step, covered) : {};
      const nextWork = { ...work, next: work.next + step.count };
      const after = { ...item, [DATA_ATTRIBUTE]: { ...data, ...set }, [LOCKED]: Number(item[LOCKED] ?? 0) - step.entries.length, [WORK]: nextWork } as Record<string, unknown>;
      if (closesVoid) delete after[WORK];
      const parts: Record<string, TransactItem> = {
        [ITEM_PART]: invoiceUpdate(
          item,
          {
            fields: set,
            attributes: closesVoid ? {} : { [WORK]: nextWork },
            remove: closesVoid ? [WORK] : [],
            add: step.entries.length ? { [LOCKED]: -step.entries.length } : {},
          },
          heldBy(work.owner),
        ),
        ...step.parts,
        ...(closesVoid ? recordPart(ctx, versioned(invoice, after)) : {}),
      };
      const cancelled = await transact<string>(parts);
      if (cancelled) {
        refuseIfRecordTaken(ctx, cancelled);
        if (cancelled.failed(ITEM_PART)) throw workInUse(LEASE_MS / 1000);
        continue; // an entry or a fee was released (or a fee taken over) by another request meanwhile: read the batch again
      }
      item = after;
      if (step.last) return item;
    }
  } catch (error) {
    await endLease(item).catch(() => undefined);
    throw error;
  }
}

/** A batch of the plan's fees from position `next`: the marks that still name this invoice (a create may have taken a void one's over). */
async function feesReleased(ctx: CallerContext, plan: Plan, next: number, id: string): Promise<Released> {
  const chunk = plan.fees.slice(next, next + BATCH_ENTRIES);
  const fees = await markedBy(ctx.workspaceId, id, chunk);
  return {
    fees,
    credits: [],
    entries: [],
    parts: Object.fromEntries(fees.map((fee, i) => [`fee${i}`, unmarkPart(ctx.workspaceId, fee, id)])),
    count: chunk.length,
    last: next + chunk.length >= plan.fees.length && plan.ids.length === 0 && plan.credit.length === 0,
  };
}

/** A batch of the plan's CreditBased projects from position `k`: what each one's credit line took, given back to its ledger. */
async function creditReleased(ctx: CallerContext, plan: Plan, k: number, data: Record<string, unknown>): Promise<Released> {
  const chunk = new Set(plan.credit.slice(k, k + BATCH_ENTRIES).map((c) => c.project_id));
  const credits = linesOf(data).filter((line): line is CreditLine => line.kind === 'credit' && chunk.has(line.project_id));
  return { fees: [], credits, entries: [], parts: await returnCredit(ctx.workspaceId, credits), count: chunk.size, last: k + chunk.size >= plan.credit.length };
}

/** A batch of the plan's entries from `work.next`: those still naming this invoice (another request's release may have reached some). */
async function entriesReleased(ctx: CallerContext, plan: Plan, work: Work, id: string, now: Date): Promise<Released> {
  const at = work.next - plan.fees.length;
  const chunk = plan.ids.slice(at, at + BATCH_ENTRIES);
  const stored = await readEntries(ctx, chunk);
  const pick = (batchIds: readonly string[]) =>
    batchIds.flatMap((entryId) => {
      const entry = stored.get(entryId);
      return entry && storedTimeEntryOfItem(entry).invoice_id === id ? [entry] : [];
    });
  const closing = (end: boolean) => end && plan.credit.length === 0;
  const { entries, totals, count, last } = fitBatch(ctx, chunk, { next: at, total: plan.ids.length }, pick, -1n, (end) => (closing(end) && work.then === 'void' && ctx.record ? 1 : 0));
  return {
    fees: [],
    credits: [],
    entries,
    parts: { ...Object.fromEntries(entries.map((e, i) => [`entry${i}`, releaseEntryPart(ctx.workspaceId, e, id, now, ctx.requestId)])), ...totals },
    count,
    last: closing(last),
  };
}

/** A draft's lines and totals without the fees and entries its delete releases (a void keeps its lines: its bundle carries none of this). */
const linesWithout = (data: Record<string, unknown>, released: Released, covered: ReadonlySet<string>) =>
  linesFields(
    removeFromLines(removeFees(linesOf(data), released.fees, released.credits), released.entries.map((e) => invoiceableOf(storedTimeEntryOfItem(e), covered)), String(data.currency)),
    data,
  );
