/**
 * The key schema, as data: every key of every item is built here and nowhere else.
 *
 * Base table: one partition per workspace (`WS#<ws>`); each resource's sort key is
 * `<TYPE>#<id>`. Ids embed a time-ordered ULID, so a descending Query on `<TYPE>#` lists
 * newest first by creation time (ties broken by id) with strongly consistent reads.
 *
 * The GSIs are generic: a resource declares (shared/model/resources.ts) which of its fields
 * name an index partition, and (GSI5 alone) which field leads the sort key. Their keys are
 *   GSIxPK = `WS#<ws>#<TYPE>#<field>#<value>[#<field>#<value>...]`
 *   GSISK  = `<TYPE>#<id>`, one attribute for GSI1 to GSI4 (table.ts SHARED_SORT_KEY)
 *   GSI5SK = `<field>#<value>#<TYPE>#<id>`
 * so every list is ordered the same way, and a field that leads a sort key can change without
 * knowing the partition's fields.
 *
 * A resource ordered by a field (its declaration's `order`: time entries by `started_at`) is
 * listed from its indexes only, each sort key holding that field's value before the id:
 *   GSIxSK = `<TYPE>#<value>#<id>`
 * so its lists are newest first by that field, a range of it is a key condition, and a change of
 * it rewrites every sort key at once (docs/decisions/0017-time-entries-by-started-at.md). An
 * index with no partition fields lists the whole workspace's items of the type.
 */
import { INDEX_NAMES, PREFIXED_INDEX, sortKeyOf, type IndexName } from './table.ts';
import type { IndexesDeclaration } from './table.ts';

export interface PrimaryKey {
  PK: string;
  SK: string;
}

/** What the key schema needs of a resource (see shared/model/define.ts). */
export interface Keyed {
  type: string;
  indexes?: IndexesDeclaration<string>;
  order?: { field: string };
}

const ws = (workspaceId: string) => `WS#${workspaceId}`;
/** The type of event items in their partition (`SK = EVENT#<id>`). */
const EVENT_TYPE = 'EVENT';
/** The type of an object's change records in its event view (`SK = CHANGE#<position>`, decision 0018). */
export const CHANGE_TYPE = 'CHANGE';

/**
 * The levels of time totals: by client, and by client and project; and the same two of the
 * entries on an invoice alone (`_INVOICED`, written only by an invoice's lock and release,
 * shared/domain/invoices/lock.ts): what `invoiced=true` reads, and `invoiced=false` subtracts.
 */
export type TotalsLevel = 'CLIENT' | 'PROJECT' | 'CLIENT_INVOICED' | 'PROJECT_INVOICED';
/** The invoiced level beside a base one: `CLIENT_INVOICED`, `PROJECT_INVOICED`. */
export const invoicedLevel = <L extends 'CLIENT' | 'PROJECT'>(level: L) => `${level}_INVOICED` as const;
/** The project part of a totals group for time without a project: sorts before every `prj_` id. */
export const NO_PROJECT = '-';

const pair = (field: string, value: unknown) => `${field}#${String(value)}`;

/** An item's sort key in an index, after any sort prefix: `<TYPE>#<id>`, or `<TYPE>#<order value>#<id>`. */
function indexSortKey(resource: Keyed, id: string, fields: Record<string, unknown>): string {
  if (resource.order === undefined) return `${resource.type}#${id}`;
  return `${resource.type}#${String(fields[resource.order.field])}#${id}`;
}

/** The id at the end of a list position (`<TYPE>#[<order value>#]<id>`); ids hold no `#`. */
const idOfPosition = (position: string) => position.slice(position.lastIndexOf('#') + 1);


