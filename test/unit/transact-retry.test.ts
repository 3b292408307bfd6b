/**
 * transact retries a transaction that DynamoDB cancelled for a conflict with another
 * transaction (DynamoDB Local never produces one, so the client is mocked here), and hands
 * condition failures back to the caller without retrying.
 */
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

Object.assign(process.env, {
  TABLE_NAME: 'timebill-unit',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
});
const { transact } = await import('../../shared/data/writes.ts');

const ddb = mockClient(DynamoDBDocumentClient);

const cancelled = (...reasons: CancellationReason[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    $metadata: {},
    CancellationReasons: reasons,
  });

const NONE: CancellationReason = { Code: 'None' };
const CONFLICT: CancellationReason = { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' };
const CONDITION: CancellationReason = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };

const parts = {
  project: { Put: { TableName: 'timebill-unit', Item: { PK: 'WS#a', SK: 'PROJECT#p' }, ConditionExpression: 'attribute_not_exists(PK)' } },
  client: {
    Update: {
      TableName: 'timebill-unit',
      Key: { PK: 'WS#a', SK: 'CLIENT#c' },
      UpdateExpression: 'ADD project_count :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  },
};
const input: TransactWriteCommandInput = { TransactItems: [parts.project, parts.client] };

describe('transact', () => {
  beforeAll(() => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // no backoff wait unless a test asks for one
  });
  afterAll(() => {
    vi.restoreAllMocks();
    ddb.restore();
  });
  beforeEach(() => {
    ddb.reset();
    vi.mocked(Math.random).mockReturnValue(0);
  });

  it('retries a transaction cancelled twice for a conflict, then succeeds', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(NONE, CONFLICT))
      .rejectsOnce(cancelled(CONFLICT, NONE))
      .resolvesOnce({});
    await expect(transact(parts)).resolves.toBeUndefined();
    const calls = ddb.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.args[0].input).toEqual(input);
  });

  it('backs off between attempts', async () => {
    vi.mocked(Math.random).mockReturnValue(1);
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled(CONFLICT, NONE)).rejectsOnce(cancelled(CONFLICT, NONE)).resolvesOnce({});
    const started = Date.now();
    await expect(transact(parts)).resolves.toBeUndefined();
    // 25 * 2^1 + 25 * 2^2 ms at the top of the jitter.
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('returns a condition failure at once, with its codes and items, without retrying', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled({ ...CONDITION, Item: { PK: { S: 'WS#a' }, time_entry_count: { N: '2' } } }, NONE));
    const result = await transact(parts);
    expect(result?.codes).toEqual(['ConditionalCheckFailed', undefined]);
    expect(result?.failed('project')).toBe(true);
    expect(result?.failed('client')).toBe(false);
    expect(result?.item('project')).toEqual({ PK: 'WS#a', time_entry_count: 2 });
    expect(result?.item('client')).toBeUndefined();
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('returns a condition failure that comes with a conflict without retrying', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(CONFLICT, CONDITION));
    const result = await transact(parts);
    expect(result?.codes).toEqual(['TransactionConflict', 'ConditionalCheckFailed']);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('returns a condition failure that follows a conflict, after one retry', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled(CONFLICT, NONE)).rejectsOnce(cancelled(NONE, CONDITION));
    const result = await transact(parts);
    expect(result?.codes).toEqual([undefined, 'ConditionalCheckFailed']);
    expect(result?.failed('client')).toBe(true);
    expect(result?.failed('project')).toBe(false);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('gives up on a conflict that never clears, and throws it', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(CONFLICT, NONE));
    await expect(transact(parts)).rejects.toBeInstanceOf(TransactionCanceledException);
    const attempts = ddb.commandCalls(TransactWriteCommand).length;
    expect(attempts).toBeGreaterThan(2);
    expect(attempts).toBeLessThanOrEqual(10);
  });

  it('throws other cancellations and other errors without retrying', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled({ Code: 'ValidationError', Message: 'bad' }, NONE));
    await expect(transact(parts)).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);

    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(new Error('socket hang up'));
    await expect(transact(parts)).rejects.toThrow('socket hang up');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});
