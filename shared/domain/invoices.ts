/**
 * Invoices (contract, "Invoices"; docs/decisions/0023-invoices.md): a client's uninvoiced,
 * billable time locked into a draft, then finalized, paid or voided.
 *
 * A create selects the entries (reads only), writes the draft with the list of their ids, then
 * locks them in batches: each batch is one transaction holding the invoice (its lines and totals
 * with the batch's entries added, on condition that this request still holds the work) and each
 * entry (on condition that it is at the version read and on no invoice). So at every commit the
 * entries naming the invoice are exactly those its lines total. A crash leaves a draft holding a
 * prefix of the list, its `work` naming who builds it until when; a retry with the same
 * Idempotency-Key takes the work over once that lease is past and finishes the same invoice.
 * A void, and a draft's delete, release the entries in batches the same way.
 */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { InferOutput } from 'valibot';
import { ApiError, invalidParam, notFound, preconditionFailed, serviceUnavailable, RETRY_AFTER_SECONDS } from '../errors.ts';
import { isWellFormedId, newId } from '../ids.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { keys, listSource } from '../data/keys.ts';
import { pageQueryParams } from '../data/list.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { counterUpdate, getItem, matchesVersion, transact, versionOf, type TransactItem } from '../data/writes.ts';
import { deletionRecordPut } from '../events/deletions.ts';
import { addToLines, invoiceAmounts, removeFromLines, type InvoiceableEntry, type InvoiceLine } from '../invoices/amounts.ts';
import { invoicedTotalsParts, lockEntryPart, releaseEntryPart } from '../invoices/lock.ts';
import { dataOf, objectOf, type Invoice } from '../resources/objects.ts';
import { client, counterOf, invoice, project, timeEntry, type invoiceSchemas } from '../resources/registry.ts';
import { INVOICE_LIMITS, type InvoiceStatus } from '../schemas/invoices.ts';
import { dateRangeErrors } from '../schemas/dates.ts';
import { dateOfDayNumber, dayNumberOf, offsetAt, startOfDay } from '../totals/calendar.ts';
import { COUNTED_ATTRIBUTE, countedOf } from '../totals/totals.ts';
import type { CallerContext, Deleted, IfMatch, Versioned } from './context.ts';
import { readItem, recordPart, refuseIfRecordTaken, REQUEST_ID_ATTRIBUTE, unchanged, unknownReference } from './entity.ts';

type Schemas = typeof invoiceSchemas;
type CreateInput = InferOutput<Schemas['create']>;
type UpdateInput = InferOutput<Schemas['update']>;

/** Unfinished work on an invoice, beside its `data`: a create's locking, or a void's or delete's release. */
interface Work {
  kind: 'build' | 'release';
  /** The request holding it: only its writes land (each batch is conditioned on it). */
  owner: string;
  /** Epoch ms: past it, the holder is gone (the function's timeout has passed) and another request may take over. */
  lease_until: number;
  /** Position in the invoice's entry list where the next batch starts. */
  next: number;
  /** What a release ends in. */
  then?: 'void' | 'delete';
  /** A delete's: the version of the draft's last event (the order of `invoice.deleted`, events/build.ts). */
  announced?: number;
  /** A delete of a draft whose build was abandoned: never announced, so it goes without an event. */
  unannounced?: true;
}

const WORK = 'work';
/** Entries naming the invoice: its delete waits for 0. */
const LOCKED = 'locked_count';
/**
 * How long work is held: past the longest a request runs (API Gateway's 29 s), so a lease past
 * means its holder is gone. Tests shorten it (INVOICE_WORK_LEASE_MS) to take work over.
 */
const LEASE_MS = Number(process.env.INVOICE_WORK_LEASE_MS ?? 35_000);
/**
 * Entries per batch, at most: the invoice, the entries, their totals items and the record fit
 * DynamoDB's 100 items. Tests that crash a create between batches make them small (INVOICE_BATCH_ENTRIES).
 */
const BATCH_ENTRIES = Math.min(90, Math.max(1, Number(process.env.INVOICE_BATCH_ENTRIES ?? 90)));
const TRANSACTION_ITEMS = 100;
/** Re-reads of a batch whose entries changed under it before the create answers 503. */
const BATCH_ATTEMPTS = 10;
/** Rounds of a finalize that lost the number to another finalize. */
const FINALIZE_ATTEMPTS = 20;
const DUE_DAYS = 30;

