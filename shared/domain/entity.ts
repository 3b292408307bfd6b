/**
 * The operations every resource has, driven by its declaration (shared/model/resources.ts):
 * create, retrieve, list, update and delete, with the references and deletion guards it declares.
 * A resource with rules of its own (domain/projects.ts, domain/time-entries.ts) wraps these.
 *
 * References: creating an item that references another (a project's client) adds 1 to a counter
 * on the referenced item (`project_count`) in the same transaction, on condition that it exists;
 * deleting subtracts 1. A resource is guarded by the counters of every resource referencing it:
 * its delete is conditional on all of them being 0 (docs/decisions/0004-deletion-guards.md).
 */
import { ApiError, conflict, invalidParam, notFound, preconditionFailed } from '../core/errors.ts';
import { isWellFormedId, newId } from '../core/ids.ts';
import * as keys from '../data/keys.ts';
import { listSource } from '../data/keys.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, SEARCH_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { conditionalUpdate, type ConditionalUpdate } from '../data/update.ts';
import {
  absent,
  allOf,
  counterUpdate,
  dataOfItem,
  deletePart,
  existsAtVersion,
  getItem,
  ITEM_PART,
  matchesVersion,
  putNew,
  putPart,
  RECORD_PART,
  transact,
  versionOf,
  type CancelledTransaction,
  type Condition,
  type TransactItem,
} from '../data/writes.ts';
import { pluralOf, type AnyResource } from '../model/declare.ts';
import { dataOf, objectOf, type ObjectOf } from '../model/objects.ts';
import { counterOf, referrersOf, resourceOf } from '../model/resources.ts';
import { deletionRecordPut } from '../data/deletion-records.ts';
import { scopeFor } from '../api/routes.ts';
import { EVENT_OBJECTS } from '../model/event-types.ts';
import type { CallerContext, Deleted, IfMatch, Outcome, Revealed, Versioned } from './context.ts';
import { foldForSearch, legacyFoldForSearch, listPage, type ListEnvelope } from '../data/paging.ts';

/** The stored item of a resource, or undefined (an id that cannot be one is not read). */
export async function readItem(ctx: CallerContext, resource: Pick<AnyResource, 'idPrefix' | 'type'>, id: string): Promise<Record<string, unknown> | undefined> {
  if (!isWellFormedId(resource.idPrefix, id)) return undefined;
  return getItem(keys.item(ctx.workspaceId, resource.type, id));
}

async function mustRead(ctx: CallerContext, resource: AnyResource, id: string): Promise<Record<string, unknown>> {
  const item = await readItem(ctx, resource, id);
  if (!item) throw notFound(resource.noun, id);
  return item;
}

/**
 * A new item of `resource` holding `data`: its key and index keys, version 1, and the request that
 * made it (its event carries it: shared/events/build.ts). Every create writes one.
 */
export const newItem = (ctx: CallerContext, resource: Pick<AnyResource, 'type' | 'indexes' | 'order'>, data: Record<string, unknown>): Record<string, unknown> => ({
  ...keys.item(ctx.workspaceId, resource.type, String(data.id)),
  ...keys.indexes(resource, ctx.workspaceId, String(data.id), data),
  [DATA_ATTRIBUTE]: data,
  [VERSION_ATTRIBUTE]: 1,
  [REQUEST_ID_ATTRIBUTE]: ctx.requestId,
});

/** The resource a stored item holds, with its version (its ETag). */
export const versioned = <R extends Pick<AnyResource, 'kind' | 'fieldNames' | 'storedDefaults'>>(resource: R, item: Record<string, unknown>): Versioned<ObjectOf<R>> => ({
  resource: objectOf(resource, item),
  version: versionOf(item),
});

export async function retrieve<R extends AnyResource>(ctx: CallerContext, resource: R, id: string): Promise<Versioned<ObjectOf<R>>> {
  return versioned(resource, await mustRead(ctx, resource, id));
}

/** The error of a reference that names nothing in the workspace. */
export const unknownReference = (field: string, target: Pick<AnyResource, 'noun'>) =>
  invalidParam(field, `${field} does not name a ${target.noun} in this workspace`);

