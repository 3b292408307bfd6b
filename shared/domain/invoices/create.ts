/**
 * An invoice's create (contract, "Invoices"; docs/decisions/0023-invoices.md): a client's
 * uninvoiced, billable time locked into a draft (its status steps: lifecycle.ts; its release by a
 * void or a delete: release.ts; what they share: common.ts).
 *
 * A create selects the entries (reads only), writes the draft with the list of their ids, then
 * locks them in batches: each batch is one transaction holding the invoice (its lines and totals
 * with the batch's entries added, on condition that this request still holds the work) and each
 * entry (on condition that it is at the version read and on no invoice). So at every commit the
 * entries naming the invoice are exactly those its lines total. A crash leaves a draft holding a
 * prefix of the list, its `work` naming who builds it until when; a retry with the same
 * Idempotency-Key takes the work over once that lease is past and finishes the same invoice.
 * A void, and a draft's delete, release the entries in batches the same way (release.ts).
 */
import type { InferOutput } from 'valibot';
import { ApiError, ERROR_TYPES, invalidParam, serviceUnavailable, RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import * as keys from '../../data/keys.ts';
import { readSpan } from '../../data/list.ts';
import { storedTimeEntryOfItem, type StoredTimeEntry } from '../../data/stored-time-entries.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../data/table.ts';
import { absent, allOf, atVersion, counterUpdate, dataOfItem, getItem, ITEM_PART, putPart, transact, versionOf, type TransactItem } from '../../data/writes.ts';
import { addToLines, invoiceAmounts, type InvoiceLine } from './amounts.ts';
import { lockEntryPart } from './lock.ts';
import { dataOf, type Invoice } from '../../model/objects.ts';
import { CLIENT_STORED_CURRENCY, client, counterOf, invoice, project, timeEntry, type invoiceSchemas } from '../../model/resources.ts';
import { LIMITS } from '../../core/field-limits.ts';
import { dayNumberOf, startOfDay } from '../../core/calendar.ts';
import type { CallerContext, Versioned } from '../context.ts';
import { readItem, refuseIfRecordTaken, unknownReference, versioned } from '../entity.ts';
import {
  draftRemoval, endLease, ENTRIES, entryIdsOf, fitBatch, heldBy, invoiceableOf, workInUse, LEASE_MS, linesFields, LOCKED,
  readEntries, takeOver, WORK, workOf, BATCH_ENTRIES, type Work,
} from './common.ts';

type Schemas = typeof invoiceSchemas;
type CreateInput = InferOutput<Schemas['create']>;

/** Re-reads of a batch whose entries changed under it before the create answers 503. */
const BATCH_ATTEMPTS = 10;

/** The span of instants of the dates `from`..`to` (exclusive) in `timeZone`, as stored timestamps compare. */
function spanOf(timeZone: string, from: string, to: string) {
  return {
    from: new Date(startOfDay(timeZone, dayNumberOf(from))).toISOString(),
    to: new Date(startOfDay(timeZone, dayNumberOf(to))).toISOString(),
  };
}

/** Creates the draft and locks its time; a keyed retry of a create that died part-way finishes it. */
export async function createInvoice(ctx: CallerContext, input: CreateInput, now = new Date()): Promise<Versioned<Invoice>> {
  if (ctx.record) {
    const stored = await ctx.record.lookup();
    if (stored) {
      const workId = ctx.record.pendingWork(stored);
      if (workId === undefined) throw ctx.record.taken(stored);
      const resumed = await resume(ctx, workId, now);
      if (resumed) return resumed;
    }
  }
  const clientItem = await readItem(ctx, client, input.client_id);
  if (!clientItem) throw unknownReference('client_id', client);
  const currency = String(dataOfItem(clientItem).currency ?? CLIENT_STORED_CURRENCY);
  if (input.project_ids) await checkProjects(ctx, input.client_id, input.project_ids);
  const span = spanOf(input.timezone, input.from, input.to);
  const selected = await selectEntries(ctx, input, span);
  if (selected.length === 0) {
    throw nothingToInvoice(input.client_id, input.from, input.to, input.timezone, input.project_ids ? ' in those projects' : '');
  }
  const unpriced = selected.filter((e) => e.billable_rate === null);
  if (unpriced.length > 0) {
    const n = unpriced.length;
    throw new ApiError(
      'unpriced_time', ERROR_TYPES.unpriced_time,
      `${n} billable time ${n === 1 ? 'entry' : 'entries'} in the range without a billable_rate (e.g. ${unpriced[0]!.id}): give each a rate, or mark it non-billable, then create the invoice`,
    );
  }
  const lineCount = new Set(selected.map(lineKeyOf)).size;
  if (lineCount > LIMITS.invoiceLines) {
    throw invalidParam('to', `The time in the range makes ${lineCount} lines (project × rate), more than ${LIMITS.invoiceLines}: narrow the range or project_ids`);
  }

  const id = newId(invoice.idPrefix, now);
  const at = now.toISOString();
  // dataOf takes each of the invoice's fields by name (null when absent): the body's own (timezone,
  // project_ids, the rates, memo, purchase_order, due_date) and these.
  const data = dataOf(invoice, { id, workspaceId: ctx.workspaceId }, {
    ...input,
    status: 'draft',
    currency,
    period_start: input.from,
    period_end: input.to,
    lines: [],
    time_entry_count: 0,
    ...invoiceAmounts([], input.discount_rate, input.tax_rate, currency),
  }, at);
  const work: Work = { kind: 'build', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0 };
  const item = {
    ...keys.item(ctx.workspaceId, invoice.type, id),
    ...keys.indexes(invoice, ctx.workspaceId, id, data),
    [DATA_ATTRIBUTE]: data,
    [VERSION_ATTRIBUTE]: 1,
    [REQUEST_ID_ATTRIBUTE]: ctx.requestId,
    [WORK]: work,
    [LOCKED]: 0,
  };
  const cancelled = await transact<string>({
    [ITEM_PART]: putPart(item, { condition: absent() }),
    client_id: counterUpdate(keys.item(ctx.workspaceId, client.type, input.client_id), counterOf(invoice), 1),
    [ENTRIES]: putPart({ ...keys.invoiceEntries(ctx.workspaceId, id), ids: selected.map((e) => e.id) }),
    ...(ctx.record ? { record: ctx.record.pending(id) } : {}),
  });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (cancelled.failed('client_id')) throw unknownReference('client_id', client);
    throw new Error(`invoice create cancelled: ${cancelled.codes.join(',')}`);
  }
  return build(ctx, item, now);
}