const ITEM = 'item';
const COUNTER = 'counter';
const ENTRIES = 'entries';

const invalidState = (id: string, status: string, wanted: string) =>
  new ApiError('invalid_state', `Invoice ${id} is ${status}: ${wanted}`);

const dataOfItem = (item: Record<string, unknown>) => item[DATA_ATTRIBUTE] as Record<string, unknown>;
const workOf = (item: Record<string, unknown>) => item[WORK] as Work | undefined;
const versioned = (item: Record<string, unknown>): Versioned<Invoice> => ({ resource: objectOf(invoice, item), version: versionOf(item) });

/** The span of instants of the dates `from`..`to` (exclusive) in `timeZone`, as stored timestamps compare. */
function spanOf(timeZone: string, from: string, to: string) {
  return {
    from: new Date(startOfDay(timeZone, dayNumberOf(from))).toISOString(),
    to: new Date(startOfDay(timeZone, dayNumberOf(to))).toISOString(),
  };
}

/** Today's date in `timeZone`. */
const todayIn = (timeZone: string, now: Date) => new Date(now.getTime() + offsetAt(timeZone, now.getTime())).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// Create

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
  const [rangeError] = dateRangeErrors(input);
  if (rangeError) throw invalidParam(rangeError.param, rangeError.message);
  const clientItem = await readItem(ctx, client, input.client_id);
  if (!clientItem) throw unknownReference('client_id', client);
  const theClient = objectOf(client, clientItem);
  if (input.project_ids) await checkProjects(ctx, input.client_id, input.project_ids);
  const span = spanOf(input.timezone, input.from, input.to);
  const selected = await selectEntries(ctx, input, span);
  if (selected.length === 0) {
    throw new ApiError('nothing_to_invoice', `Client ${input.client_id} has no billable time on no invoice from ${input.from} to ${input.to} (${input.timezone})${input.project_ids ? ' in those projects' : ''}`);
  }
  const unpriced = selected.filter((e) => dataOfItem(e).billable_rate == null);
  if (unpriced.length > 0) {
    const n = unpriced.length;
    throw new ApiError(
      'unpriced_time',
      `${n} billable time ${n === 1 ? 'entry' : 'entries'} in the range ${n === 1 ? 'has' : 'have'} no billable_rate (e.g. ${String(dataOfItem(unpriced[0]!).id)}): set a rate on ${n === 1 ? 'it' : 'them'}, or mark ${n === 1 ? 'it' : 'them'} non-billable, then create the invoice`,
    );
  }
  const lineCount = new Set(selected.map((e) => `${String(dataOfItem(e).project_id)}|${String(dataOfItem(e).billable_rate)}`)).size;
  if (lineCount > INVOICE_LIMITS.lines) {
    throw invalidParam('to', `The time in the range makes ${lineCount} lines (project × rate), more than ${INVOICE_LIMITS.lines}: narrow the range or project_ids`);
  }

  const id = newId(invoice.idPrefix, now);
  const at = now.toISOString();
  const discountRate = input.discount_rate;
  const taxRate = input.tax_rate;
  const data = dataOf(invoice, { id, workspaceId: ctx.workspaceId }, {
    client_id: input.client_id,
    status: 'draft',
    currency: theClient.currency,
    timezone: input.timezone,
    period_start: input.from,
    period_end: input.to,
    project_ids: input.project_ids ?? null,
    lines: [],
    time_entry_count: 0,
    ...invoiceAmounts([], discountRate, taxRate, theClient.currency),
    discount_rate: discountRate,
    tax_rate: taxRate,
    memo: input.memo ?? null,
    purchase_order: input.purchase_order ?? null,
    due_date: input.due_date ?? null,
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
    [ITEM]: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    client_id: counterUpdate(keys.item(ctx.workspaceId, client.type, input.client_id), counterOf(invoice), 1),
    [ENTRIES]: { Put: { TableName: tableName(), Item: { ...keys.invoiceEntries(ctx.workspaceId, id), ids: selected.map((e) => String(dataOfItem(e).id)) } } },
    ...(ctx.record ? { record: ctx.record.pending(id) } : {}),
  });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (cancelled.failed('client_id')) throw unknownReference('client_id', client);
    throw new Error(`invoice create cancelled: ${cancelled.codes.join(',')}`);
  }
  return build(ctx, item, now);
}

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
async function selectEntries(ctx: CallerContext, input: CreateInput, span: { from: string; to: string }): Promise<Record<string, unknown>[]> {
  const filters = input.project_ids ? input.project_ids.map((p) => ({ project_id: p })) : [{ client_id: input.client_id }];
  const selected: Record<string, unknown>[] = [];
  for (const filter of filters) {
    const source = listSource(timeEntry, ctx.workspaceId, filter, span);
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await dynamo().send(new QueryCommand(pageQueryParams({ source, workspaceId: ctx.workspaceId, limit: 0, after: undefined, ascending: true }, 1000, startKey)));
      for (const item of out.Items ?? []) {
        const data = dataOfItem(item);
        if (data.billable === false || data.invoice_id != null || data.client_id !== input.client_id) continue;
        selected.push(item);
        if (selected.length > INVOICE_LIMITS.entries) {
          throw invalidParam('to', `The range holds more than ${INVOICE_LIMITS.entries} billable time entries to invoice: narrow the range or project_ids`);
        }
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
  }
  return selected.sort((a, b) => compareEntries(dataOfItem(a), dataOfItem(b)));
}

const compareEntries = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.started_at).localeCompare(String(b.started_at)) || String(a.id).localeCompare(String(b.id));

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
      const cancelled = await transact<string>({ record: ctx.record!.discard(id) });
      if (!cancelled) return undefined;
    }
    throw keyInUse(1);
  }
  return build(ctx, await takeOver(ctx, item, now), now);
}

