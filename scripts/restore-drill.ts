/**
 * The restore drill: proves that the table's point-in-time recovery gives back the data.
 *
 *   npm run restore-drill -- [--table <name>] [--at <ISO time>] [--sample 200] [--max-drift-percent 2] [--keep]
 *
 * 1. checks that point-in-time recovery is on, and picks the restore time (`--at`, default the
 *    latest restorable time, about five minutes ago);
 * 2. restores the table to a NEW table `<table>-drill-<yyyymmddhhmm>` at that time (the live table
 *    is never written);
 * 3. waits until the copy is ACTIVE (large tables take a while: `--wait-minutes`, default 120);
 * 4. compares item counts, and a sample of the copy's items (read back from the live table by
 *    key). Items written after the restore time legitimately differ ("drift"): the drill fails when
 *    the counts or the sample differ by more than `--max-drift-percent`, or when the copy is empty
 *    while the live table is not;
 * 5. deletes the copy (also when the drill fails), unless `--keep` (then point a stack at it with
 *    `table.tableNameOverride`, docs/deploy.md "Restore").
 *
 * The table comes from `--table`, TIMEBILL_TABLE_NAME, or cdk-outputs.json (`--stack-name`).
 * Scans are fine here: an operator's tool run off-peak, never a request path. The operator needs
 * dynamodb:DescribeContinuousBackups, RestoreTableToPointInTime (and the Scan/Query/GetItem/
 * PutItem/UpdateItem/DeleteItem/BatchWriteItem that a restore performs), DescribeTable, Scan,
 * GetItem, UpdateTable and DeleteTable on `<table>` and `<table>-drill-*`.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  RestoreTableToPointInTimeCommand,
  ScanCommand,
  UpdateTableCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { OUTPUTS } from '../infra/names.ts';
import { stackOutput, type OutputFlags } from './stack-outputs.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { TABLE } from '../shared/data/table.ts';

export interface DrillOptions {
  readonly table: string;
  /** Restore time; default the latest restorable time. */
  readonly at?: Date;
  readonly sampleSize: number;
  readonly maxDriftPercent: number;
  readonly keep: boolean;
  readonly waitMinutes: number;
  /** Name of the copy; default `<table>-drill-<yyyymmddhhmm>`. */
  readonly targetTable?: string;
}

export interface DrillReport {
  readonly ok: boolean;
  readonly sourceTable: string;
  readonly targetTable: string;
  readonly restoredTo: string;
  readonly liveCount: number;
  readonly restoredCount: number;
  readonly sampled: number;
  readonly sampleEqual: number;
  /** Sampled items that differ from (or are gone from) the live table. */
  readonly sampleDrift: number;
  readonly kept: boolean;
  readonly problems: readonly string[];
}

export interface DrillClients {
  /** Table management: continuous backups, restore, describe, update, delete. */
  readonly control: DynamoDBClient;
  /** Item reads: Scan and GetItem. */
  readonly data: DynamoDBClient;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
  readonly log?: (line: string) => void;
}

const POLL_MS = 15_000;

export const drillTableName = (table: string, now: Date) => `${table}-drill-${now.toISOString().replace(/[-:T]/g, '').slice(0, 12)}`;