/** 409 nothing_to_invoice: the client's time of the dates `from`..`to` (exclusive) in `timeZone`, and why. */
const nothingToInvoice = (clientId: string, from: string, to: string, timeZone: string, why: string) =>
  new ApiError('nothing_to_invoice', ERROR_TYPES.nothing_to_invoice, `Client ${clientId} has no uninvoiced billable time from ${from} to ${to} (${timeZone})${why}`);

/** Each of `projectIds` is a project of the client (400 naming `project_ids` otherwise). */
async function checkProjects(ctx: CallerContext, clientId: string, projectIds: readonly string[]) {
  const items = await Promise.all(projectIds.map((id) => readItem(ctx, project, id)));
  for (const [i, item] of items.entries()) {
    if (!item || dataOfItem(item).client_id !== clientId) {
      throw invalidParam('project_ids', `project_ids[${i}] (${projectIds[i]}) is not a project of client ${clientId}`);
    }
  }
}

/**
 * The entries a create takes, oldest first: billable, on no invoice, of the client (of the
 * projects), starting in the span. Read from the client's (or each project's) time-entry index,
 * within the span's sort keys.
 */
async function selectEntries(ctx: CallerContext, input: CreateInput, span: { from: string; to: string }): Promise<StoredTimeEntry[]> {
  const sources = input.project_ids ? input.project_ids.map((p) => ['project_id', p] as const) : [['client_id', input.client_id] as const];
  const selected: StoredTimeEntry[] = [];
  for (const [field, value] of sources) {
    for await (const item of readSpan(keys.spanSource(timeEntry, ctx.workspaceId, field, value, span), 1000)) {
      const entry = storedTimeEntryOfItem(item);
      if (!uninvoiced(entry, input.client_id)) continue;
      selected.push(entry);
      if (selected.length > LIMITS.invoiceEntries) {
        throw invalidParam('to', `The range holds more than ${LIMITS.invoiceEntries} billable time entries to invoice: narrow the range or project_ids`);
      }
    }
  }
  return selected.sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : 1));
}