const keyInUse = (seconds: number) =>
  new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still creating this invoice: retry after the time in Retry-After', {
    param: 'Idempotency-Key',
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) },
  });

/**
 * This request becomes the holder of the item's work, once its lease is past (409 with the
 * seconds left otherwise); `turn` makes it other work (an abandoned build a delete's release).
 */
async function takeOver(ctx: CallerContext, item: Record<string, unknown>, now: Date, turn?: Omit<Work, 'owner' | 'lease_until'>): Promise<Record<string, unknown>> {
  const work = workOf(item)!;
  if (work.lease_until > now.getTime()) throw keyInUse((work.lease_until - now.getTime()) / 1000);
  const next: Work = { ...(turn ?? work), owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS };
  const cancelled = await transact<string>({
    [ITEM]: {
      Update: {
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET #work = :work',
        ConditionExpression: '#work.#owner = :owner AND #work.#lease = :lease',
        ExpressionAttributeNames: { '#work': WORK, '#owner': 'owner', '#lease': 'lease_until' },
        ExpressionAttributeValues: { ':work': next, ':owner': work.owner, ':lease': work.lease_until },
      },
    },
  });
  if (cancelled) throw keyInUse(LEASE_MS / 1000);
  return { ...item, [WORK]: next };
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

/** The entries of `ids` as stored now (strongly consistent), by id. */
async function readEntries(ctx: CallerContext, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  let keysLeft: Record<string, unknown>[] = ids.map((id) => ({ ...keys.item(ctx.workspaceId, timeEntry.type, id) }));
  for (let round = 0; keysLeft.length > 0; round++) {
    if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
    const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keysLeft, ConsistentRead: true } } }));
    for (const item of out.Responses?.[tableName()] ?? []) found.set(String(dataOfItem(item).id), item);
    keysLeft = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, unknown>[];
    if (round > 8 && keysLeft.length > 0) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy);
  }
  return found;
}

const invoiceableOf = (data: Record<string, unknown>): InvoiceableEntry => ({
  id: String(data.id),
  project_id: (data.project_id ?? null) as string | null,
  billable_rate: Number(data.billable_rate),
  duration_minutes: Number(data.duration_minutes),
});

/** The entry, as stored now, still belongs on the invoice: billable, on no invoice, of its client (and projects), in its span, priced. */
function belongs(data: Record<string, unknown>, invoiceData: Record<string, unknown>, span: { from: string; to: string }): boolean {
  const projects = invoiceData.project_ids as string[] | null;
  const at = String(data.started_at);
  return (
    data.billable !== false &&
    data.invoice_id == null &&
    data.billable_rate != null &&
    data.client_id === invoiceData.client_id &&
    (projects === null || projects.includes(String(data.project_id))) &&
    at >= span.from &&
    at < span.to
  );
}