/** The references an item holds: field, referenced resource and id. */
function referencesOf(resource: AnyResource, data: Record<string, unknown>) {
  return Object.entries(resource.references ?? {})
    .filter(([field]) => data[field] != null)
    .map(([field, kind]) => ({ field, target: resourceOf(kind!), id: String(data[field]) }));
}

/**
 * What a referenced item must satisfy besides existing: where this resource references two
 * resources and one of them references the other by the same field (a time entry's project and
 * client), the first must hold the same value (the project belongs to that client).
 */
export function consistencyCondition(resource: AnyResource, target: AnyResource, data: Record<string, unknown>): Condition | undefined {
  const shared = Object.entries(target.references ?? {}).filter(([field, kind]) => resource.references?.[field] === kind && data[field] != null);
  if (shared.length === 0) return undefined;
  return allOf(
    ...shared.map(([field]) => ({
      expression: `#data.#r_${field} = :r_${field}`,
      names: { '#data': DATA_ATTRIBUTE, [`#r_${field}`]: field },
      values: { [`:r_${field}`]: data[field] },
    })),
  );
}

export interface CreateOptions {
  /** The error when a reference names nothing (default: 400 naming the reference's field). */
  unknownReference?: (field: string, target: AnyResource) => ApiError;
  /**
   * Attributes stored beside `data` (a webhook endpoint's secret): answered by the create alone,
   * after the resource's fields, never by retrieve, list or update, and never copied into the
   * change's record (a replay reads them from the item).
   */
  hidden?: Record<string, unknown>;
  /** A write made in the same transaction (a quota counter), and the error when its condition fails. */
  alongside?: { write: TransactItem; refused: () => ApiError };
  /** Attributes stored beside `data` that no response shows (a time entry's `counted` marker). */
  attributes?: Record<string, unknown>;
  /** Unconditional writes made in the same transaction, given the item's data (a time entry's totals). */
  parts?: (data: Record<string, unknown>) => Record<string, TransactItem>;
}

const ALONGSIDE = 'alongside';
const DELETION = 'deletion';

/** The caller's record of this change (an Idempotency-Key's), as a part of the change's transaction. */
export const recordPart = (ctx: CallerContext, outcome: Outcome, revealed?: Revealed): Record<string, TransactItem> =>
  ctx.record ? { [RECORD_PART]: ctx.record.write(outcome, revealed) } : {};

/** A transaction refused because the record's key was taken: nothing changed, and the caller's record says what to answer. */
export function refuseIfRecordTaken(ctx: CallerContext, cancelled: CancelledTransaction<string>): void {
  if (ctx.record && cancelled.failed(RECORD_PART)) throw ctx.record.taken(cancelled.item(RECORD_PART));
}
const makesEvents = (resource: AnyResource) => (EVENT_OBJECTS as readonly string[]).includes(resource.kind);

/**
 * Creates the item: a plain conditional put when nothing is written beside it; else one
 * transaction, which counts it on what it references on condition that they exist (so a
 * reference deleted concurrently never ends up dangling) and holds the other writes.
 */
