/**
 * Item helpers shared by every resource: the one consistent get, the version condition, the
 * counter update, transactions whose parts are read by name, and reading the item DynamoDB
 * hands back when a condition fails.
 */
import { ConditionalCheckFailedException, TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, tableName } from './dynamo.ts';
import type { PrimaryKey } from './keys.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from './table.ts';

/** The item at `key`, read strongly consistent; undefined when there is none. */
export async function getItem(key: PrimaryKey): Promise<Record<string, unknown> | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return out.Item;
}

export const versionOf = (item: Record<string, unknown>): number => Number(item[VERSION_ATTRIBUTE] ?? 0);

export interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** The item exists. */
const exists = (): Condition => ({ expression: 'attribute_exists(PK)', names: {}, values: {} });

/** The item exists, and (with If-Match) is still at one of the versions the caller names. */
export function existsAtVersion(ifMatch: readonly number[] | undefined): Condition {
  const version = versionCondition(ifMatch, '#version');
  return version === undefined
    ? exists()
    : { expression: `attribute_exists(PK) AND ${version.expression}`, names: { '#version': VERSION_ATTRIBUTE }, values: version.values };
}

/** True when an item at `version` satisfies If-Match (absent or `*`: any version does). */
export const matchesVersion = (ifMatch: readonly number[] | undefined, version: number): boolean => ifMatch === undefined || ifMatch.includes(version);

/** Conditions joined by AND, their names and values merged. */
export function allOf(...conditions: Condition[]): Condition {
  return {
    expression: conditions.map((c) => c.expression).join(' AND '),
    names: Object.assign({}, ...conditions.map((c) => c.names)),
    values: Object.assign({}, ...conditions.map((c) => c.values)),
  };
}

/** `ExpressionAttributeNames`/`Values` of a condition, leaving out the empty ones (DynamoDB refuses them). */
export function conditionParts(condition: Condition) {
  return {
    ConditionExpression: condition.expression,
    ...(Object.keys(condition.names).length > 0 ? { ExpressionAttributeNames: condition.names } : {}),
    ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
  };
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Adds `delta` to a counter of an existing item (and whatever else `condition` requires of it).
 * Whatever version it is at: so a function that counts (an invoice's create) holds no If-Match condition.
 */
export function counterUpdate(key: PrimaryKey, counter: string, delta: number, condition?: Condition): TransactItem {
  const required = allOf(exists(), ...(condition ? [condition] : []));
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #counter :delta',
      ConditionExpression: required.expression,
      ExpressionAttributeNames: { '#counter': counter, ...required.names },
      ExpressionAttributeValues: { ':delta': delta, ...required.values },
    },
  };
}

/** The item a failed condition returned (ReturnValuesOnConditionCheckFailure: ALL_OLD), if any. */
export function itemOfConditionFailure(error: unknown): Record<string, unknown> | undefined | null {
  if (error instanceof ConditionalCheckFailedException) {
    return error.Item ? unmarshall(error.Item) : undefined;
  }
  return null; // not a condition failure
}

/**
 * Puts a new item under a fresh id (`attribute_not_exists(PK)`). Nobody else can hold that key,
 * so a failed condition whose stored item is the one we wrote means the SDK retried an attempt
 * that had landed before it timed out: the put happened, once. Anything else is a real clash.
 */
export async function putNew(put: { TableName: string; Item: Record<string, unknown>; ConditionExpression: string }): Promise<void> {
  try {
    await dynamo().send(new PutCommand({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  } catch (error) {
    const stored = itemOfConditionFailure(error);
    if (stored && createdAt(stored) !== undefined && createdAt(stored) === createdAt(put.Item)) return;
    throw error;
  }
}

const createdAt = (item: Record<string, unknown>) => (item[DATA_ATTRIBUTE] as { created_at?: string } | undefined)?.created_at;

/** A transaction cancelled by a condition, read by the names its parts were given. */
export interface CancelledTransaction<N extends string> {
  /** True when the condition of this part failed. */
  failed(name: N): boolean;
  /** The item of this part when its condition failed (ALL_OLD), if it existed. */
  item(name: N): Record<string, unknown> | undefined;
  /** Every part's cancellation code, for the error of a cancellation nobody expected. */
  codes: (string | undefined)[];
}

const MAX_TRANSACTION_ATTEMPTS = 6;

/** The part name of the record a change writes beside it (an Idempotency-Key's, shared/http/idempotency.ts). */
export const RECORD_PART = 'record';

/**
 * Runs a transaction of named parts; retries (with jittered backoff) only when DynamoDB
 * cancelled it for a conflict with a concurrent transaction. A cancellation by a condition comes
 * back to the caller, which knows what each part's condition meant.
 */
export async function transact<N extends string>(parts: Record<N, TransactItem>): Promise<CancelledTransaction<N> | undefined> {
  const names = Object.keys(parts) as N[];
  const input = { TransactItems: names.map((name) => parts[name]) };
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand(input));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const codes = reasons.map((r) => (r.Code === 'None' ? undefined : r.Code));
      const conflicted = codes.includes('TransactionConflict');
      const conditionFailed = codes.includes('ConditionalCheckFailed');
      if (conflicted && !conditionFailed && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await sleep(Math.random() * 25 * 2 ** attempt);
        continue;
      }
      if (!conditionFailed) {
        // A conflict that outlasted our retries ends as a 503 (faults.ts); say how hard we tried.
        if (conflicted) error.$metadata = { ...error.$metadata, attempts: attempt };
        // Which parts met another transaction: a conflict on a change's record (RECORD_PART) means its key is in use.
        throw Object.assign(error, { conflictedParts: names.filter((_, i) => codes[i] === 'TransactionConflict') });
      }
      const at = (name: N) => names.indexOf(name);
      return {
        codes,
        failed: (name) => codes[at(name)] === 'ConditionalCheckFailed',
        item: (name) => {
          const item = reasons[at(name)]?.Item;
          return item ? unmarshall(item as Record<string, AttributeValue>) : undefined;
        },
      };
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The If-Match part of a condition expression over the attribute `ref` (e.g. `#version`):
 * `ref IN (:if_match_0, ...)`, with its values; none when there is no precondition. An empty
 * list compares with a version no item has, so it can only fail.
 */
export function versionCondition(ifMatch: readonly number[] | undefined, ref: string): { expression: string; values: Record<string, number> } | undefined {
  if (ifMatch === undefined) return undefined;
  const versions = ifMatch.length > 0 ? ifMatch : [-1];
  const values = Object.fromEntries(versions.map((version, i) => [`:if_match_${i}`, version]));
  return { expression: `${ref} IN (${Object.keys(values).join(', ')})`, values };
}
