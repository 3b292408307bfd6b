/**
 * Where an `Idempotency-Key`'s record is kept and how its writes are built (decision 0015): the
 * record's Put is a part of the change's own transaction, on condition that the key holds no live
 * record. A change made in several transactions (an invoice's create, decision 0023) puts a marker
 * first, naming its work, and replaces it with the record in its last transaction, or deletes it
 * when it ends in a refusal after all. What a record holds and when it is replayed is the HTTP
 * frame's (shared/http/idempotency.ts).
 */
import { tableName } from './dynamo.ts';
import type { PrimaryKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { getItem, type TransactItem } from './writes.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** A multi-transaction change's marker: it names the work, and is never replayed. */
export const PENDING_ATTRIBUTE = 'pending';

/** The record's Put, part of the change's transaction: only where the key holds no live record. */
export function recordPut(key: PrimaryKey, record: Record<string, unknown>, now: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...key, ...record, [TTL_ATTRIBUTE]: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS },
      // DynamoDB's TTL deletes expired items late (up to days): an expired record counts as none.
      ConditionExpression: 'attribute_not_exists(PK) OR #expires < :now',
      ExpressionAttributeNames: { '#expires': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The condition that the key still holds this change's own marker. */
const ownMarker = (workId: string) => ({
  ConditionExpression: '#pending = :pending',
  ExpressionAttributeNames: { '#pending': PENDING_ATTRIBUTE },
  ExpressionAttributeValues: { ':pending': workId },
});

/** The marker a change's first transaction puts, on the record's own condition. */
export const markerPut = (key: PrimaryKey, stored: Record<string, unknown>, workId: string): TransactItem =>
  recordPut(key, { ...stored, [PENDING_ATTRIBUTE]: workId }, Date.now());

/** The record that replaces the marker in the change's last transaction, on the marker still being there. */
export const recordOverMarker = (key: PrimaryKey, record: Record<string, unknown>, workId: string): TransactItem => ({
  Put: { ...recordPut(key, record, Date.now()).Put!, ...ownMarker(workId) },
});

/** The marker's Delete, when the change ends in a refusal after all (on the marker still being there). */
export const markerDelete = (key: PrimaryKey, workId: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: key, ...ownMarker(workId) },
});

/** The work a stored marker names (undefined for a record). */
export function markedWorkOf(stored: Record<string, unknown>): string | undefined {
  const work = stored[PENDING_ATTRIBUTE];
  return typeof work === 'string' ? work : undefined;
}

/** A record counts until its expiry, whenever DynamoDB's TTL deletes it. */
export const isLive = (item: Record<string, unknown> | undefined): item is Record<string, unknown> =>
  item !== undefined && Number(item[TTL_ATTRIBUTE]) >= Math.floor(Date.now() / 1000);

/** The live record at the key, if one is there. */
export async function liveRecord(key: PrimaryKey): Promise<Record<string, unknown> | undefined> {
  const stored = await getItem(key);
  return isLive(stored) ? stored : undefined;
}
