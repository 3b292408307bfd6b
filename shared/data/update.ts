/**
 * One conditional UpdateItem for PATCH: the item must exist, every extra condition must hold,
 * and `updated_at` must move forward. When two changes land in the same millisecond (or clocks
 * of two functions disagree) the write is retried with a time just after the stored one. And the
 * update expression of any change of an item, from the fields and attributes it sets
 * (changeExpression), for this and for the other writes' parts (writes.ts, updatePart).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './dynamo.ts';
import {
  allOf,
  dataOfItem,
  existsAtVersion,
  getItem,
  itemOfConditionFailure,
  ITEM_PART,
  matchesVersion,
  RECORD_PART,
  transact,
  versionOf,
  type Condition,
  type Expression,
  type TransactItem,
} from './writes.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from './table.ts';
import type { PrimaryKey } from './keys.ts';

export interface ConditionalUpdate {
  key: PrimaryKey;
  /** API fields to set in the item's data map (null clears). `updated_at` is added here. */
  fields: Record<string, unknown>;
  /** Item attributes to set beside the data map (index keys, the search field). */
  attributes?: Record<string, unknown>;
  /** Extra condition; it may use `#f_<field>`/`:f_<field>` of each field sent, and `#data` (the data map). */
  condition?: Partial<Condition> & { expression: string };
  /** If-Match: the versions the caller names; the write happens only if one is still current. */
  expectedVersion?: readonly number[] | undefined;
  now: Date;
  /** A record written in the change's transaction (an Idempotency-Key's), built from the item as changed. */
  record?: (after: Record<string, unknown>) => TransactItem;
}

export type UpdateOutcome =
  | { kind: 'updated'; item: Record<string, unknown> }
  | { kind: 'missing' }
  | { kind: 'precondition_failed' }
  | { kind: 'condition_failed'; item: Record<string, unknown> }
  /** The record's key holds another record: nothing was changed. */
  | { kind: 'record_taken'; item: Record<string, unknown> | undefined };

/** A change of an item: fields of its data map and attributes beside it set, numbers added, attributes removed, its version moved on. */
export interface ItemChange {
  /** API fields to set in the item's data map. */
  fields?: Record<string, unknown>;
  /** Item attributes to set beside the data map (index keys, the search field). */
  attributes?: Record<string, unknown>;
  /** Numbers to add to attributes (counters). */
  add?: Record<string, number>;
  /** Attributes to remove. */
  remove?: readonly string[];
  /** The version that ETag and If-Match compare moves on by one. */
  bumpVersion?: boolean;
}

/**
 * The update expression of a change: `SET #data.#f_a = :f_a, #a_b = :a_b[, #version = …] ADD
 * #n_c :n_c REMOVE #r_d`, naming only what it uses (DynamoDB refuses unused names). A value left
 * undefined is not set.
 */
