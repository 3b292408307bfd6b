/**
 * Item helpers shared by every resource: the one consistent get, the conditions (the version's,
 * an item's presence), the parts of a transaction (put, delete, update, the counter update),
 * transactions whose parts are read by name, and reading the item DynamoDB hands back when a
 * condition fails. Code above data/ says which items and which conditions; these build the
 * DynamoDB inputs.
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

/** An item's API fields: its data map. */
export const dataOfItem = (item: Record<string, unknown>): Record<string, unknown> => (item[DATA_ATTRIBUTE] ?? {}) as Record<string, unknown>;

/** An expression with the attribute names (`#name`) and values (`:value`) it refers to. */
export interface Expression {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** What an item must satisfy for a write of it to happen. */
export type Condition = Expression;

/** The item exists. */
export const exists = (): Condition => ({ expression: 'attribute_exists(PK)', names: {}, values: {} });

/** No item is at the key: the put of a new one. */
export const absent = (): Condition => ({ expression: 'attribute_not_exists(PK)', names: {}, values: {} });

/** The item is still at the version read: any change since fails it. */
export const atVersion = (version: number): Condition => ({ expression: '#version = :read', names: { '#version': VERSION_ATTRIBUTE }, values: { ':read': version } });

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

/** `ExpressionAttributeNames`/`Values` of expressions, merged, leaving out the empty ones (DynamoDB refuses them). */
function attributesOf(...expressions: Expression[]) {
  const names: Record<string, string> = Object.assign({}, ...expressions.map((e) => e.names));
  const values: Record<string, unknown> = Object.assign({}, ...expressions.map((e) => e.values));
  return {
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What a write holds besides the item: its condition, and whether a failed one hands back the item as it was (for CancelledTransaction.item). */
export interface WriteOptions {
  condition?: Condition | undefined;
  returnItemOnFailure?: boolean;
}

/** A write's condition, the names and values of its expressions, and what a failed condition hands back. */
function writeInput({ condition, returnItemOnFailure }: WriteOptions, ...expressions: Expression[]) {
  return {
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ...attributesOf(...expressions, ...(condition ? [condition] : [])),
    ...(returnItemOnFailure ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
  };
}

/** A transaction's part that puts `item` (whole: it replaces whatever is at its key). */
export const putPart = (item: Record<string, unknown>, options: WriteOptions = {}): TransactItem => ({
  Put: { TableName: tableName(), Item: item, ...writeInput(options) },
});

/** A transaction's part that deletes the item at `key`. */
export const deletePart = (key: PrimaryKey, options: WriteOptions = {}): TransactItem => ({
  Delete: { TableName: tableName(), Key: key, ...writeInput(options) },
});

/** A transaction's part that changes the item at `key` by an update expression (update.ts, changeExpression). */
export const updatePart = (key: PrimaryKey, update: Expression, options: WriteOptions = {}): TransactItem => ({
  Update: { TableName: tableName(), Key: key, UpdateExpression: update.expression, ...writeInput(options, update) },
});

/** Adds `delta` to a counter of the item at `key` (DynamoDB starts a missing one at 0), on `condition` when given. */
export const addToCounter = (key: PrimaryKey, counter: string, delta: number, condition?: Condition): TransactItem =>
  updatePart(key, { expression: 'ADD #counter :delta', names: { '#counter': counter }, values: { ':delta': delta } }, { condition });

/**
 * Adds `delta` to a counter of an existing item (and whatever else `condition` requires of it).
 * Whatever version it is at: so a function that counts (an invoice's create) holds no If-Match condition.
 */
export const counterUpdate = (key: PrimaryKey, counter: string, delta: number, condition?: Condition): TransactItem =>
  addToCounter(key, counter, delta, allOf(exists(), ...(condition ? [condition] : [])));

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
export async function putNew(item: Record<string, unknown>): Promise<void> {
  try {
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: item, ...writeInput({ condition: absent(), returnItemOnFailure: true }) }));
  } catch (error) {
    const stored = itemOfConditionFailure(error);
    if (stored && createdAt(stored) !== undefined && createdAt(stored) === createdAt(item)) return;
    throw error;
  }
}

const createdAt = (item: Record<string, unknown>) => dataOfItem(item).created_at as string | undefined;

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

/** The part name of the item a change writes (its other parts are named for what they write). */
export const ITEM_PART = 'item';
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