export async function create<R extends AnyResource>(ctx: CallerContext, resource: R, input: Record<string, unknown>, now: Date, options: CreateOptions = {}): Promise<Versioned<ObjectOf<R>>> {
  const refuse = options.unknownReference ?? unknownReference;
  const id = newId(resource.idPrefix, now);
  const data = dataOf(resource, { id, workspaceId: ctx.workspaceId }, input, now.toISOString());
  const references = referencesOf(resource, data);
  for (const ref of references) if (!isWellFormedId(ref.target.idPrefix, ref.id)) throw refuse(ref.field, ref.target);
  const item = {
    ...newItem(ctx, resource, data),
    ...(resource.search ? { [SEARCH_ATTRIBUTE]: foldForSearch(String(data[resource.search])) } : {}),
    ...Object.fromEntries(referrersOf(resource).map((r) => [r.counter, 0])),
    ...options.attributes,
    ...options.hidden,
  };
  const made = versioned(resource, item);
  const parts = options.parts?.(data) ?? {};
  if (references.length === 0 && !options.alongside && !ctx.record && Object.keys(parts).length === 0) {
    await putNew(item);
    return made;
  }
  const revealed = options.hidden ? { ...keys.item(ctx.workspaceId, resource.type, id), attributes: Object.keys(options.hidden) } : undefined;
  const cancelled = await transact<string>({
    [ITEM_PART]: putPart(item, { condition: absent() }),
    ...Object.fromEntries(
      references.map((ref) => [
        ref.field,
        counterUpdate(keys.item(ctx.workspaceId, ref.target.type, ref.id), counterOf(resource), 1, consistencyCondition(resource, ref.target, data)),
      ]),
    ),
    ...(options.alongside ? { [ALONGSIDE]: options.alongside.write } : {}),
    ...parts,
    ...recordPart(ctx, made, revealed),
  });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (options.alongside && cancelled.failed(ALONGSIDE)) throw options.alongside.refused();
    const failed = references.find((ref) => cancelled.failed(ref.field));
    if (failed) throw refuse(failed.field, failed.target);
    throw new Error(`${resource.noun} create cancelled: ${cancelled.codes.join(',')}`);
  }
  return made;
}

export interface ListOptions {
  /**
   * Filters that every item of the list's source satisfies, known by the resource's own rules
   * (a time entry's client, given its project): bound to the cursor, never read as a filter.
   */
  implied?: readonly string[];
  /** The filters contradict each other: the list is empty, its cursor still checked. */
  empty?: boolean;
}

export function list<R extends AnyResource>(
  ctx: CallerContext,
  resource: R,
  query: { limit: number; cursor?: string | undefined; search?: string | undefined } & Record<string, unknown>,
  options: ListOptions = {},
): Promise<ListEnvelope<ObjectOf<R>>> {
  const filters = Object.fromEntries((resource.filters ?? []).map((f) => [f, query[f] as string | undefined]));
  const read = Object.fromEntries(Object.entries(filters).filter(([f]) => !options.implied?.includes(f)));
  const order = resource.order;
  // Its end is not before its start: a rule of the list query (model/cross-field.ts).
  const range = order ? { from: query[order.from] as string | undefined, to: query[order.to] as string | undefined } : {};
  const source = listSource(resource, ctx.workspaceId, read, range);
  const conditions: Condition[] = Object.entries(source.remaining).map(([field, value]) => ({
    expression: `#data.#q_${field} = :q_${field}`,
    names: { '#data': DATA_ATTRIBUTE, [`#q_${field}`]: field },
    values: { [`:q_${field}`]: value },
  }));
  if (query.search !== undefined) conditions.push(searchCondition(query.search));
  const bound = order ? { [order.from]: range.from, [order.to]: range.to } : {};
  return listPage({
    binding: { list: resource.collection, workspaceId: ctx.workspaceId, filters: { ...filters, ...bound, search: query.search } },
    source,
    limit: query.limit,
    cursor: query.cursor,
    ...(conditions.length > 0 ? { filter: allOf(...conditions) } : {}),
    ...(options.empty ? { empty: true } : {}),
    toResource: (item) => objectOf(resource, item),
  });
}

/**
 * An empty PATCH: the resource as it is, on If-Match. It changes nothing, but a key still keeps its
 * reply (`answerUnchanged`).
 */
export async function unchanged<R extends AnyResource>(ctx: CallerContext, resource: R, id: string, expectedVersion: IfMatch): Promise<Versioned<ObjectOf<R>>> {
  return answerUnchanged(ctx, await currentAt(ctx, resource, id, expectedVersion));
}

/** The resource as it is, when it is at `expectedVersion` (412 otherwise). */
export async function currentAt<R extends AnyResource>(ctx: CallerContext, resource: R, id: string, expectedVersion: IfMatch): Promise<Versioned<ObjectOf<R>>> {
  const current = await retrieve(ctx, resource, id);
  if (!matchesVersion(expectedVersion, current.version)) throw preconditionFailed(resource.noun, id);
  return current;
}

/**
 * The reply of a request that changes nothing, with its key's record alone (contract,
 * "Idempotency"): a retry replays this reply, another request with the key is a 422, and a key
 * that already names a change answers as that change's record says.
 */
