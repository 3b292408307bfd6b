/**
 * The local stand-in for Lambda's DynamoDB Streams event source mapping: reads DynamoDB Local's
 * stream of the table with @aws-sdk/client-dynamodb-streams and hands each batch, in shard order,
 * to the same consumer handler AWS invokes. A batch that fails is retried until it succeeds
 * (records are never skipped); the next batch is read only after the handler returned. stop()
 * lets the batch in hand finish, so what the consumer acknowledged is written.
 *
 * Like the event source mapping, it keeps its place: given a checkpoint file (in DATA_DIR), it
 * writes each shard's last handled sequence number there after each batch, and a restart reads
 * on after it (AFTER_SEQUENCE_NUMBER). Without one, or when the checkpoint no longer names a
 * readable place, it starts at the stream's oldest record (TRIM_HORIZON); replayed records make
 * no second event (the consumer is idempotent) but their deliveries are queued again.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { TABLE } from '../../shared/data/table.ts';
import { waitAtMost } from './wait.ts';

export interface StreamPollerOptions {
  client: DynamoDBClient;
  endpoint: string;
  region: string;
  tableName: string;
  /** The consumer: given a Lambda-shaped batch; throws to have it retried. */
  handle: (records: DynamoDBRecord[]) => Promise<void>;
  /** Records per batch at most, as the event source mapping's BatchSize (Lambda's default, 100). */
  batchSize?: number;
  /**
   * Pause after a poll that found nothing; it doubles with each further empty poll, up to
   * `maxIdleMs`, and starts again from `idleMs` once a poll finds records or `nudge()` is called.
   * An idle stack then reads its stream about once a second instead of ten times (each read costs
   * DynamoDB Local and this process CPU: about a tenth of a core, idle, at 100 ms), while a write
   * the stack knows of is read at once, or `nudgeGapMs` after the last read began (it nudges after
   * each write request).
   */
  idleMs?: number;
  maxIdleMs?: number;
  /**
   * The least time from one read's start to the next when nudged (100 ms by default): a stack
   * serving write requests back to back reads at most ten times a second, not after each request.
   */
  nudgeGapMs?: number;
  onError?: (error: unknown) => void;
  /** Where the poller keeps its place across restarts (DATA_DIR only). */
  checkpointFile?: string;
}

/** The poller's place in one stream: each shard's last handled record, and the shards read to their end. */
interface Checkpoint {
  streamArn: string;
  positions: Record<string, string>;
  finished: string[];
}

export interface StreamPoller {
  stop(): Promise<void>;
  /**
   * Stops reading after the batch in hand (resolves then) until resume(); records wait in the
   * stream meanwhile. For the benchmark, whose measurements must see only the calls they make.
   */
  pause(): Promise<void>;
  resume(): void;
  /** Records may have been written: the next read comes `nudgeGapMs` after the last one began (at once, if that is past), and the idle pause starts short again. */
  nudge(): void;
}

