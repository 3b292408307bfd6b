/**
 * The local stream poller's trimmed reads and idle pauses (DynamoDB Local cannot be made to trim on
 * cue, and its reads cannot be counted, so its answers are mocked): the trimmed read DynamoDB Local
 * gives as a fresh stream starts skipped nothing and is not reported; one after a handled record
 * may have lost records and is, and the poller reads on after that record. An idle poller pauses
 * longer after each empty read, up to its ceiling, and a nudge ends an idle pause at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { startStreamPoller } from '../../infra/local/stream-poller.ts';

const table = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);
afterEach(() => {
  table.reset();
  streams.reset();
});

const trimmed = () => new TrimmedDataAccessException({ message: 'The operation attempted to read past the oldest stream record in a shard.', $metadata: {} });
const record = (sequence: string): StreamRecord => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: sequence, Keys: { PK: { S: 'a' } } } });

/** A poller over one shard whose GetRecords answers come from `answers` (then empty pages); what it handled and reported. */
async function pollWith(answers: (StreamRecord[] | Error)[], idle: { idleMs: number; maxIdleMs?: number; nudgeGapMs?: number } = { idleMs: 5 }) {
  table.on(DescribeTableCommand).resolves({ Table: { StreamSpecification: { StreamEnabled: true }, LatestStreamArn: 'arn:stream' } });
  streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
  streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'iterator' });
  let reads = streams.on(GetRecordsCommand);
  for (const answer of answers) reads = answer instanceof Error ? reads.rejectsOnce(answer) : reads.resolvesOnce({ Records: answer, NextShardIterator: 'iterator' });
  reads.resolves({ Records: [], NextShardIterator: 'iterator' });
  const handled: DynamoDBRecord[] = [];
  const reported: unknown[] = [];
  const poller = await startStreamPoller({
    client: new DynamoDBClient({ region: 'us-east-1' }),
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-1',
    tableName: 'table',
    ...idle,
    handle: async (records) => void handled.push(...records),
    onError: (error) => reported.push(error),
  });
  return { handled, reported, nudge: () => poller.nudge(), stop: () => poller.stop() };
}

describe('the local stream poller, on a trimmed read', () => {
  it("says nothing of a fresh stream's first read from its oldest record, and reads on", async () => {
    const run = await pollWith([trimmed(), [record('1')]]);
    try {
      await vi.waitFor(() => expect(run.handled).toHaveLength(1), { timeout: 30_000 });
      expect(run.reported).toEqual([]);
      expect(streams.commandCalls(GetShardIteratorCommand).map((call) => call.args[0].input.ShardIteratorType)).toEqual(['TRIM_HORIZON', 'TRIM_HORIZON']);
    } finally {
      await run.stop();
    }
  });

  it('reports one after a handled record, and reads on after that record', async () => {
    const run = await pollWith([[record('1')], trimmed(), [record('2')]]);
    try {
      await vi.waitFor(() => expect(run.handled).toHaveLength(2), { timeout: 30_000 });
      expect(run.reported).toHaveLength(1);
      expect((run.reported[0] as Error).name).toBe('TrimmedDataAccessException');
      const second = streams.commandCalls(GetShardIteratorCommand)[1]!.args[0].input;
      expect(second).toMatchObject({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '1' });
    } finally {
      await run.stop();
    }
  });
});

describe('the local stream poller, idle', () => {
  const reads = () => streams.commandCalls(GetRecordsCommand).length;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('pauses twice as long after each empty read, up to maxIdleMs, and from idleMs again once a read finds records', async () => {
    const run = await pollWith([], { idleMs: 10, maxIdleMs: 80 });
    try {
      await sleep(800);
      // At a steady 10 ms it would read about 80 times; doubling to 80 ms: 10, 20, 40, then every
      // 80 ms, about 12 reads (fewer on a loaded machine, never more).
      const idleReads = reads();
      expect(idleReads).toBeGreaterThanOrEqual(4);
      expect(idleReads).toBeLessThanOrEqual(20);
    } finally {
      await run.stop();
    }
  });

  it('reads at once when nudged in an idle pause, however long the pause', async () => {
    const run = await pollWith([], { idleMs: 60_000, nudgeGapMs: 0 });
    try {
      await vi.waitFor(() => expect(reads()).toBe(1), { timeout: 30_000 }); // the first read, then a minute's pause
      await sleep(200);
      expect(reads()).toBe(1);
      run.nudge();
      await vi.waitFor(() => expect(reads()).toBe(2), { timeout: 30_000 });
    } finally {
      await run.stop();
    }
  });

  it('reads no more often than once per nudgeGapMs, however often it is nudged', async () => {
    const run = await pollWith([], { idleMs: 60_000, nudgeGapMs: 100 });
    const nudging = setInterval(() => run.nudge(), 1); // a stack serving writes back to back
    try {
      await sleep(1000);
      // Read after every nudge, it would read hundreds of times; once per 100 ms, about 10 times
      // (fewer on a loaded machine, never more), and more than once: the nudges do wake it.
      expect(reads()).toBeGreaterThanOrEqual(2);
      expect(reads()).toBeLessThanOrEqual(12);
    } finally {
      clearInterval(nudging);
      await run.stop();
    }
  });
});