export const workspacePartition = ws;
export const item = (workspaceId: string, type: string, id: string): PrimaryKey => ({ PK: ws(workspaceId), SK: `${type}#${id}` });
/** The key of an item as read: what a write of the same item names. */
export const keyOfItem = (stored: Record<string, unknown>): PrimaryKey => ({ PK: String(stored.PK), SK: String(stored.SK) });
export const typePrefix = (type: string) => `${type}#`;
export const apiClient = (apiClientId: string): PrimaryKey => ({ PK: `API_CLIENT#${apiClientId}`, SK: 'API_CLIENT' });
export const workspace = (workspaceId: string): PrimaryKey => ({ PK: `WORKSPACE#${workspaceId}`, SK: 'WORKSPACE' });
/** Idempotency records of a workspace, apart from its resources (lists never meet them). */
export const idempotencyPartition = (workspaceId: string) => `${ws(workspaceId)}#IDEMPOTENCY`;
/**
 * The record of an `Idempotency-Key` (1–255 visible ASCII characters) of one API client (whose
 * ids hold no `#`, so the first `#` after the prefix ends it): written in the transaction of the
 * change it records (shared/http/idempotency.ts).
 */
export const idempotency = (workspaceId: string, apiClientId: string, key: string): PrimaryKey => ({
  PK: `${ws(workspaceId)}#IDEMPOTENCY`,
  SK: `KEY#${apiClientId}#${key}`,
});
/**
 * Events live in a partition of their own per workspace, sorted by id, and ids sort by the
 * workspace's event sequence (docs/decisions/0009-event-feed-order.md). The sequence's
 * counter and the deletion records are internal items beside them.
 */