export function changeExpression(change: ItemChange): Expression {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const set = (prefix: 'f' | 'a', name: string, value: unknown) => {
    if (value === undefined) return;
    names[`#${prefix}_${name}`] = name;
    values[`:${prefix}_${name}`] = value;
    sets.push(`${prefix === 'f' ? '#data.' : ''}#${prefix}_${name} = :${prefix}_${name}`);
  };
  for (const [name, value] of Object.entries(change.fields ?? {})) set('f', name, value);
  if (sets.length > 0) names['#data'] = DATA_ATTRIBUTE;
  for (const [name, value] of Object.entries(change.attributes ?? {})) set('a', name, value);
  if (change.bumpVersion) {
    sets.push('#version = if_not_exists(#version, :zero) + :one');
    names['#version'] = VERSION_ATTRIBUTE;
    Object.assign(values, { ':zero': 0, ':one': 1 });
  }
  const adds = Object.entries(change.add ?? {}).map(([name, delta]) => {
    names[`#n_${name}`] = name;
    values[`:n_${name}`] = delta;
    return `#n_${name} :n_${name}`;
  });
  const removes = (change.remove ?? []).map((name) => {
    names[`#r_${name}`] = name;
    return `#r_${name}`;
  });
  const clauses = [sets.length > 0 ? `SET ${sets.join(', ')}` : '', adds.length > 0 ? `ADD ${adds.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : ''];
  return { expression: clauses.filter(Boolean).join(' '), names, values };
}

/**
 * A retry happens only after another writer's change landed, so contention always makes progress;
 * with N concurrent changes the last one needs N - 1 retries. The cap only guards against a runaway.
 */
const MAX_CLOCK_RETRIES = 50;

/** The UpdateItem's expressions: the fields and attributes, `updated_at`, the version bump, and the conditions. */
function updateParts(update: ConditionalUpdate, now: Date, also: Condition[] = []) {
  // Every change bumps the version that ETag / If-Match compare.
  const change = changeExpression({ fields: { ...update.fields, updated_at: now.toISOString() }, attributes: update.attributes, bumpVersion: true });
  const exists = existsAtVersion(update.expectedVersion);
  const extra = allOf(...also);
  const condition = [exists.expression, '#data.#f_updated_at < :f_updated_at', update.condition?.expression, ...(also.length > 0 ? [extra.expression] : [])]
    .filter(Boolean)
    .join(' AND ');
  return {
    TableName: tableName(),
    Key: update.key,
    UpdateExpression: change.expression,
    ConditionExpression: condition,
    ExpressionAttributeNames: { ...change.names, ...exists.names, ...update.condition?.names, ...extra.names },
    ExpressionAttributeValues: { ...change.values, ...exists.values, ...update.condition?.values, ...extra.values },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

export async function conditionalUpdate(update: ConditionalUpdate): Promise<UpdateOutcome> {
  if (update.record) return updateWithRecord(update, update.record);
  let now = update.now;
  const expected = update.expectedVersion;
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await dynamo().send(new UpdateCommand({ ...updateParts(update, now), ReturnValues: 'ALL_NEW' }));
      return { kind: 'updated', item: out.Attributes ?? {} };
    } catch (error) {
      const old = itemOfConditionFailure(error);
      if (old === null) throw error;
      if (old === undefined) return { kind: 'missing' };
      const data = dataOfItem(old);
      // The SDK retried an attempt that timed out after it was written (budget.ts): the item
      // holds exactly our change, at our timestamp. That is our update, not a conflict.
      if (data.updated_at === now.toISOString() && holdsFields(data, update.fields)) return { kind: 'updated', item: old };
      if (!matchesVersion(expected, versionOf(old))) return { kind: 'precondition_failed' };
      const storedUpdatedAt = Date.parse(String(data.updated_at));
      if (storedUpdatedAt >= now.getTime()) {
        // Not a failed condition of the caller's: reporting one would turn into a wrong 404 or 400.
        if (attempt >= MAX_CLOCK_RETRIES) throw new Error(`updated_at still contended after ${attempt} retries`);
        now = new Date(storedUpdatedAt + 1);
        continue;
      }
      return { kind: 'condition_failed', item: old };
    }
  }
}

/**
 * The change with a record in its transaction. A transaction hands back no new item, and the
 * record holds the answer, so the item is read first (strongly consistent) and changed here; the
 * write is conditional on the version read, and a change that landed in between (its item comes
 * back with the cancellation) makes it start again from that item. A retry of a transaction
 * that timed out after it landed carries the same ClientRequestToken: DynamoDB applies it once.
 */
async function updateWithRecord(update: ConditionalUpdate, record: (after: Record<string, unknown>) => TransactItem): Promise<UpdateOutcome> {
  let current = await getItem(update.key);
  for (let attempt = 0; ; attempt++) {
    if (current === undefined) return { kind: 'missing' };
    const seen = versionOf(current);
    if (!matchesVersion(update.expectedVersion, seen)) return { kind: 'precondition_failed' };
    const data = dataOfItem(current);
    // updated_at moves forward, also when clocks disagree (as conditionalUpdate's retries do).
    const now = new Date(Math.max(update.now.getTime(), Date.parse(String(data.updated_at)) + 1));
    const after = {
      ...current,
      ...definedOnly(update.attributes ?? {}),
      [DATA_ATTRIBUTE]: { ...data, ...definedOnly(update.fields), updated_at: now.toISOString() },
      [VERSION_ATTRIBUTE]: seen + 1,
    };
    const atSeen = { expression: '#version = :seen', names: { '#version': VERSION_ATTRIBUTE }, values: { ':seen': seen } };
    const cancelled = await transact({ [ITEM_PART]: { Update: updateParts(update, now, [atSeen]) }, [RECORD_PART]: record(after) });
    if (!cancelled) return { kind: 'updated', item: after };
    if (cancelled.failed(RECORD_PART)) return { kind: 'record_taken', item: cancelled.item(RECORD_PART) };
    const old = cancelled.item(ITEM_PART);
    if (old !== undefined && versionOf(old) !== seen) {
      if (attempt >= MAX_CLOCK_RETRIES) throw new Error(`version still contended after ${attempt} retries`);
      current = old;
      continue;
    }
    return old === undefined ? { kind: 'missing' } : { kind: 'condition_failed', item: old };
  }
}

const definedOnly = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));

function holdsFields(item: Record<string, unknown>, fields: Record<string, unknown>): boolean {
  return Object.entries(fields).every(([name, value]) => value === undefined || JSON.stringify(item[name] ?? null) === JSON.stringify(value));
}