const DEFAULT_BATCH_SIZE = 100;
const RETRY_MS = 500;
const STOP_WAIT_MS = 3000;
/** GetRecords errors after which its iterator is no use (DynamoDB Local also gives the first one, once, as a fresh stream starts: see `skippedNothing`). */
const UNUSABLE_ITERATOR = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A DynamoDB Local that stopped answering must not hold the poller: a read is abandoned (and
    // retried) after 30 s, far beyond a loaded machine's slowest answer (3 s was passed under two
    // test suites at once; without throwOnRequestTimeout the SDK only warned and waited on). The
    // stack's stop does not wait for it (STOP_WAIT_MS).
    requestHandler: { connectionTimeout: 1000, requestTimeout: 30_000, throwOnRequestTimeout: true },
  });
  // As for the table's client (shared/data/dynamo.ts): the SDK's logger middleware would copy
  // every GetRecords output, both images of each record, through its schema for a logger that
  // discards it.
  streams.middlewareStack.remove('loggerMiddleware');
  const streamArn = await ensureStream(options.client, options.tableName);
  const idleMs = options.idleMs ?? 100;
  const maxIdleMs = Math.max(idleMs, options.maxIdleMs ?? 1000);
  const nudgeGapMs = options.nudgeGapMs ?? 100;
  let nextIdleMs = idleMs;
  /** A nudge came since the last read began: the next read comes `nudgeGapMs` after that one's start. */
  let nudged = false;
  let readStartedAt = 0;
  const nudgedWaitMs = () => Math.max(0, readStartedAt + nudgeGapMs - Date.now());
  let stopping = false;
  let wake: (() => void) | undefined;
  /** Brings the end of the pause in hand forward to `ms` from now, if it is an idle one: a pause after a failure runs its course. */
  let shortenIdle: ((ms: number) => void) | undefined;
  const pause = (ms: number, { idle = false } = {}) =>
    new Promise<void>((resolve) => {
      let endsAt = Date.now() + ms;
      let timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      shortenIdle = idle
        ? (sooner) => {
            if (Date.now() + sooner >= endsAt) return;
            clearTimeout(timer);
            endsAt = Date.now() + sooner;
            timer = setTimeout(resolve, sooner);
          }
        : undefined;
    });

  const saved = readCheckpoint(options.checkpointFile, streamArn);
  const finished = new Set<string>(saved.finished);
  const positions = new Map<string, string>(Object.entries(saved.positions));
  const iterators = new Map<string, string>();
  const checkpoint = () => {
    if (!options.checkpointFile) return;
    const state: Checkpoint = { streamArn, positions: Object.fromEntries(positions), finished: [...finished] };
    const temporary = `${options.checkpointFile}.tmp`;
    writeFileSync(temporary, JSON.stringify(state));
    renameSync(temporary, options.checkpointFile);
  };
  /** An iterator after the shard's last handled record, else at its oldest. */
  const iteratorOf = async (shardId: string): Promise<string | undefined> => {
    const after = positions.get(shardId);
    if (after !== undefined) {
      try {
        const out = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
        );
        return out.ShardIterator;
      } catch (error) {
        options.onError?.(error); // trimmed or unknown: from the oldest record kept, which the consumer's idempotency makes safe
      }
    }
    const out = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }));
    return out.ShardIterator;
  };

  // Shards change rarely (DynamoDB Local keeps one open): list them again each second, or when one closes.
  let shards: Shard[] = [];
  let listedAt = 0;
  let paused: { resolve: () => void; resumed: Promise<void>; resume: () => void } | undefined;
  const loop = async () => {
    while (!stopping) {
      if (paused) {
        paused.resolve();
        await paused.resumed;
        continue;
      }
      let busy = false;
      nudged = false;
      readStartedAt = Date.now();
      let reading: string | undefined; // the shard whose GetRecords is in hand
      try {
        if (Date.now() - listedAt > 1000) {
          shards = await listShards(streams, streamArn);
          listedAt = Date.now();
        }
        for (const shard of shards) {
          const id = shard.ShardId!;
          if (finished.has(id) || stopping) continue;
          // A child shard's records come after its parent's: wait until the parent is drained.
          if (shard.ParentShardId && !finished.has(shard.ParentShardId) && iterators.has(shard.ParentShardId)) continue;
          let iterator = iterators.get(id);
          if (iterator === undefined) iterator = await iteratorOf(id);
          if (!iterator) {
            finished.add(id);
            checkpoint();
            continue;
          }
          reading = id;
          const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: options.batchSize ?? DEFAULT_BATCH_SIZE }));
          reading = undefined;
          const records = (out.Records ?? []).map(toLambdaRecord);
          if (records.length > 0) {
            busy = true;
            await handleUntilDone(records);
            const last = records.at(-1)?.dynamodb?.SequenceNumber;
            if (last !== undefined) positions.set(id, last);
          }
          if (out.NextShardIterator) iterators.set(id, out.NextShardIterator);
          else {
            iterators.delete(id);
            finished.add(id);
            positions.delete(id);
            listedAt = 0;
          }
          if (records.length > 0 || !out.NextShardIterator) checkpoint();
        }
      } catch (error) {
        const unusable = error instanceof Error && UNUSABLE_ITERATOR.has(error.name);
        // DynamoDB Local answers a fresh stream's first read from its oldest record as trimmed,
        // once. A shard with no record handled yet was read from its oldest record: nothing was
        // skipped, so there is nothing to report (a trimmed read after a handled one may have lost
        // records, and is reported).
        const skippedNothing = unusable && (error as Error).name === 'TrimmedDataAccessException' && reading !== undefined && !positions.has(reading);
        if (!skippedNothing) options.onError?.(error);
        // An iterator that points past the shard's trim horizon or has expired fails every time
        // it is used: the next round takes a new one after the last handled record.
        if (unusable) iterators.clear();
        await pause(RETRY_MS);
      }
      if (busy) nextIdleMs = idleMs;
      else if (!stopping) {
        await pause(nudged ? nudgedWaitMs() : nextIdleMs, { idle: true });
        nextIdleMs = nudged ? idleMs : Math.min(nextIdleMs * 2, maxIdleMs);
      }
    }
  };

  const handleUntilDone = async (records: DynamoDBRecord[]) => {
    for (;;) {
      try {
        await options.handle(records);
        return;
      } catch (error) {
        options.onError?.(error);
        if (stopping) throw error; // not acknowledged: read again from the stream after a restart
        await pause(RETRY_MS);
      }
    }
  };

  const running = loop();
  return {
    pause: () =>
      new Promise<void>((resolve) => {
        let resume!: () => void;
        const resumed = new Promise<void>((r) => (resume = r));
        paused = { resolve, resumed, resume };
        wake?.();
      }),
    resume: () => {
      const p = paused;
      paused = undefined;
      p?.resume();
    },
    nudge: () => {
      nudged = true;
      if (!paused) shortenIdle?.(nudgedWaitMs());
    },
    stop: async () => {
      stopping = true;
      wake?.();
      paused?.resume();
      // The batch in hand finishes (its writes have their own SDK timeouts); a poll waits no longer than this.
      await waitAtMost(running, STOP_WAIT_MS);
      streams.destroy();
    },
  };
}

