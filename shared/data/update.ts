/**
 * One conditional UpdateItem for PATCH: the item must exist, every extra condition must hold,
 * and `updated_at` must move forward. When two changes land in the same millisecond (or clocks
 * of two functions disagree) the write is retried with a time just after the stored one.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './dynamo.ts';
import { itemOfConditionFailure, setExpression, versionCondition } from './writes.ts';
import type { PrimaryKey } from './keys.ts';

export interface ConditionalUpdate {
  key: PrimaryKey;
  /** Attributes to set (null clears). `updated_at` is added here. */
  fields: Record<string, unknown>;
  /** Extra condition over `#name`s of `fields`/`names` and `:value`s of `fields`/`values`. */
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /** If-Match: the versions the caller names; the write happens only if one is still current. */
  expectedVersion?: readonly number[] | undefined;
  now: Date;
}

export type UpdateOutcome =
  | { kind: 'updated'; item: Record<string, unknown> }
  | { kind: 'missing' }
  | { kind: 'precondition_failed' }
  | { kind: 'condition_failed'; item: Record<string, unknown> };

/**
 * A retry happens only after another writer's change landed, so contention always makes progress;
 * with N concurrent changes the last one needs N - 1 retries. The cap only guards against a runaway.
 */
const MAX_CLOCK_RETRIES = 50;

export async function conditionalUpdate(update: ConditionalUpdate): Promise<UpdateOutcome> {
  let now = update.now;
  for (let attempt = 0; ; attempt++) {
    const parts = setExpression({ ...update.fields, updated_at: now.toISOString() });
    const expected = update.expectedVersion;
    const ifMatch = versionCondition(expected, '#version');
    const condition = [
      'attribute_exists(PK)',
      '#updated_at < :updated_at',
      ifMatch?.expression,
      update.condition?.expression,
    ]
      .filter(Boolean)
      .join(' AND ');
    try {
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: update.key,
          // Every change bumps the version that ETag / If-Match compare.
          UpdateExpression: `${parts.UpdateExpression}, #version = if_not_exists(#version, :zero) + :one`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, '#version': 'version', ...update.condition?.names },
          ExpressionAttributeValues: {
            ...parts.ExpressionAttributeValues,
            ':zero': 0,
            ':one': 1,
            ...ifMatch?.values,
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
      if (expected !== undefined && !expected.includes(Number(old.version ?? 0))) return { kind: 'precondition_failed' };
      const storedUpdatedAt = Date.parse(String(old.updated_at));
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
