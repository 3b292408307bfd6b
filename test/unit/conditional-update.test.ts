/**
 * The clock retry of PATCH under contention, which DynamoDB Local rarely produces on demand:
 * a mocked client fails the condition more times in a row than any fixed small cap.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