/** The invoice's fields that its lines decide. */
function linesFields(lines: InvoiceLine[], data: Record<string, unknown>) {
  return {
    lines,
    time_entry_count: lines.reduce((n, line) => n + line.time_entry_count, 0),
    ...invoiceAmounts(lines, Number(data.discount_rate), Number(data.tax_rate), String(data.currency)),
  };
}

/** An Update of the invoice: `set` data fields, other attributes, on condition that `owner` still holds its work (and the version read, when it changes). */
function invoiceUpdate(
  item: Record<string, unknown>,
  change: { set?: Record<string, unknown>; attributes?: Record<string, unknown>; remove?: readonly string[]; add?: Record<string, number>; bumpVersion: boolean; condition: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> } },
): TransactItem {
  const names: Record<string, string> = { ...change.condition.names };
  const values: Record<string, unknown> = { ...change.condition.values };
  const sets: string[] = [];
  for (const [i, [field, value]] of Object.entries(change.set ?? {}).entries()) {
    names[`#f${i}`] = field;
    values[`:f${i}`] = value;
    sets.push(`#data.#f${i} = :f${i}`);
  }
  for (const [i, [name, value]] of Object.entries(change.attributes ?? {}).entries()) {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    sets.push(`#a${i} = :a${i}`);
  }
  if (change.bumpVersion) {
    sets.push('#version = #version + :one');
    values[':one'] = 1;
  }
  const adds = Object.entries(change.add ?? {}).map(([name, delta], i) => {
    names[`#n${i}`] = name;
    values[`:n${i}`] = delta;
    return `#n${i} :n${i}`;
  });
  const removes = (change.remove ?? []).map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  const expression = [sets.length ? `SET ${sets.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
  // Only the names an expression uses (DynamoDB refuses unused ones).
  for (const [name, attribute] of [['#data', DATA_ATTRIBUTE], ['#version', VERSION_ATTRIBUTE]] as const) {
    if (`${expression} ${change.condition.expression}`.includes(name)) names[name] = attribute;
  }
  return {
    Update: {
      TableName: tableName(),
      Key: { PK: item.PK, SK: item.SK },
      UpdateExpression: expression,
      ConditionExpression: change.condition.expression,
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

const heldBy = (owner: string) => ({ expression: '#work.#owner = :owner', names: { '#work': WORK, '#owner': 'owner' }, values: { ':owner': owner } });

/** The entry ids the invoice's create selected, in lock order. */
async function entryIdsOf(ctx: CallerContext, invoiceId: string): Promise<string[]> {
  const list = await getItem(keys.invoiceEntries(ctx.workspaceId, invoiceId));
  return (list?.ids ?? []) as string[];
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
function fitBatch(
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
    const totals = invoicedTotalsParts(ctx.workspaceId, entries.map((e) => ({ entry: countedOf(dataOfItem(e)), counted: sign < 0n || e[COUNTED_ATTRIBUTE] !== undefined })), sign);
    const size = sizeOf(entries.length, Object.keys(totals).length, closing(last));
    if (size <= TRANSACTION_ITEMS) return { entries, totals, count, last };
    count = Math.max(1, count - Math.ceil((size - TRANSACTION_ITEMS) / 2));
  }
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
        const lineKeys = new Set(lines.map((l) => `${String(l.project_id)}|${l.billable_rate}`));
        for (const entryId of batchIds) {
          const entry = stored.get(entryId);
          if (!entry || !belongs(dataOfItem(entry), data, span)) continue;
          const lineKey = `${String(dataOfItem(entry).project_id ?? null)}|${String(dataOfItem(entry).billable_rate)}`;
          if (!lineKeys.has(lineKey) && lineKeys.size >= INVOICE_LIMITS.lines) continue;
          lineKeys.add(lineKey);
          picked.push(entry);
        }
        return picked;
      };
      const { entries: taken, totals, count, last } = fitBatch(ctx, chunk, { next: work.next, total: ids.length }, pick, 1n, (end) => (end && ctx.record ? 1 : 0));
      if (last && Number(item[LOCKED] ?? 0) + taken.length === 0) return await discardEmpty(ctx, item, input(invoiceData));
      await names.load(taken.map((e) => (dataOfItem(e).project_id ?? null) as string | null));
      lines = addToLines(lines, taken.map((e) => invoiceableOf(dataOfItem(e))), names.describe, currency);
      const fields = { ...linesFields(lines, data), ...(last ? { updated_at: new Date(Math.max(now.getTime(), Date.parse(String(data.updated_at)))).toISOString() } : {}) };
      const after = { ...item, [DATA_ATTRIBUTE]: { ...data, ...fields }, [VERSION_ATTRIBUTE]: versionOf(item) + 1 } as Record<string, unknown>;
      const nextWork = { ...work, next: work.next + count };
      if (last) delete after[WORK];
      else after[WORK] = nextWork;
      after[LOCKED] = Number(item[LOCKED] ?? 0) + taken.length;
      const parts: Record<string, TransactItem> = {
        [ITEM]: invoiceUpdate(item, {
          set: fields,
          attributes: last ? {} : { [WORK]: nextWork },
          remove: last ? [WORK] : [],
          add: taken.length ? { [LOCKED]: taken.length } : {},
          bumpVersion: true,
          condition: { expression: `#version = :read AND ${heldBy(work.owner).expression}`, names: heldBy(work.owner).names, values: { ...heldBy(work.owner).values, ':read': versionOf(item) } },
        }),
        ...Object.fromEntries(taken.map((e, i) => [`entry${i}`, lockEntryPart(ctx.workspaceId, e, id, now, ctx.requestId)])),
        ...totals,
        ...(last && ctx.record ? { record: ctx.record.seal(versioned(after), id) } : {}),
      };
      const cancelled = await transact<string>(parts);
      if (!cancelled) {
        item = after;
        attempts = 0;
        if (!last) continue;
        return versioned(after);
      }
      if (cancelled.failed(ITEM)) throw keyInUse(LEASE_MS / 1000); // another request holds the work now
      // An entry changed, or was locked by another create, since it was read: read the batch again.
      if (++attempts >= BATCH_ATTEMPTS) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'The time entries of this invoice are being changed by other requests: retry with the same Idempotency-Key after the time in Retry-After');
    }
  } catch (error) {
    await endLease(item).catch(() => undefined);
    throw error;
  }
}