/**
 * An entry's place, as the indexes order it (by code unit, not by a locale's collation): its start,
 * then its id (unique, so never a tie). `started_at` is stored at one length (UTC, milliseconds).
 */
const orderOf = (entry: StoredTimeEntry) => `${entry.started_at}${entry.id}`;

/**
 * A keyed retry meets its own unfinished create: answers it when done, waits while its holder
 * lives, else takes it over. Undefined when its draft is gone (a DELETE cleared the abandoned
 * build): the marker is dropped and the create starts afresh.
 */
async function resume(ctx: CallerContext, id: string, now: Date): Promise<Versioned<Invoice> | undefined> {
  const item = await getItem(keys.item(ctx.workspaceId, invoice.type, id));
  const work = item && workOf(item);
  if (!item || !work || work.kind !== 'build') {
    // Sealed meanwhile (its record replaced the marker after our read): the record says.
    const stored = await ctx.record!.lookup();
    if (stored && ctx.record!.pendingWork(stored) === undefined) throw ctx.record!.taken(stored);
    // The marker is written with the draft, so a marker without its draft is one a DELETE left.
    if (!item && stored) {
      const cancelled = await transact<string>({ record: ctx.record!.discarded(id) });
      if (!cancelled) return undefined;
    }
    throw workInUse(1);
  }
  return build(ctx, await takeOver(ctx, item, now), now);
}

/** The names of lines: a project's name, or for time without a project the client's company name; read once each. */
function describer(ctx: CallerContext, clientId: string) {
  const names = new Map<string | null, string>();
  return {
    async load(projectIds: Iterable<string | null>) {
      const missing = [...new Set(projectIds)].filter((p) => !names.has(p));
      await Promise.all(
        missing.map(async (p) => {
          const item = p === null ? await readItem(ctx, client, clientId) : await readItem(ctx, project, p);
          names.set(p, item ? String(dataOfItem(item)[p === null ? 'company_name' : 'name']) : (p ?? clientId));
        }),
      );
    },
    describe: (p: string | null) => names.get(p) ?? p ?? clientId,
  };
}

/** A line's identity (project × rate) as a key: of a line, or of an entry, whose line it is. */
const lineKeyOf = (of: { project_id: string | null; billable_rate: number | null }) => `${of.project_id}|${of.billable_rate}`;

/** Billable time of the client on no invoice: what a create selects. */
const uninvoiced = (entry: StoredTimeEntry, clientId: unknown) => entry.billable && entry.invoice_id === null && entry.client_id === clientId;

/** The entry, as stored now, still belongs on the invoice: billable, on no invoice, of its client (and projects), in its span, priced. */
function belongs(entry: StoredTimeEntry, invoiceData: Record<string, unknown>, span: { from: string; to: string }): boolean {
  const projects = invoiceData.project_ids as string[] | null;
  return (
    uninvoiced(entry, invoiceData.client_id) &&
    entry.billable_rate !== null &&
    (projects === null || (entry.project_id !== null && projects.includes(entry.project_id))) &&
    entry.started_at >= span.from &&
    entry.started_at < span.to
  );
}

/**
 * Locks the draft's selected entries from `work.next` on, batch by batch, and seals it (its work
 * removed, the key's record written) in the last batch. Answers the sealed invoice.
 */