export async function answerUnchanged<O extends Outcome>(ctx: CallerContext, outcome: O): Promise<O> {
  if (!ctx.record) return outcome;
  const cancelled = await transact(recordPart(ctx, outcome));
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    throw new Error(`record write cancelled: ${cancelled.codes.join(',')}`);
  }
  return outcome;
}

/** The search filter: the folded text, or, where the fold of older items differs, either (paging.ts). */
function searchCondition(search: string): Condition {
  const folded = foldForSearch(search);
  const legacy = legacyFoldForSearch(search);
  const names = { '#search': SEARCH_ATTRIBUTE };
  if (legacy === folded) return { expression: 'contains(#search, :search)', names, values: { ':search': folded } };
  return { expression: '(contains(#search, :search) OR contains(#search, :legacy))', names, values: { ':search': folded, ':legacy': legacy } };
}

export interface UpdateRules {
  /** A condition on the stored item that the change must satisfy (over `#data`, `#f_<field>`). */
  condition?: ConditionalUpdate['condition'];
  /** The error when that condition fails. */
  refused?: () => ApiError;
}

/**
 * Changes the fields sent (null clears), with their index keys and search field. An empty change
 * writes nothing: it answers the current resource, and still honours If-Match.
 */
export async function update<R extends AnyResource>(
  ctx: CallerContext,
  resource: R,
  id: string,
  patch: Record<string, unknown>,
  expectedVersion: IfMatch,
  now: Date,
  rules: UpdateRules = {},
): Promise<Versioned<ObjectOf<R>>> {
  if (!isWellFormedId(resource.idPrefix, id)) throw notFound(resource.noun, id);
  if (Object.keys(patch).length === 0) return unchanged(ctx, resource, id, expectedVersion);
  const search = resource.search !== undefined && typeof patch[resource.search] === 'string' ? foldForSearch(patch[resource.search] as string) : undefined;
  const record = ctx.record;
  const outcome = await conditionalUpdate({
    key: keys.item(ctx.workspaceId, resource.type, id),
    fields: patch,
    attributes: {
      ...keys.changedIndexes(resource, ctx.workspaceId, id, patch),
      ...(search === undefined ? {} : { [SEARCH_ATTRIBUTE]: search }),
      [REQUEST_ID_ATTRIBUTE]: ctx.requestId,
    },
    expectedVersion,
    now,
    ...(rules.condition ? { condition: rules.condition } : {}),
    ...(record ? { record: (after: Record<string, unknown>) => record.write(versioned(resource, after)) } : {}),
  });
  if (outcome.kind === 'record_taken') throw record!.taken(outcome.item);
  if (outcome.kind === 'missing') throw notFound(resource.noun, id);
  if (outcome.kind === 'precondition_failed') throw preconditionFailed(resource.noun, id);
  if (outcome.kind === 'condition_failed') {
    if (rules.refused) throw rules.refused();
    throw new Error(`${resource.noun} update refused by a condition it did not set`);
  }
  return versioned(resource, outcome.item);
}

/**
 * Deletes the item, on condition that no referrer's counter holds it (409 otherwise), and
 * uncounts it on what it references, in one transaction.
 */
export async function remove(ctx: CallerContext, resource: AnyResource, id: string, expectedVersion: IfMatch, alongside?: TransactItem): Promise<Deleted> {
  if (!isWellFormedId(resource.idPrefix, id)) throw notFound(resource.noun, id);
  const read = Object.keys(resource.references ?? {}).length > 0 ? await mustRead(ctx, resource, id) : undefined;
  const deleted = await removeAsRead(ctx, resource, id, expectedVersion, { read, parts: alongside ? { [ALONGSIDE]: alongside } : {}, atVersionRead: false });
  return deleted!;
}

export interface RemoveAsRead {
  /** The item as read (what it references is read off it); undefined when it references nothing. */
  read: Record<string, unknown> | undefined;
  /** Writes made in the delete's transaction. */
  parts: Record<string, TransactItem>;
  /**
   * The delete holds only at the version read (the parts were computed from it): a change since
   * makes it answer undefined, for the caller to read again and retry.
   */
  atVersionRead: boolean;
  /** What else the item must satisfy to be deleted (a time entry: on no invoice); a change since the read explains its failure. */
  condition?: Condition;
}