const input = (data: Record<string, unknown>) => ({ client_id: String(data.client_id), from: String(data.period_start), to: String(data.period_end), timezone: String(data.timezone) });

/**
 * A failed request gives its work up at once (best effort), so that a retry takes it over without
 * waiting for the lease. Only the lease: the failed write may have landed (its response lost), and
 * its `next` must stand.
 */
async function endLease(item: Record<string, unknown>) {
  const work = workOf(item);
  if (!work) return;
  await transact<string>({
    [ITEM]: {
      Update: {
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET #work.#lease = :zero',
        ConditionExpression: heldBy(work.owner).expression,
        ExpressionAttributeNames: { ...heldBy(work.owner).names, '#lease': 'lease_until' },
        ExpressionAttributeValues: { ...heldBy(work.owner).values, ':zero': 0 },
      },
    },
  });
}

/**
 * The writes that remove a draft holding no entry (on condition that `owner` holds its work): the
 * invoice, its count on the client (the client's delete guard) and its entry list.
 */
function draftRemoval(ctx: CallerContext, item: Record<string, unknown>, owner: string): Record<string, TransactItem> {
  const data = dataOfItem(item);
  return {
    [ITEM]: {
      Delete: {
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        ConditionExpression: '#locked = :zero AND #work.#owner = :owner',
        ExpressionAttributeNames: { '#locked': LOCKED, '#work': WORK, '#owner': 'owner' },
        ExpressionAttributeValues: { ':zero': 0, ':owner': owner },
      },
    },
    client_id: counterUpdate(keys.item(ctx.workspaceId, client.type, String(data.client_id)), counterOf(invoice), -1),
    [ENTRIES]: { Delete: { TableName: tableName(), Key: keys.invoiceEntries(ctx.workspaceId, String(data.id)) } },
  };
}

