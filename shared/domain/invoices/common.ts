/**
 * What an invoice's writes share (contract, "Invoices"; docs/decisions/0023-invoices.md): its
 * unfinished work (`work`: a create's locking, a void's or delete's release), the lease that names
 * who holds it, the batches that fit DynamoDB's 100 items, and the Update of the invoice item.
 * Each operation is in its own module (create.ts, lifecycle.ts, release.ts), so a function's
 * bundle holds its own operation's code and this.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { keyInUse, serviceUnavailable, RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { dynamo, tableName } from '../../data/dynamo.ts';
import * as keys from '../../data/keys.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../data/table.ts';
import { counterUpdate, getItem, transact, versionOf, type TransactItem } from '../../data/writes.ts';
import { invoiceAmounts, type InvoiceableEntry, type InvoiceLine } from './amounts.ts';
import { invoicedTotalsParts } from './lock.ts';
import { objectOf, type Invoice } from '../../model/objects.ts';
import { clientIdentity, counterOf, invoiceStored as invoice, timeEntryKeyed } from '../../model/resources.ts';
import { COUNTED_ATTRIBUTE, countedOf } from '../../totals/totals.ts';
import type { CallerContext, Versioned } from '../context.ts';

/** Unfinished work on an invoice, beside its `data`: a create's locking, or a void's or delete's release. */
export interface Work {
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

export const ITEM = 'item';
export const ENTRIES = 'entries';

export const dataOfItem = (item: Record<string, unknown>) => item[DATA_ATTRIBUTE] as Record<string, unknown>;
export const workOf = (item: Record<string, unknown>) => item[WORK] as Work | undefined;
export const versioned = (item: Record<string, unknown>): Versioned<Invoice> => ({ resource: objectOf(invoice, item), version: versionOf(item) });

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
  const held = heldBy(work.owner);
  const cancelled = await transact<string>({
    [ITEM]: {
      Update: {
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET #work = :work',
        ConditionExpression: `${held.expression} AND #work.#lease = :lease`,
        ExpressionAttributeNames: { ...held.names, '#lease': 'lease_until' },
        ExpressionAttributeValues: { ...held.values, ':work': next, ':lease': work.lease_until },
      },
    },
  });
  if (cancelled) throw workInUse(LEASE_MS / 1000);
  return { ...item, [WORK]: next };
}

/** The entries of `ids` as stored now (strongly consistent), by id. */
export async function readEntries(ctx: CallerContext, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  let keysLeft: Record<string, unknown>[] = ids.map((id) => ({ ...keys.item(ctx.workspaceId, timeEntryKeyed.type, id) }));
  for (let round = 0; keysLeft.length > 0; round++) {
    if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
    const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keysLeft, ConsistentRead: true } } }));
    for (const item of out.Responses?.[tableName()] ?? []) found.set(String(dataOfItem(item).id), item);
    keysLeft = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, unknown>[];
    if (round > 8 && keysLeft.length > 0) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy);
  }
  return found;
}

export const invoiceableOf = (data: Record<string, unknown>): InvoiceableEntry => ({
  id: String(data.id),
  project_id: (data.project_id ?? null) as string | null,
  billable_rate: Number(data.billable_rate),
  duration_minutes: Number(data.duration_minutes),
});

/** The invoice's fields that its lines decide. */
export function linesFields(lines: InvoiceLine[], data: Record<string, unknown>) {
  return {
    lines,
    time_entry_count: lines.reduce((n, line) => n + line.time_entry_count, 0),
    ...invoiceAmounts(lines, Number(data.discount_rate), Number(data.tax_rate), String(data.currency)),
  };
}

/** An Update of the invoice: `set` data fields, other attributes, on condition that `owner` still holds its work (and the version read, when it changes). */
export function invoiceUpdate(
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

export const heldBy = (owner: string) => ({ expression: '#work.#owner = :owner', names: { '#work': WORK, '#owner': 'owner' }, values: { ':owner': owner } });

/** The entry ids the invoice's create selected, in lock order. */
export async function entryIdsOf(ctx: CallerContext, invoiceId: string): Promise<string[]> {
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
    const totals = invoicedTotalsParts(ctx.workspaceId, entries.map((e) => ({ entry: countedOf(dataOfItem(e)), counted: sign < 0n || e[COUNTED_ATTRIBUTE] !== undefined })), sign);
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
  const held = heldBy(work.owner);
  await transact<string>({
    [ITEM]: {
      Update: {
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET #work.#lease = :zero',
        ConditionExpression: held.expression,
        ExpressionAttributeNames: { ...held.names, '#lease': 'lease_until' },
        ExpressionAttributeValues: { ...held.values, ':zero': 0 },
      },
    },
  });
}

/**
 * The writes that remove a draft holding no entry (on condition that `owner` holds its work): the
 * invoice, its count on the client (the client's delete guard) and its entry list.
 */
export function draftRemoval(ctx: CallerContext, item: Record<string, unknown>, owner: string): Record<string, TransactItem> {
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
    client_id: counterUpdate(keys.item(ctx.workspaceId, clientIdentity.type, String(data.client_id)), counterOf(invoice), -1),
    [ENTRIES]: { Delete: { TableName: tableName(), Key: keys.invoiceEntries(ctx.workspaceId, String(data.id)) } },
  };
}