/** The delete's transaction, given the item read; undefined when `atVersionRead` and the item changed since. */
export async function removeAsRead(ctx: CallerContext, resource: AnyResource, id: string, expectedVersion: IfMatch, options: RemoveAsRead): Promise<Deleted | undefined> {
  const counters = [...new Set(referrersOf(resource).map((r) => r.counter))];
  const { read } = options;
  const condition = allOf(
    options.atVersionRead && read ? existsAtVersion([versionOf(read)]) : existsAtVersion(expectedVersion),
    ...counters.map((counter, i) => ({ expression: `#g${i} = :zero`, names: { [`#g${i}`]: counter }, values: { ':zero': 0 } })),
    ...(options.condition ? [options.condition] : []),
  );
  const key = keys.item(ctx.workspaceId, resource.type, id);
  // Every resource deletes with something beside it (its deletion record, a quota counter, its
  // references' counters): one transaction. A resource whose changes make events also writes its
  // deletion record (the delete's request id and time).
  const parts: Record<string, TransactItem> = { [ITEM_PART]: deletePart(key, { condition, returnItemOnFailure: true }), ...options.parts };
  // What it references is in the item read (the delete's condition covers a change since).
  if (read) {
    for (const ref of referencesOf(resource, dataOfItem(read))) {
      parts[ref.field] = counterUpdate(keys.item(ctx.workspaceId, ref.target.type, ref.id), counterOf(resource), -1);
    }
  }
  if (makesEvents(resource)) parts[DELETION] = deletionRecordPut(ctx.workspaceId, resource.type, id, ctx.requestId);
  const deleted: Deleted = { object: resource.kind, id, deleted: true };
  const cancelled = await transact<string>({ ...parts, ...recordPart(ctx, deleted) });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (cancelled.failed(ITEM_PART)) {
      const old = cancelled.item(ITEM_PART);
      if (options.atVersionRead && old !== undefined && read !== undefined && versionOf(old) !== versionOf(read) && matchesVersion(expectedVersion, versionOf(old))) return undefined;
      throw refusedDelete(ctx, resource, id, old, counters, expectedVersion);
    }
    throw new Error(`${resource.noun} delete cancelled: ${cancelled.codes.join(',')}`);
  }
  return deleted;
}

/**
 * Why a delete's condition failed: gone (404), changed (412) or still referenced (409). The 409
 * counts a referrer only for a token that could list it (its collection's read scope); to any
 * other it names what blocks the delete without a number, so a write-only token learns no count.
 */
function refusedDelete(ctx: CallerContext, resource: AnyResource, id: string, old: Record<string, unknown> | undefined, counters: string[], expectedVersion: IfMatch): Error {
  if (old === undefined) return notFound(resource.noun, id);
  if (!matchesVersion(expectedVersion, versionOf(old))) return preconditionFailed(resource.noun, id);
  const blockers = referrersOf(resource)
    .filter((r, i, all) => all.findIndex((x) => x.counter === r.counter) === i && counters.includes(r.counter))
    .map((r) => ({ count: Number(old[r.counter] ?? 0), referrer: r.resource }))
    .filter((b) => b.count > 0);
  if (blockers.length === 0) return new Error(`${resource.noun} delete refused, but the item returned explains nothing`);
  const named = blockers
    .map(({ count, referrer }) =>
      !ctx.scopes.includes(scopeFor(referrer.collection, 'list')) ? pluralOf(referrer) : `${count} ${count === 1 ? referrer.noun : pluralOf(referrer)}`,
    )
    .join(' and ');
  const noun = resource.noun.charAt(0).toUpperCase() + resource.noun.slice(1);
  const only = blockers.flatMap((b) => b.referrer.deletableOnly ?? []);
  return conflict(`${noun} ${id} still has ${named} and cannot be deleted. Delete those first${only.length > 0 ? ` (${only.join('; ')})` : ''}${resource.deleteHint ? `, or ${resource.deleteHint}` : ''}`);
}
