/**
 * Many items read or put outside a transaction (BatchGetItem, BatchWriteItem): DynamoDB may leave
 * some unprocessed under load, so each call is repeated, after a growing pause, for those alone
 * until it has taken every one.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RETRY_AFTER_SECONDS, serviceUnavailable } from '../core/errors.ts';
import { dynamo, tableName } from './dynamo.ts';
import type { PrimaryKey } from './keys.ts';

/** BatchWriteItem takes at most 25 items. */
const BATCH_WRITE_ITEMS = 25;
const MAX_BATCH_WRITE_ATTEMPTS = 8;
/** BatchGetItem takes at most 100 keys. */
const BATCH_READ_KEYS = 100;
/** Rounds of a batch read's unprocessed keys before it answers 503. */
const MAX_BATCH_READ_ROUNDS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The items at `keys`, read strongly consistent, 100 keys per BatchGetItem, in no particular
 * order; a key with no item is left out. 503 when DynamoDB keeps leaving keys unprocessed.
 */
export async function readItems(keys: readonly PrimaryKey[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += BATCH_READ_KEYS) found.push(...(await readBatchOfItems(keys.slice(start, start + BATCH_READ_KEYS))));
  return found;
}

/** One BatchGetItem of at most 100 keys, repeated for the keys it leaves unprocessed. */
async function readBatchOfItems(keys: readonly PrimaryKey[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let keysLeft: Record<string, unknown>[] = keys.map((key) => ({ ...key }));
  for (let round = 0; keysLeft.length > 0; round++) {
    if (round > 0) await sleep(Math.min(1000, 25 * 2 ** round));
    const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keysLeft, ConsistentRead: true } } }));
    found.push(...(out.Responses?.[tableName()] ?? []));
    keysLeft = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, unknown>[];
    if (round + 1 >= MAX_BATCH_READ_ROUNDS && keysLeft.length > 0) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy);
  }
  return found;
}

/** Puts items outside a transaction, 25 at a time, until DynamoDB has taken every one. */
export async function putItems(items: readonly Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_WRITE_ITEMS) {
    let requests = items.slice(start, start + BATCH_WRITE_ITEMS).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > MAX_BATCH_WRITE_ATTEMPTS) throw new Error(`DynamoDB left ${requests.length} items unwritten after ${MAX_BATCH_WRITE_ATTEMPTS} attempts`);
      if (attempt > 1) await sleep(Math.random() * 25 * 2 ** attempt);
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (out.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
}