/** Items of a table, counted with a paginated COUNT scan. */
async function countItems(client: DynamoDBClient, table: string): Promise<number> {
  let count = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, Select: 'COUNT', ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/**
 * Up to `size` items of a table, taken round-robin from parallel-scan segments (so that the sample
 * is spread over the key space rather than the first page), continuing a segment until enough.
 */
async function sampleItems(client: DynamoDBClient, table: string, size: number): Promise<Record<string, AttributeValue>[]> {
  const segments = Math.max(1, Math.min(size, 10));
  const perPage = Math.ceil(size / segments);
  const cursors = new Map<number, Record<string, AttributeValue> | undefined>(Array.from({ length: segments }, (_, i) => [i, undefined]));
  const items: Record<string, AttributeValue>[] = [];
  while (items.length < size && cursors.size > 0) {
    for (const [segment, start] of [...cursors]) {
      const page = await client.send(
        new ScanCommand({ TableName: table, Segment: segment, TotalSegments: segments, Limit: perPage, ExclusiveStartKey: start }),
      );
      items.push(...(page.Items ?? []));
      if (page.LastEvaluatedKey) cursors.set(segment, page.LastEvaluatedKey);
      else cursors.delete(segment);
    }
  }
  return items.slice(0, size);
}

async function waitUntilActive(clients: DrillClients, table: string, minutes: number): Promise<void> {
  const sleep = clients.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = (clients.now?.() ?? new Date()).getTime() + minutes * 60_000;
  for (;;) {
    const { Table } = await clients.control.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if ((clients.now?.() ?? new Date()).getTime() > deadline) throw new Error(`${table} is still ${Table?.TableStatus} after ${minutes} minutes`);
    await sleep(POLL_MS);
  }
}

async function deleteCopy(client: DynamoDBClient, table: string): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  if (Table?.DeletionProtectionEnabled) await client.send(new UpdateTableCommand({ TableName: table, DeletionProtectionEnabled: false }));
  await client.send(new DeleteTableCommand({ TableName: table }));
}

export async function restoreDrill(clients: DrillClients, options: DrillOptions): Promise<DrillReport> {
  const log = clients.log ?? (() => {});
  const now = clients.now?.() ?? new Date();
  const source = options.table;
  const target = options.targetTable ?? drillTableName(source, now);
  if (target === source) throw new Error('The copy must have another name than the live table');

  const backups = await clients.control.send(new DescribeContinuousBackupsCommand({ TableName: source }));
  const pitr = backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription;
  if (pitr?.PointInTimeRecoveryStatus !== 'ENABLED') throw new Error(`Point-in-time recovery is not enabled on ${source}`);
  const restoredTo = options.at ?? pitr.LatestRestorableDateTime;
  if (!restoredTo) throw new Error(`${source} reports no restorable time`);
  if (pitr.EarliestRestorableDateTime && restoredTo < pitr.EarliestRestorableDateTime) {
    throw new Error(`${restoredTo.toISOString()} is before the earliest restorable time ${pitr.EarliestRestorableDateTime.toISOString()}`);
  }

  log(`Restoring ${source} as of ${restoredTo.toISOString()} to ${target} ...`);
  await clients.control.send(
    new RestoreTableToPointInTimeCommand({ SourceTableName: source, TargetTableName: target, RestoreDateTime: restoredTo, UseLatestRestorableTime: false }),
  );
  const problems: string[] = [];
  let liveCount = 0;
  let restoredCount = 0;
  let sampled = 0;
  let sampleEqual = 0;
  let kept = false;
  try {
    await waitUntilActive(clients, target, options.waitMinutes);
    log(`${target} is ACTIVE; counting and sampling ...`);
    [liveCount, restoredCount] = await Promise.all([countItems(clients.data, source), countItems(clients.data, target)]);
    const drift = (a: number, b: number) => (Math.max(a, b) === 0 ? 0 : (100 * Math.abs(a - b)) / Math.max(a, b));
    if (restoredCount === 0 && liveCount > 0) problems.push(`the copy is empty; the live table has ${liveCount} items`);
    else if (drift(liveCount, restoredCount) > options.maxDriftPercent) {
      problems.push(`item counts differ by ${drift(liveCount, restoredCount).toFixed(2)} % (live ${liveCount}, copy ${restoredCount})`);
    }
    const sample = await sampleItems(clients.data, target, options.sampleSize);
    sampled = sample.length;
    for (const item of sample) {
      const key = { [TABLE.partitionKey]: item[TABLE.partitionKey]!, [TABLE.sortKey]: item[TABLE.sortKey]! };
      const live = await clients.data.send(new GetItemCommand({ TableName: source, Key: key, ConsistentRead: true }));
      if (live.Item && isDeepStrictEqual(live.Item, item)) sampleEqual += 1;
    }
    if (drift(sampled, sampleEqual) > options.maxDriftPercent) {
      problems.push(`${sampled - sampleEqual} of ${sampled} sampled items differ from the live table`);
    }
    if (liveCount > 0 && sampled === 0) problems.push('no item could be sampled from the copy');
  } finally {
    if (options.keep) {
      kept = true;
      log(`Kept ${target}: delete it with aws dynamodb delete-table --table-name ${target}`);
    } else {
      await deleteCopy(clients.control, target);
      log(`Deleted ${target}.`);
    }
  }
  return {
    ok: problems.length === 0,
    sourceTable: source,
    targetTable: target,
    restoredTo: restoredTo.toISOString(),
    liveCount,
    restoredCount,
    sampled,
    sampleEqual,
    sampleDrift: sampled - sampleEqual,
    kept,
    problems,
  };
}