/** Every entry changed or was taken by another invoice meanwhile: the draft goes, unannounced, and the create is refused. */
async function discardEmpty(ctx: CallerContext, item: Record<string, unknown>, range: ReturnType<typeof input>): Promise<never> {
  const id = String(dataOfItem(item).id);
  const cancelled = await transact<string>({
    ...draftRemoval(ctx, item, workOf(item)!.owner),
    ...(ctx.record ? { record: ctx.record.discard(id) } : {}),
  });
  if (cancelled) throw keyInUse(LEASE_MS / 1000);
  throw new ApiError('nothing_to_invoice', `The time of client ${range.client_id} from ${range.from} to ${range.to} (${range.timezone}) was changed or invoiced by other requests meanwhile: nothing is left to invoice`);
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

async function mustRead(ctx: CallerContext, id: string): Promise<Record<string, unknown>> {
  const item = await readItem(ctx, invoice, id);
  if (!item) throw notFound(invoice.noun, id);
  return item;
}

/** The item, if it may take a step meant for `wanted` invoices (409 naming its status otherwise). */
function mustBe(item: Record<string, unknown>, wanted: InvoiceStatus, what: string, expectedVersion: IfMatch): Record<string, unknown> {
  const data = dataOfItem(item);
  const id = String(data.id);
  if (!matchesVersion(expectedVersion, versionOf(item))) throw preconditionFailed(invoice.noun, id);
  const work = workOf(item);
  if (work?.kind === 'build') {
    throw new ApiError('invalid_state', `Invoice ${id} is a draft still being created: retry after the time in Retry-After`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((work.lease_until - Date.now()) / 1000))) },
    });
  }
  if (data.status !== wanted || work) throw invalidState(id, work ? `${String(data.status)}, its time entries being released` : String(data.status), what);
  return item;
}

/** Changes the status-bound fields of the invoice in one write, with its record, on the version read and no work. */
async function step(ctx: CallerContext, item: Record<string, unknown>, set: Record<string, unknown>, now: Date, extra: { work?: Work; parts?: Record<string, TransactItem> } = {}) {
  const data = dataOfItem(item);
  const id = String(data.id);
  const fields = { ...set, updated_at: new Date(Math.max(now.getTime(), Date.parse(String(data.updated_at)))).toISOString() };
  const after = { ...item, [DATA_ATTRIBUTE]: { ...data, ...fields }, [VERSION_ATTRIBUTE]: versionOf(item) + 1, ...(extra.work ? { [WORK]: extra.work } : {}) };
  const indexes = 'status' in set ? keys.changedIndexes(invoice, ctx.workspaceId, id, { status: set.status }) : {};
  const parts: Record<string, TransactItem> = {
    [ITEM]: invoiceUpdate(item, {
      set: fields,
      attributes: { ...indexes, [REQUEST_ID_ATTRIBUTE]: ctx.requestId, ...(extra.work ? { [WORK]: extra.work } : {}) },
      bumpVersion: true,
      condition: { expression: '#version = :read AND attribute_not_exists(#work)', names: { '#work': WORK }, values: { ':read': versionOf(item) } },
    }),
    ...extra.parts,
    // A change with more to do (a void's release) records its reply when that ends.
    ...(extra.work ? {} : recordPart(ctx, versioned(after))),
  };
  return { parts, after };
}

/** Sends the step's transaction; undefined when the invoice changed since it was read (read it again). */
async function commit(ctx: CallerContext, parts: Record<string, TransactItem>): Promise<'changed' | 'counter' | undefined> {
  const cancelled = await transact<string>(parts);
  if (!cancelled) return undefined;
  refuseIfRecordTaken(ctx, cancelled);
  if (cancelled.failed(COUNTER)) return 'counter';
  if (cancelled.failed(ITEM)) return 'changed';
  throw new Error(`invoice change cancelled: ${cancelled.codes.join(',')}`);
}

/** PATCH of a draft: its terms; the totals follow. */
export async function updateInvoice(ctx: CallerContext, id: string, patch: UpdateInput, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  if (Object.keys(patch).length === 0) return unchanged(ctx, invoice, id, expectedVersion);
  for (;;) {
    const item = mustBe(await mustRead(ctx, id), 'draft', 'only a draft can be changed', expectedVersion);
    const data: Record<string, unknown> = { ...dataOfItem(item), ...patch };
    const { parts, after } = await step(ctx, item, { ...patch, ...invoiceAmounts(data.lines as InvoiceLine[], Number(data.discount_rate), Number(data.tax_rate), String(data.currency)) }, now);
    if ((await commit(ctx, parts)) === undefined) return versioned(after);
  }
}

