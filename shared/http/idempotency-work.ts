/**
 * The `Idempotency-Key` of a change made in several transactions (an invoice's create, decision
 * 0023): its first transaction puts a marker at the key, naming the work, on the record's own
 * condition; its last replaces the marker with the record; a refusal after all deletes the
 * marker. A marker is never replayed (idempotency.ts answers 409 while one is there): a retry of
 * the same request finds the work it names and finishes it. Apart from idempotency.ts, so that
 * only the functions that make such changes carry it.
 */
import { tableName } from '../data/dynamo.ts';
import type { TransactItem } from '../data/writes.ts';
import type { ChangeRecord, Outcome } from '../domain/context.ts';
import { PENDING_ATTRIBUTE, recordPut } from './idempotency.ts';

/** The condition that the key still holds this change's own marker. */
const ownMarker = (workId: string) => ({
  ConditionExpression: '#pending = :pending',
  ExpressionAttributeNames: { '#pending': PENDING_ATTRIBUTE },
  ExpressionAttributeValues: { ':pending': workId },
});

/** The marker its first transaction puts (on the record's condition: the key holds no live record). */
export const pendingRecord = (record: ChangeRecord, workId: string): TransactItem =>
  recordPut(record.key, { ...record.stored(), [PENDING_ATTRIBUTE]: workId }, Date.now());

/** The record that replaces the marker in the change's last transaction (on the marker still being there). */
export const sealedRecord = (record: ChangeRecord, outcome: Outcome, workId: string): TransactItem => ({
  // The record's Put (its item, expiry and ALL_OLD), on the marker's condition instead of the record's.
  Put: { ...record.write(outcome).Put!, ...ownMarker(workId) },
});

/** The marker's Delete, when the change ends in a refusal after all (on the marker still being there). */
export const discardedRecord = (record: ChangeRecord, workId: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: record.key, ...ownMarker(workId) },
});

/** What a stored marker names, when it is one and was put for this same request (else undefined). */
export function pendingWorkOf(record: ChangeRecord, stored: Record<string, unknown>): string | undefined {
  const work = stored[PENDING_ATTRIBUTE];
  return typeof work === 'string' && stored.fingerprint === record.stored().fingerprint ? work : undefined;
}