/** The table to drill: --table, then TIMEBILL_TABLE_NAME, then cdk-outputs.json. */
export function resolveTable(flags: { table?: string } & OutputFlags, env: NodeJS.ProcessEnv, cwd: string): string {
  return stackOutput({ flag: flags.table, envName: 'TIMEBILL_TABLE_NAME', output: OUTPUTS.tableName, what: 'table' }, flags, env, cwd);
}

const USAGE =
  'Usage: npm run restore-drill -- [--table <name>] [--stack-name <name>] [--outputs-file <file>] [--at <ISO time>] [--sample 200] [--max-drift-percent 2] [--wait-minutes 120] [--keep] [--json]';

runWhenMain(import.meta.url, async () => {
  const { values } = parseCommandLine({
    options: {
      table: { type: 'string' },
      'stack-name': { type: 'string' },
      'outputs-file': { type: 'string' },
      at: { type: 'string' },
      sample: { type: 'string', default: '200' },
      'max-drift-percent': { type: 'string', default: '2' },
      'wait-minutes': { type: 'string', default: '120' },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  }, USAGE);
  const number = (name: string, value: string, min: number, max: number) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  const at = values.at === undefined ? undefined : new Date(values.at);
  if (at && Number.isNaN(at.getTime())) throw new UsageError('--at must be an ISO date-time, e.g. 2026-11-22T03:00:00Z');
  const options = {
    ...(at ? { at } : {}),
    sampleSize: number('sample', values.sample, 1, 10_000),
    maxDriftPercent: number('max-drift-percent', values['max-drift-percent'], 0, 100),
    waitMinutes: number('wait-minutes', values['wait-minutes'], 1, 24 * 60),
    keep: values.keep,
  };
  const client = new DynamoDBClient({});
  let report: Awaited<ReturnType<typeof restoreDrill>>;
  try {
    report = await restoreDrill({ control: client, data: client, log: (line) => console.error(line) }, { table: resolveTable(values, process.env, process.cwd()), ...options });
  } catch (error) {
    // No verdict (no table named, no credentials or region, no point-in-time recovery, a restore that did not finish): exit 2, not a failed drill's 1.
    console.error(`restore-drill: could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
    return;
  }
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(
      [
        `Restore drill of ${report.sourceTable} as of ${report.restoredTo}: ${report.ok ? 'PASSED' : 'FAILED'}`,
        `  items      live ${report.liveCount}, copy ${report.restoredCount}`,
        `  sample     ${report.sampleEqual} of ${report.sampled} equal to the live table`,
        `  copy       ${report.targetTable} ${report.kept ? 'kept' : 'deleted'}`,
        ...report.problems.map((p) => `  problem    ${p}`),
      ].join('\n'),
    );
  }
  process.exitCode = report.ok ? 0 : 1;
}, 'restore-drill');