const addDays = (date: string, days: number) => dateOfDayNumber(dayNumberOf(date) + days);

/** draft → open, with the next number of the workspace, taken in the same transaction (gapless, in commit order). */
export async function finalizeInvoice(ctx: CallerContext, id: string, body: { issue_date?: string | undefined }, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  for (let attempt = 0; attempt < FINALIZE_ATTEMPTS; attempt++) {
    const [read, counter] = await Promise.all([mustRead(ctx, id), getItem(keys.invoiceNumber(ctx.workspaceId))]);
    const item = mustBe(read, 'draft', 'only a draft can be finalized', expectedVersion);
    const data = dataOfItem(item);
    const issueDate = body.issue_date ?? todayIn(String(data.timezone), now);
    const dueDate = (data.due_date as string | null) ?? addDays(issueDate, DUE_DAYS);
    if (dueDate < issueDate) {
      throw invalidParam('issue_date', `issue_date ${issueDate} is after the draft's due_date ${dueDate}: send an issue_date on or before it, or change due_date first`);
    }
    const last = Number(counter?.last ?? 0);
    const { parts, after } = await step(ctx, item, { status: 'open', number: `INV-${String(last + 1).padStart(6, '0')}`, issue_date: issueDate, due_date: dueDate, finalized_at: now.toISOString() }, now, {
      parts: {
        [COUNTER]: {
          Put: {
            TableName: tableName(),
            Item: { ...keys.invoiceNumber(ctx.workspaceId), last: last + 1 },
            ConditionExpression: last === 0 ? 'attribute_not_exists(PK)' : '#last = :last',
            ...(last === 0 ? {} : { ExpressionAttributeNames: { '#last': 'last' }, ExpressionAttributeValues: { ':last': last } }),
          },
        },
      },
    });
    const outcome = await commit(ctx, parts);
    if (outcome === undefined) return versioned(after);
    // Another finalize took the number (or the invoice changed): read both again, after a little while.
    await new Promise((r) => setTimeout(r, Math.random() * 20 * Math.min(attempt + 1, 5)));
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'Invoices of this workspace are being finalized by other requests: retry after the time in Retry-After');
}

/** open → paid. */
export async function payInvoice(ctx: CallerContext, id: string, body: { paid_at?: string | undefined }, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  const paidAt = body.paid_at ?? now.toISOString();
  if (Date.parse(paidAt) > now.getTime()) throw invalidParam('paid_at', 'paid_at must not be after the time of the request');
  for (;;) {
    const item = mustBe(await mustRead(ctx, id), 'open', 'only an open invoice can be paid', expectedVersion);
    const { parts, after } = await step(ctx, item, { status: 'paid', paid_at: paidAt }, now);
    if ((await commit(ctx, parts)) === undefined) return versioned(after);
  }
}

/** open → void; its entries released, batch by batch (a void of a void invoice still releasing resumes it). */
export async function voidInvoice(ctx: CallerContext, id: string, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  for (;;) {
    const read = await mustRead(ctx, id);
    const work = workOf(read);
    if (work?.then === 'void') return versioned(await release(ctx, await takeOverRelease(ctx, read, now), now));
    const item = mustBe(read, 'open', 'only an open invoice can be voided', expectedVersion);
    const releaseWork: Work = { kind: 'release', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0, then: 'void' };
    const { parts, after } = await step(ctx, item, { status: 'void', voided_at: now.toISOString() }, now, { work: releaseWork });
    if ((await commit(ctx, parts)) === undefined) return versioned(await release(ctx, after, now));
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
      const releaseWork: Work = { kind: 'release', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0, then: 'delete', announced: versionOf(draft) };
      const started = { ...draft, [WORK]: releaseWork };
      const cancelled = await transact<string>({
        [ITEM]: invoiceUpdate(draft, {
          attributes: { [WORK]: releaseWork, [REQUEST_ID_ATTRIBUTE]: ctx.requestId },
          bumpVersion: false,
          condition: { expression: '#version = :read AND attribute_not_exists(#work)', names: { '#work': WORK }, values: { ':read': versionOf(draft) } },
        }),
      });
      if (cancelled) continue;
      item = started;
    }
    const released = await release(ctx, item, now);
    const deleted: Deleted = { object: invoice.kind, id, deleted: true };
    const cancelled = await transact<string>({
      ...draftRemoval(ctx, released, ctx.requestId),
      deletion: deletionRecordPut(ctx.workspaceId, invoice.type, id, ctx.requestId, now),
      ...recordPart(ctx, deleted),
    });
    if (!cancelled) return deleted;
    refuseIfRecordTaken(ctx, cancelled);
    throw keyInUse(LEASE_MS / 1000);
  }
}