/** The saved place in this stream; none when the file is absent, unreadable or of another stream (a new table). */
function readCheckpoint(file: string | undefined, streamArn: string): Pick<Checkpoint, 'positions' | 'finished'> {
  const none = { positions: {}, finished: [] };
  if (!file || !existsSync(file)) return none;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<Checkpoint>;
    if (saved.streamArn !== streamArn || typeof saved.positions !== 'object' || !Array.isArray(saved.finished)) return none;
    return { positions: saved.positions ?? {}, finished: saved.finished };
  } catch {
    return none;
  }
}

/** The table's stream; a table made before streams were enabled (an old DATA_DIR) gets one. */
async function ensureStream(client: DynamoDBClient, tableName: string): Promise<string> {
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (described.Table?.StreamSpecification?.StreamEnabled && described.Table.LatestStreamArn) return described.Table.LatestStreamArn;
  await client.send(
    new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType } }),
  );
  const again = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (!again.Table?.LatestStreamArn) throw new Error(`The table ${tableName} has no stream`);
  return again.Table.LatestStreamArn;
}

async function listShards(streams: DynamoDBStreamsClient, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
    shards.push(...(out.StreamDescription?.Shards ?? []));
    start = out.StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

/** The SDK's record → the shape Lambda passes (creation time in epoch seconds). */
function toLambdaRecord(record: StreamRecord): DynamoDBRecord {
  const change = record.dynamodb;
  const created = change?.ApproximateCreationDateTime;
  return {
    ...(record.eventID ? { eventID: record.eventID } : {}),
    ...(record.eventName ? { eventName: record.eventName } : {}),
    eventSource: 'aws:dynamodb',
    dynamodb: {
      ...(change as unknown as NonNullable<DynamoDBRecord['dynamodb']>),
      ...(created instanceof Date ? { ApproximateCreationDateTime: created.getTime() / 1000 } : {}),
    },
  } as DynamoDBRecord;
}