export const eventPartition = (workspaceId: string) => `${ws(workspaceId)}#EVENT`;
export const event = (workspaceId: string, eventId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#EVENT`, SK: `${EVENT_TYPE}#${eventId}` });
export const eventSequence = (workspaceId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#EVENT`, SK: 'SEQUENCE' });
/**
 * A view of the feed: a copy of each event of one type (at the event's own sort key) or of one
 * object (its change records, at `CHANGE#<position>`, written in the append transaction). What
 * serves a scope-restricted or filtered page without reading the events it would skip
 * (docs/decisions/0016-event-views.md, 0018).
 */
export const eventView = (workspaceId: string, view: EventView): string => `${ws(workspaceId)}#EVENT_BY#${view.by}#${view.value}`;
/** Written in the delete's transaction: carries the delete's request id and time to its event. */
export const deletion = (workspaceId: string, type: string, id: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#DELETION`, SK: `${type}#${id}` });
/**
 * Time totals (docs/decisions/0019-time-totals.md): one partition per UTC month and level (by
 * client, or by client and project), one item per group and UTC day, its counters per UTC
 * quarter-hour. Sort keys `<client>#<dd>` or `<client>#<project or ->#<dd>`: a group's days are
 * together, groups in the order summaries answer them (no project first).
 */
export const totalsPartition = (workspaceId: string, level: TotalsLevel, month: string) => `${ws(workspaceId)}#TOTALS#${level}#${month}`;
export const totalsGroup = (level: TotalsLevel, clientId: string, projectId: string | null): string => (level.startsWith('CLIENT') ? clientId : `${clientId}#${projectId ?? NO_PROJECT}`);
export const totals = (workspaceId: string, level: TotalsLevel, month: string, group: string, day: string): PrimaryKey => ({
  PK: totalsPartition(workspaceId, level, month),
  SK: `${group}#${day}`,
});
/**
 * An invoice's entries (docs/decisions/0023-invoices.md): the ids its create selected, in the
 * order it locks them; the create resumes from it, and a void or delete releases from it.
 */
export const invoiceEntries = (workspaceId: string, invoiceId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#INVOICE_ENTRIES`, SK: invoiceId });
/** The number the workspace's latest finalize took: each finalize takes the next in its own transaction. */
/** A time entry batch's work while it is written in parts under an Idempotency-Key (domain/time-entry-batch.ts): one item, by the request that began it. */
export const batchWork = (workspaceId: string, workId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#BATCH`, SK: workId });

export const invoiceNumber = (workspaceId: string): PrimaryKey => ({ PK: ws(workspaceId), SK: 'INVOICE_NUMBER' });
/**
 * A project's fees (docs/decisions/0029-billing-types.md): one partition per project, holding a
 * mark per charge that is not time, naming the invoice that charges it (`invoice_id`); written in
 * the transaction of that invoice's line, on condition that nothing charges it yet.
 */
export const feesPartition = (workspaceId: string, projectId: string) => `${ws(workspaceId)}#FEES#${projectId}`;
/** The mark of a ProjectBased project's fixed price. */
export const fixedPriceMark = (workspaceId: string, projectId: string): PrimaryKey => ({ PK: feesPartition(workspaceId, projectId), SK: 'FIXED' });
/** The mark of a Retainer project's period, known by its start date (`YYYY-MM-DD`: the sort keys sort as the dates). */
export const retainerMark = (workspaceId: string, projectId: string, periodStart: string): PrimaryKey => ({ PK: feesPartition(workspaceId, projectId), SK: `RETAINER#${periodStart}` });
/** A CreditBased project's credit ledger (its sort key is outside the marks' `FIXED`..`RETAINER#` range). */
export const creditLedger = (workspaceId: string, projectId: string): PrimaryKey => ({ PK: feesPartition(workspaceId, projectId), SK: 'CREDIT' });
/** How many webhook endpoints a workspace has (its quota, counted in each create's and delete's transaction). */
export const webhookEndpointCount = (workspaceId: string): PrimaryKey => ({ PK: ws(workspaceId), SK: 'WEBHOOK_ENDPOINT_COUNT' });
/** The workspace's billing lane: the one run that runs (`run`), and how many wait (`waiting`); absent while none runs. */
export const billingLane = (workspaceId: string): PrimaryKey => ({ PK: ws(workspaceId), SK: 'BILLING_LANE' });
/** A billing run's results: one item per client, in the run's own partition, sorted by client id. */
export const RESULT_TYPE = 'RESULT';
export const billingRunResultsPartition = (workspaceId: string, runId: string) => `${ws(workspaceId)}#BILLING_RUN#${runId}`;
export const billingRunResult = (workspaceId: string, runId: string, clientId: string): PrimaryKey => ({
  PK: billingRunResultsPartition(workspaceId, runId),
  SK: `${RESULT_TYPE}#${clientId}`,
});
/** The workspaces with auto_billing on (contract, "Billing runs"), one item each in one partition: what a sweep reads, no Scan. */
export const BILLING_SCHEDULES_PARTITION = 'BILLING_SCHEDULES';
export const billingSchedule = (workspaceId: string): PrimaryKey => ({ PK: BILLING_SCHEDULES_PARTITION, SK: ws(workspaceId) });
/** A scheduled run's mark: one per workspace, billing type and local date, whatever the number of sweeps. */
export const billingScheduleMark = (workspaceId: string, billingType: string, date: string): PrimaryKey => ({
  PK: `${ws(workspaceId)}#BILLING_SCHEDULE`,
  SK: `${billingType}#${date}`,
});

/**
 * The index attributes of an item with these field values. An index whose partition fields
 * are not all set (null) does not list the item: its attributes are left out.
 */
export function indexes(resource: Keyed, workspaceId: string, id: string, fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INDEX_NAMES) {
    const index = resource.indexes?.[name];
    if (!index || index.partition.some((f) => fields[f] == null)) continue;
    out[`${name}PK`] = indexPartition(resource.type, workspaceId, index.partition.map((f) => pair(f, fields[f])));
    out[sortKeyOf(name)] = `${index.sortPrefix === undefined ? '' : `${pair(index.sortPrefix, fields[index.sortPrefix])}#`}${indexSortKey(resource, id, fields)}`;
  }
  return out;
}

/**
 * The index attributes a change of `changed` fields rewrites: those built from a changed field.
 * Each needs only the changed values (a declaration where a mutable field shares a key
 * attribute with another field is refused here).
 */
export function changedIndexes(resource: Keyed, workspaceId: string, id: string, changed: Record<string, unknown>): Record<string, string> {
  const all = indexes(resource, workspaceId, id, changed);
  const out: Record<string, string> = {};
  for (const name of INDEX_NAMES) {
    const index = resource.indexes?.[name];
    if (!index) continue;
    const sortKey = sortKeyOf(name);
    const partitionChanged = index.partition.some((f) => f in changed);
    const orderChanged = resource.order !== undefined && resource.order.field in changed;
    if (orderChanged && index.sortPrefix !== undefined) throw new Error(`${resource.type}: ${name} has a sort prefix and an ordered sort key`);
    const sortChanged = index.sortPrefix !== undefined && index.sortPrefix in changed;
    if (partitionChanged && index.partition.some((f) => !(f in changed))) {
      throw new Error(`${resource.type}: ${name}'s partition mixes a changed field with others`);
    }
    if (partitionChanged) out[`${name}PK`] = all[`${name}PK`]!;
    if (sortChanged) {
      out[sortKey] = `${pair(index.sortPrefix!, changed[index.sortPrefix!])}#${indexSortKey(resource, id, changed)}`;
    }
    // Written for every index, also one whose partition the item is not in: the item then holds
    // a sort key alone, which lists nothing, and the move that puts it there writes both anew.
    if (orderChanged) out[sortKey] = indexSortKey(resource, id, changed);
  }
  return out;
}

/**
 * Every key builder as one object, for tests and scripts. Code that runs in a function imports
 * this module as a namespace (`import * as keys from './keys.ts'`), so its bundle keeps
 * only the builders it calls; nothing bundled reads this object.
 */
export const keys = /* @__PURE__ */ (() => ({
  workspacePartition, item, keyOfItem, typePrefix, apiClient, workspace, idempotencyPartition, idempotency, eventPartition, event, eventSequence,
  eventView, deletion, totalsPartition, totalsGroup, totals, invoiceEntries, invoiceNumber, feesPartition, fixedPriceMark, retainerMark, creditLedger,
  webhookEndpointCount, billingLane, billingRunResultsPartition, billingRunResult, billingSchedule, billingScheduleMark, indexes, changedIndexes,
}))();

function indexPartition(type: string, workspaceId: string, pairs: readonly string[]): string {
  return [ws(workspaceId), type, ...pairs].join('#');
}

/** Where a list is read from: the base table's workspace partition or a GSI partition. */
export interface ListSource {
  index: IndexName | undefined;
  partitionKey: string;
  type: string;
  /** What the index's sort key holds before the item's own sort key (`status#ACTIVE#`, or ''). */
  sortKeyPrefix: string;
  /** The filters the source does not serve: the read filters on them. */
  remaining: Record<string, string>;
  /**
   * An ordered resource's range (its `order`): the sort keys read lie between these, both
   * after the sort key prefix; a position is then the index sort key, not the item's.
   */
  range?: { low: string; high: string };
}

/** A source read over a range of its order from end to end (spanSource). */
export type SpanSource = ListSource & { range: { low: string; high: string } };

/** A range's bounds, as sort keys: `from` inclusive, `to` exclusive; open ends take the whole type. */
export interface OrderRange {
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * The source of a list with these exact-match filters: the index that serves the most of them
 * (the first declared on a tie), or the workspace partition when none does. An ordered resource
 * is always read from an index (its base sort keys are in creation order), within `range`.
 */
export function listSource(resource: Keyed, workspaceId: string, filters: Record<string, string | undefined>, range: OrderRange = {}): ListSource {
  const given = Object.fromEntries(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined));
  let best: ListSource = { index: undefined, partitionKey: ws(workspaceId), type: resource.type, sortKeyPrefix: '', remaining: given };
  let served = resource.order === undefined ? 0 : -1;
  for (const name of INDEX_NAMES) {
    const index = resource.indexes?.[name];
    if (!index || index.partition.some((f) => given[f] === undefined)) continue;
    // An index sorted by a field serves only lists filtered by it too: its sort keys start with it.
    const sort = index.sortPrefix;
    if (sort !== undefined && given[sort] === undefined) continue;
    const used = [...index.partition, ...(sort === undefined ? [] : [sort])];
    // A bounded index (an invoice's entries) wins over any other: the filters it leaves read at most its bound.
    if (used.length <= served && !index.bounded) continue;
    served = index.bounded ? Number.POSITIVE_INFINITY : used.length;
    best = {
      index: name,
      partitionKey: indexPartition(resource.type, workspaceId, index.partition.map((f) => pair(f, given[f]))),
      type: resource.type,
      sortKeyPrefix: sort === undefined ? '' : `${pair(sort, given[sort])}#`,
      remaining: Object.fromEntries(Object.entries(given).filter(([f]) => !used.includes(f))),
    };
  }
  if (resource.order === undefined) return best;
  if (best.index === undefined) throw new Error(`${resource.type} is ordered by ${resource.order.field} but no index lists it unfiltered`);
  // `<TYPE>#<to>` sorts before every `<TYPE>#<to>#<id>`: the end is exclusive. `~` sorts after every timestamp.
  return { ...best, range: { low: `${resource.type}#${range.from ?? ''}`, high: `${resource.type}#${range.to ?? '~'}` } };
}

/**
 * Where the items of one value of `field` are read over a span of their order (`from` inclusive,
 * `to` exclusive, as in listSource's range): the index partitioned by that field alone. What an
 * invoice's create selects a client's or a project's time from: it needs none of a list's choice
 * among indexes and filters.
 */
export function spanSource(resource: Keyed, workspaceId: string, field: string, value: string, span: { from: string; to: string }): SpanSource {
  // Not GSI5, whose sort key a field leads: a span is a range of the sort key itself.
  const index = INDEX_NAMES.find((name) => name !== PREFIXED_INDEX && resource.indexes?.[name]?.partition.join() === field);
  if (!index) throw new Error(`No index of ${resource.type} is partitioned by ${field} alone`);
  const range = { low: `${resource.type}#${span.from}`, high: `${resource.type}#${span.to}` };
  return { index, partitionKey: indexPartition(resource.type, workspaceId, [pair(field, value)]), type: resource.type, sortKeyPrefix: '', remaining: {}, range };
}

/**
 * A range of one base-table partition's sort keys, `low` to `high` inclusive, read strongly
 * consistent: a month of time totals, a summary's groups at a time. Its items have no type of
 * their own (a range reads every key in it).
 */
export const partitionRange = (partitionKey: string, range: { low: string; high: string }): SpanSource => ({
  index: undefined,
  partitionKey,
  type: '',
  sortKeyPrefix: '',
  remaining: {},
  range,
});

/**
 * The events feed's source: the workspace's event partition, whose sort keys are in id order,
 * which is the workspace's event sequence (docs/decisions/0009-event-feed-order.md). Read on the
 * base table, so strongly consistent, which sync mode needs.
 */
export function eventListSource(workspaceId: string, view?: EventView): ListSource {
  const partitionKey = view === undefined ? eventPartition(workspaceId) : eventView(workspaceId, view);
  return { index: undefined, partitionKey, type: view?.by === 'object_id' ? CHANGE_TYPE : EVENT_TYPE, sortKeyPrefix: '', remaining: {} };
}

/** What an event view holds: the events of one type, or the change records of one object. */
export interface EventView {
  by: 'type' | 'object_id';
  value: string;
}

/**
 * The key attributes of a list item at `position`, in the source it was read from
 * (ExclusiveStartKey). A position is the item's sort key (`<TYPE>#<id>`), or in a ranged source
 * its index sort key after the prefix (`<TYPE>#<order value>#<id>`).
 */
export function startKeyFor(source: ListSource, workspaceId: string, position: string): Record<string, string> {
  // A base-table source's partition (the workspace's, or its event partition) is the item's own.
  if (source.index === undefined) return { PK: source.partitionKey, SK: position };
  const sortKey = source.range === undefined ? position : `${source.type}#${idOfPosition(position)}`;
  const base = { PK: ws(workspaceId), SK: sortKey };
  return { ...base, [`${source.index}PK`]: source.partitionKey, [sortKeyOf(source.index)]: `${source.sortKeyPrefix}${position}` };
}

/** Where a list read from `source` stands after `item`: what its cursor carries. */
export function positionOf(source: ListSource, item: Record<string, unknown>): string {
  if (source.range === undefined || source.index === undefined) return String(item.SK);
  return String(item[sortKeyOf(source.index)]).slice(source.sortKeyPrefix.length);
}
