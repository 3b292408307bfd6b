/**
 * The clock retry of PATCH under contention, which DynamoDB Local rarely produces on demand:
 * a mocked client fails the condition more times in a row than any fixed small cap.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

process.env.TABLE_NAME ??= 'unit-test-table';
const { conditionalUpdate } = await import('../../shared/data/update.ts');
const ddb = mockClient(DynamoDBDocumentClient);

const contended = (updatedAt: string) =>
  new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall({ PK: 'WS#a', SK: 'CLIENT#c', data: { updated_at: updatedAt } }) });

describe('conditionalUpdate', () => {
  beforeAll(() => ddb.reset());
  beforeEach(() => ddb.reset());

  it('keeps retrying with a later time while only updated_at is contended', async () => {
    const base = Date.parse('2026-11-21T09:00:00.000Z');
    const calls: string[] = [];
    let failures = 0;
    ddb.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => {
      const at = input.ExpressionAttributeValues[':f_updated_at']!;
      calls.push(at);
      if (failures < 7) {
        failures++;
        throw contended(new Date(base + failures * 5).toISOString());
      }
      return { Attributes: { data: { updated_at: at } } };
    });
    const outcome = await conditionalUpdate({ key: { PK: 'WS#a', SK: 'CLIENT#c' }, fields: { status: 'ACTIVE' }, now: new Date(base) });
    expect(outcome.kind).toBe('updated');
    expect(calls).toHaveLength(8);
    // Each retry is 1 ms after the stored time that beat it.
    expect(calls[1]).toBe(new Date(base + 5 + 1).toISOString());
    expect(calls[7]).toBe(new Date(base + 35 + 1).toISOString());
  });

  it('reports a missing item and a failed caller condition apart from contention', async () => {
    ddb.on(UpdateCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    expect((await conditionalUpdate({ key: { PK: 'WS#a', SK: 'CLIENT#c' }, fields: {}, now: new Date() })).kind).toBe('missing');
    ddb.reset();
    ddb.on(UpdateCommand).rejectsOnce(contended('2020-01-01T00:00:00.000Z'));
    const outcome = await conditionalUpdate({ key: { PK: 'WS#a', SK: 'CLIENT#c' }, fields: {}, now: new Date() });
    expect(outcome.kind).toBe('condition_failed');
  });
});

describe('conditionalUpdate with a record in its transaction (Idempotency-Key)', () => {
  beforeEach(() => ddb.reset());
  const key = { PK: 'WS#a', SK: 'CLIENT#c' };
  const stored = (version: number, name: string) => ({ ...key, version, data: { company_name: name, status: 'LEAD', updated_at: `2026-11-21T09:00:0${version}.000Z` } });
  /** A cancellation whose first part (the item) failed its condition, holding `item`. */
  const itemChanged = (item: Record<string, unknown>) =>
    new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: marshall(item) }, { Code: 'None' }] });
  const record = (after: Record<string, unknown>) => ({ Put: { TableName: 't', Item: { PK: 'R', SK: 'R', after } } });

  it('builds the record from the item as changed, and starts again from the item another change left in between', async () => {
    ddb.on(GetCommand).resolves({ Item: stored(1, 'Read') });
    const sent: any[] = [];
    ddb.on(TransactWriteCommand).callsFake((input: any) => {
      sent.push(input);
      if (sent.length === 1) throw itemChanged(stored(2, 'Meanwhile'));
      return {};
    });
    const now = new Date('2026-11-21T10:00:00.000Z');
    const outcome = await conditionalUpdate({ key, fields: { status: 'ACTIVE' }, now, record });
    expect(outcome.kind).toBe('updated');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1); // the cancellation's item, not a second read
    expect(sent.map((t) => t.TransactItems[0].Update.ExpressionAttributeValues[':seen'])).toEqual([1, 2]);
    const after = sent[1].TransactItems[1].Put.Item.after;
    expect(after).toMatchObject({ version: 3, data: { company_name: 'Meanwhile', status: 'ACTIVE', updated_at: now.toISOString() } });
    expect(outcome).toEqual({ kind: 'updated', item: after });
  });

  it('refuses If-Match on the item read, with no write; a missing item is missing; a taken key comes back with its record', async () => {
    ddb.on(GetCommand).resolves({ Item: stored(4, 'Read') });
    expect((await conditionalUpdate({ key, fields: { status: 'ACTIVE' }, expectedVersion: [3], now: new Date(), record })).kind).toBe('precondition_failed');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    ddb.on(GetCommand).resolves({});
    expect((await conditionalUpdate({ key, fields: { status: 'ACTIVE' }, now: new Date(), record })).kind).toBe('missing');
    ddb.on(GetCommand).resolves({ Item: stored(4, 'Read') });
    const theirs = { PK: 'R', SK: 'R', fingerprint: 'x' };
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: marshall(theirs) }] }),
    );
    expect(await conditionalUpdate({ key, fields: { status: 'ACTIVE' }, now: new Date(), record })).toEqual({ kind: 'record_taken', item: theirs });
  });

  it('moves updated_at past the stored one when the clock is behind it', async () => {
    ddb.on(GetCommand).resolves({ Item: stored(1, 'Read') });
    ddb.on(TransactWriteCommand).resolves({});
    const outcome = await conditionalUpdate({ key, fields: { status: 'ACTIVE' }, now: new Date('2020-01-01T00:00:00.000Z'), record });
    expect(outcome).toMatchObject({ kind: 'updated', item: { data: { updated_at: '2026-11-21T09:00:01.001Z' } } });
  });
});