/** A release left by a request that is gone is this one's now (409 while its holder may still be running). */
async function takeOverRelease(ctx: CallerContext, item: Record<string, unknown>, now: Date) {
  const work = workOf(item)!;
  const id = String(dataOfItem(item).id);
  if (work.lease_until > now.getTime()) {
    throw new ApiError('invalid_state', `Invoice ${id}'s time entries are being released by another request: retry after the time in Retry-After`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((work.lease_until - now.getTime()) / 1000))) },
    });
  }
  return takeOver(ctx, item, now);
}

/**
 * Releases the invoice's entries from `work.next` on, batch by batch: each entry's `invoice_id`
 * null, the invoiced totals subtracted, `locked_count` lowered; a draft being deleted also loses
 * them from its lines. A void ends by removing its work (and writing its key's record); a delete
 * answers the item for its last transaction.
 */
async function release(ctx: CallerContext, start: Record<string, unknown>, now: Date): Promise<Record<string, unknown>> {
  let item = start;
  const id = String(dataOfItem(item).id);
  const ids = await entryIdsOf(ctx, id);
  const currency = String(dataOfItem(item).currency);
  try {
    for (;;) {
      const work = workOf(item)!;
      const data = dataOfItem(item);
      const chunk = ids.slice(work.next, work.next + BATCH_ENTRIES);
      const stored = await readEntries(ctx, chunk);
      // The entries still naming this invoice (another request's release may have reached some).
      const pick = (batchIds: readonly string[]) =>
        batchIds.flatMap((entryId) => {
          const entry = stored.get(entryId);
          return entry && dataOfItem(entry).invoice_id === id ? [entry] : [];
        });
      const { entries: mine, totals, count, last } = fitBatch(ctx, chunk, { next: work.next, total: ids.length }, pick, -1n, (end) => (end && work.then === 'void' && ctx.record ? 1 : 0));
      const closesVoid = last && work.then === 'void';
      const set = work.then === 'delete' && mine.length > 0 ? linesFields(removeFromLines(data.lines as InvoiceLine[], mine.map((e) => invoiceableOf(dataOfItem(e))), currency), data) : {};
      const nextWork = { ...work, next: work.next + count };
      const after = { ...item, [DATA_ATTRIBUTE]: { ...data, ...set }, [LOCKED]: Number(item[LOCKED] ?? 0) - mine.length, [WORK]: nextWork } as Record<string, unknown>;
      if (closesVoid) delete after[WORK];
      const parts: Record<string, TransactItem> = {
        [ITEM]: invoiceUpdate(item, {
          set,
          attributes: closesVoid ? {} : { [WORK]: nextWork },
          remove: closesVoid ? [WORK] : [],
          add: mine.length ? { [LOCKED]: -mine.length } : {},
          bumpVersion: false,
          condition: heldBy(work.owner),
        }),
        ...Object.fromEntries(mine.map((e, i) => [`entry${i}`, releaseEntryPart(ctx.workspaceId, e, id, now, ctx.requestId)])),
        ...totals,
        ...(closesVoid ? recordPart(ctx, versioned(after)) : {}),
      };
      const cancelled = await transact<string>(parts);
      if (cancelled) {
        refuseIfRecordTaken(ctx, cancelled);
        if (cancelled.failed(ITEM)) throw keyInUse(LEASE_MS / 1000);
        continue; // an entry was released by the request this one took over from: read the batch again
      }
      item = after;
      if (last) return item;
    }
  } catch (error) {
    await endLease(item).catch(() => undefined);
    throw error;
  }
}