async function build(ctx: CallerContext, start: Record<string, unknown>, now: Date): Promise<Versioned<Invoice>> {
  let item = start;
  const invoiceData = dataOfItem(item);
  const id = String(invoiceData.id);
  const span = spanOf(String(invoiceData.timezone), String(invoiceData.period_start), String(invoiceData.period_end));
  const ids = await entryIdsOf(ctx, id);
  const names = describer(ctx, String(invoiceData.client_id));
  const currency = String(invoiceData.currency);
  let attempts = 0;
  try {
    for (;;) {
      const work = workOf(item)!;
      const data = dataOfItem(item);
      let lines = data.lines as InvoiceLine[];
      const chunk = ids.slice(work.next, work.next + BATCH_ENTRIES);
      const stored = await readEntries(ctx, chunk);
      // The entries that still belong on it, as long as a new line keeps within the lines' limit.
      const pick = (batchIds: readonly string[]) => {
        const picked: Record<string, unknown>[] = [];
        const lineKeys = new Set(lines.map(lineKeyOf));
        for (const entryId of batchIds) {
          const entryItem = stored.get(entryId);
          if (!entryItem) continue;
          const entry = storedTimeEntryOfItem(entryItem);
          if (!belongs(entry, data, span)) continue;
          const lineKey = lineKeyOf(entry);
          if (!lineKeys.has(lineKey) && lineKeys.size >= LIMITS.invoiceLines) continue;
          lineKeys.add(lineKey);
          picked.push(entryItem);
        }
        return picked;
      };
      const { entries: taken, totals, count, last } = fitBatch(ctx, chunk, { next: work.next, total: ids.length }, pick, 1n, (end) => (end && ctx.record ? 1 : 0));
      if (last && Number(item[LOCKED] ?? 0) + taken.length === 0) return await discardEmpty(ctx, item);
      const takenEntries = taken.map(storedTimeEntryOfItem);
      await names.load(takenEntries.map((e) => e.project_id));
      lines = addToLines(lines, takenEntries.map(invoiceableOf), names.describe, currency);
      const fields = { ...linesFields(lines, data), ...(last ? { updated_at: new Date(Math.max(now.getTime(), Date.parse(String(data.updated_at)))).toISOString() } : {}) };
      const after: Record<string, unknown> = { ...item, [DATA_ATTRIBUTE]: { ...data, ...fields }, [VERSION_ATTRIBUTE]: versionOf(item) + 1, [LOCKED]: Number(item[LOCKED] ?? 0) + taken.length, [WORK]: { ...work, next: work.next + count } };
      if (last) delete after[WORK];
      const parts: Record<string, TransactItem> = {
        // The whole item as it stands after the batch: while this request holds the work, no other writes it.
        [ITEM_PART]: putPart(after, { condition: allOf(atVersion(versionOf(item)), heldBy(work.owner)) }),
        ...Object.fromEntries(taken.map((e, i) => [`entry${i}`, lockEntryPart(ctx.workspaceId, e, id, now, ctx.requestId)])),
        ...totals,
        ...(last && ctx.record ? { record: ctx.record.sealed(versioned(invoice, after), id) } : {}),
      };
      const cancelled = await transact<string>(parts);
      if (!cancelled) {
        item = after;
        attempts = 0;
        if (!last) continue;
        return versioned(invoice, after);
      }
      if (cancelled.failed(ITEM_PART)) throw workInUse(LEASE_MS / 1000); // another request holds the work now
      // An entry changed, or was locked by another create, since it was read: read the batch again.
      if (++attempts >= BATCH_ATTEMPTS) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'The time entries of this invoice are being changed by other requests: retry with the same Idempotency-Key after the time in Retry-After');
    }
  } catch (error) {
    await endLease(item).catch(() => undefined);
    throw error;
  }
}

/** Every entry changed or was taken by another invoice meanwhile: the draft goes, unannounced, and the create is refused. */
async function discardEmpty(ctx: CallerContext, item: Record<string, unknown>): Promise<never> {
  const data = dataOfItem(item);
  const id = String(data.id);
  const cancelled = await transact<string>({
    ...draftRemoval(ctx, item, workOf(item)!.owner),
    ...(ctx.record ? { record: ctx.record.discarded(id) } : {}),
  });
  if (cancelled) throw workInUse(LEASE_MS / 1000);
  throw nothingToInvoice(data.client_id as string, data.period_start as string, data.period_end as string, data.timezone as string, ' left: other requests changed or invoiced it meanwhile');
}
