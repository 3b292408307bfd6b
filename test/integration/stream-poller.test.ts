/**
 * The local stream poller (infra/local/stream-poller.ts) over a DynamoDB Local of its own: every
 * record handed over once, in order, in Lambda's shape; a failing batch retried, never skipped;
 * stop() lets the batch in hand finish; a restart with the checkpoint reads on after the last
 * handled record, and one of another stream is ignored.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamPoller, type StreamPoller } from '../../infra/local/stream-poller.ts';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { startLocalTable, type LocalTable } from '../support/local-table.ts';
import { waitFor } from '../support/events.ts';
import { removeTempDirs, tempDir } from '../support/temp-dirs.ts';

const TABLE_NAME = 'poller-test';
let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable(TABLE_NAME);
});
afterAll(async () => table?.stop());
afterAll(removeTempDirs);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const put = (pk: string, n: number) => table.db.send(new PutCommand({ TableName: TABLE_NAME, Item: { PK: pk, SK: `N#${String(n).padStart(3, '0')}`, n } }));
const numbers = (records: DynamoDBRecord[], pk: string) => records.filter((r) => r.dynamodb?.Keys?.PK?.S === pk).map((r) => Number(r.dynamodb?.NewImage?.n?.N));

function poller(handle: (records: DynamoDBRecord[]) => Promise<void>, checkpointFile?: string, errors: unknown[] = [], batchSize?: number): Promise<StreamPoller> {
  return startStreamPoller({
    ...(batchSize ? { batchSize } : {}),
    client: table.client,
    endpoint: table.local.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    tableName: TABLE_NAME,
    handle,
    idleMs: 20,
    onError: (error) => errors.push(error),
    ...(checkpointFile ? { checkpointFile } : {}),
  });
}

describe('the local stream poller', () => {
  it('hands every change over once, in order, as Lambda would; a failing batch is retried, not skipped', async () => {
    const seen: DynamoDBRecord[] = [];
    let failures = 1;
    const errors: unknown[] = [];
    const running = await poller(async (records) => {
      if (records.some((r) => r.dynamodb?.Keys?.PK?.S === 'order') && failures-- > 0) throw new Error('consumer failed');
      seen.push(...records);
    }, undefined, errors);
    try {
      for (let n = 1; n <= 5; n++) await put('order', n);
      await waitFor(async () => (numbers(seen, 'order').length >= 5 ? true : undefined), 'five records');
      await sleep(200);
      expect(numbers(seen, 'order')).toEqual([1, 2, 3, 4, 5]);
      // The consumer's failure, once; besides it, at most one trimmed read after a handled record
      // (DynamoDB Local's read past a fresh stream's start is not reported: stream-poller-trimmed.test.ts),
      // after which the poller takes a new iterator.
      expect(errors.filter((e) => (e as Error).message === 'consumer failed')).toHaveLength(1);
      const trimmed = errors.filter((e) => (e as Error).name === 'TrimmedDataAccessException');
      expect(trimmed.length).toBeLessThanOrEqual(1); // a kept iterator would fail on every retry
      expect(errors).toHaveLength(1 + trimmed.length);
      const record = seen.find((r) => r.dynamodb?.Keys?.PK?.S === 'order')!;
      expect(record).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { SequenceNumber: expect.any(String), StreamViewType: 'NEW_AND_OLD_IMAGES' } });
      expect(record.dynamodb!.ApproximateCreationDateTime).toBeGreaterThan(Date.now() / 1000 - 120);
      expect(record.dynamodb!.ApproximateCreationDateTime).toBeLessThan(Date.now() / 1000 + 5);
    } finally {
      await running.stop();
    }
  });

  it("hands over batches no larger than the consumer's batch size", async () => {
    const sizes: number[] = [];
    const seen: DynamoDBRecord[] = [];
    // From the stream's start (no checkpoint): any earlier test's records come first, then these.
    const running = await poller(async (records) => {
      sizes.push(records.length);
      seen.push(...records);
    }, undefined, [], 2);
    try {
      await running.pause(); // the five records wait in the stream together
      for (let n = 1; n <= 5; n++) await put('batch', n);
      running.resume();
      await waitFor(async () => (numbers(seen, 'batch').length >= 5 ? true : undefined), 'five records');
      expect(numbers(seen, 'batch')).toEqual([1, 2, 3, 4, 5]);
      expect(Math.max(...sizes)).toBe(2);
    } finally {
      await running.stop();
    }
  });

  it('finishes the batch in hand on stop, and a restart with its checkpoint reads on after the last handled record', async () => {
    const checkpointFile = join(tempDir('poller-'), 'checkpoint.json');
    const firstSeen: DynamoDBRecord[] = [];
    let inHand: (() => void) | undefined;
    const first = await poller(async (records) => {
      if (records.some((r) => r.dynamodb?.Keys?.PK?.S === 'restart')) {
        await new Promise<void>((resolve) => {
          inHand = resolve;
          setTimeout(resolve, 300); // a slow consumer: the stop comes while it works
        });
      }
      firstSeen.push(...records);
    }, checkpointFile);
    await put('restart', 1);
    await waitFor(async () => (inHand ? true : undefined), 'the batch in hand');
    await first.stop();
    expect(numbers(firstSeen, 'restart')).toEqual([1]); // finished, not abandoned

    await put('restart', 2);
    await put('restart', 3);
    const secondSeen: DynamoDBRecord[] = [];
    const second = await poller(async (records) => void secondSeen.push(...records), checkpointFile);
    try {
      await waitFor(async () => (numbers(secondSeen, 'restart').length >= 2 ? true : undefined), 'the records written while stopped');
      await sleep(200);
      expect(numbers(secondSeen, 'restart')).toEqual([2, 3]);
    } finally {
      await second.stop();
    }
  });

  it('reads from the oldest record again when the checkpoint is of another stream (a new table)', async () => {
    const checkpointFile = join(tempDir('poller-'), 'checkpoint.json');
    await put('other', 1);
    const firstSeen: DynamoDBRecord[] = [];
    const first = await poller(async (records) => void firstSeen.push(...records), checkpointFile);
    await waitFor(async () => (numbers(firstSeen, 'other').length >= 1 ? true : undefined), 'the record');
    await first.stop();
    const saved = JSON.parse(readFileSync(checkpointFile, 'utf8'));
    expect(Object.keys(saved.positions).length).toBeGreaterThan(0);
    writeFileSync(checkpointFile, JSON.stringify({ ...saved, streamArn: `${saved.streamArn}-of-an-older-table` }));

    const seen: DynamoDBRecord[] = [];
    const second = await poller(async (records) => void seen.push(...records), checkpointFile);
    try {
      await waitFor(async () => (numbers(seen, 'other').length >= 1 ? true : undefined), 'the record read again');
      expect(numbers(seen, 'other')).toEqual([1]);
    } finally {
      await second.stop();
    }
  });
});
