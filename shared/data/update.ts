/**
 * One conditional UpdateItem for PATCH: the item must exist, every extra condition must hold,
 * and `updated_at` must move forward. When two changes land in the same millisecond (or clocks
 * of two functions disagree) the write is retried with a time just after the stored one.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './dynamo.ts';
import { existsAtVersion, itemOfConditionFailure, matchesVersion, versionOf, type Condition } from './writes.ts';
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
}

export type UpdateOutcome =
  | { kind: 'updated'; item: Record<string, unknown> }
  | { kind: 'missing' }
  | { kind: 'precondition_failed' }
  | { kind: 'condition_failed'; item: Record<string, unknown> };

/** `SET #data.#f_a = :f_a, #a_b = :a_b, ...` for every field and attribute given. */
export function setExpression(fields: Record<string, unknown>, attributes: Record<string, unknown> = {}) {
  const names: Record<string, string> = { '#data': DATA_ATTRIBUTE };
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const add = (prefix: 'f' | 'a', name: string, value: unknown) => {
    if (value === undefined) return;
    names[`#${prefix}_${name}`] = name;
    values[`:${prefix}_${name}`] = value;
    sets.push(`${prefix === 'f' ? '#data.' : ''}#${prefix}_${name} = :${prefix}_${name}`);
  };
  for (const [name, value] of Object.entries(fields)) add('f', name, value);
  for (const [name, value] of Object.entries(attributes)) add('a', name, value);
  return { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/**
 * A retry happens only after another writer's change landed, so contention always makes progress;
 * with N concurrent changes the last one needs N - 1 retries. The cap only guards against a runaway.
 */
const MAX_CLOCK_RETRIES = 50;

export async function conditionalUpdate(update: ConditionalUpdate): Promise<UpdateOutcome> {
  let now = update.now;
  const expected = update.expectedVersion;
  const exists = existsAtVersion(expected);
  for (let attempt = 0; ; attempt++) {
    const parts = setExpression({ ...update.fields, updated_at: now.toISOString() }, update.attributes);
    const condition = [exists.expression, '#data.#f_updated_at < :f_updated_at', update.condition?.expression].filter(Boolean).join(' AND ');
    try {
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: update.key,
          // Every change bumps the version that ETag / If-Match compare.
          UpdateExpression: `${parts.UpdateExpression}, #version = if_not_exists(#version, :zero) + :one`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, ...exists.names, '#version': VERSION_ATTRIBUTE, ...update.condition?.names },
          ExpressionAttributeValues: {
            ...parts.ExpressionAttributeValues,
            ':zero': 0,
            ':one': 1,
            ...exists.values,
            ...update.condition?.values,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { kind: 'updated', item: out.Attributes ?? {} };
    } catch (error) {
      const old = itemOfConditionFailure(error);
      if (old === null) throw error;
      if (old === undefined) return { kind: 'missing' };
      const data = (old[DATA_ATTRIBUTE] as Record<string, unknown> | undefined) ?? {};
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

function holdsFields(item: Record<string, unknown>, fields: Record<string, unknown>): boolean {
  return Object.entries(fields).every(([name, value]) => value === undefined || JSON.stringify(item[name] ?? null) === JSON.stringify(value));
}
