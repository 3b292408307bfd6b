/**
 * The one-off backfill of time totals and entry rates (docs/decisions/0019-time-totals.md):
 *
 *   npm run backfill:totals -- [--table <name>] [--endpoint <url>] [--segments 4] [--concurrency 8] [--workspace <id>]
 *
 * Counts in the totals every time entry stored before them, giving it `billable_rate` = its
 * project's hourly_rate now. Idempotent and resumable: an entry is counted once, in one
 * transaction with its totals (shared/totals/backfill.ts); stop it anywhere and run it again.
 * Run it once after deploying the change that introduced the totals; summaries count entries
 * stored before it only once it has run. It prints one line per 1,000 entries and a last line
 * `counted N, skipped M`. `--workspace` counts one workspace's entries only (try it on one first):
 * a Query of its partition, which reads nothing of the others (`--segments` is then unused).
 *
 * The table comes from `--table`, TIMEBILL_TABLE_NAME, or cdk-outputs.json (`--stack-name`);
 * `--endpoint` (or DYNAMODB_ENDPOINT) points at DynamoDB Local (`npm start` with DATA_DIR).
 * A Scan is fine here: an operator's tool, never a request path. It needs dynamodb:Scan (Query
 * with `--workspace`), GetItem and UpdateItem on the table.
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/data/dynamo.ts';
import { DATA_ATTRIBUTE } from '../shared/data/table.ts';
import { countStoredEntry } from '../shared/totals/backfill.ts';
import { COUNTED_ATTRIBUTE } from '../shared/totals/totals.ts';
import { typePrefix, workspacePartition } from '../shared/data/keys.ts';
import { WORKSPACE_ID_PATTERN } from '../shared/data/api-clients.ts';
import { OUTPUTS } from '../infra/names.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { stackOutput } from './stack-outputs.ts';

const USAGE = 'Usage: npm run backfill:totals -- [--table <name>] [--endpoint <url>] [--segments 4] [--concurrency 8] [--workspace <id>] [--stack-name <name>] [--outputs-file <file>]';

/**
 * Items a Scan or Query call reads (before the filter): short calls, each well inside the SDK's request
 * timeout (shared/data/budget.ts) even on a busy DynamoDB Local, and an even draw on the table's
 * capacity instead of 1 MB bursts. A 1 MB page of the shared test table took over 1.5 s there.
 */
const SCAN_PAGE_ITEMS = 250;

const ENTRY_PREFIX = typePrefix('TIME_ENTRY');

export interface BackfillReport {
  counted: number;
  skipped: number;
}

/** The uncounted entries' filter: deletion records share the sort key (`TIME_ENTRY#<id>` in their own partition) and hold no data. */
const UNCOUNTED = {
  FilterExpression: 'attribute_exists(#data) AND attribute_not_exists(#counted)',
  ExpressionAttributeNames: { '#counted': COUNTED_ATTRIBUTE, '#data': DATA_ATTRIBUTE },
  ProjectionExpression: 'PK, SK',
  Limit: SCAN_PAGE_ITEMS,
};

type EntryKey = { PK: string; SK: string };

/**
 * The keys of uncounted entries, a page at a time: of one workspace, a Query of its partition
 * (its entries only, however large the table); of the whole table, one segment of a parallel Scan.
 */
async function* uncountedEntries(table: string, scope: { workspaceId: string } | { segment: number; segments: number }): AsyncGenerator<EntryKey[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const from = startKey ? { ExclusiveStartKey: startKey } : {};
    const page =
      'workspaceId' in scope
        ? await dynamo().send(
            new QueryCommand({
              TableName: table,
              ...UNCOUNTED,
              KeyConditionExpression: 'PK = :workspace AND begins_with(SK, :entry)',
              ExpressionAttributeValues: { ':workspace': workspacePartition(scope.workspaceId), ':entry': ENTRY_PREFIX },
              ...from,
            }),
          )
        : await dynamo().send(
            new ScanCommand({
              TableName: table,
              ...UNCOUNTED,
              Segment: scope.segment,
              TotalSegments: scope.segments,
              FilterExpression: `begins_with(SK, :entry) AND ${UNCOUNTED.FilterExpression}`,
              ExpressionAttributeValues: { ':entry': ENTRY_PREFIX },
              ...from,
            }),
          );
    yield (page.Items ?? []) as EntryKey[];
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/** Counts every uncounted time entry (of `workspaceId` alone, if given) of the table the process is configured with (TABLE_NAME, DYNAMODB_ENDPOINT). */
export async function backfillTotals(options: {
  segments: number;
  concurrency: number;
  workspaceId?: string;
  progress?: (report: BackfillReport) => void;
}): Promise<BackfillReport> {
  const report: BackfillReport = { counted: 0, skipped: 0 };
  const table = process.env.TABLE_NAME!;
  const { workspaceId, segments } = options;
  const scopes = workspaceId === undefined ? Array.from({ length: segments }, (_, segment) => ({ segment, segments })) : [{ workspaceId }];
  await Promise.all(
    scopes.map(async (scope) => {
      for await (const keys of uncountedEntries(table, scope)) {
        for (let i = 0; i < keys.length; i += options.concurrency) {
          const outcomes = await Promise.all(keys.slice(i, i + options.concurrency).map((key) => countStoredEntry(key)));
          for (const outcome of outcomes) {
            report[outcome]++;
            if ((report.counted + report.skipped) % 1000 === 0) options.progress?.(report);
          }
        }
      }
    }),
  );
  return report;
}

const positive = (value: string | undefined, flag: string, fallback: number, max: number) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag} must be an integer from 1 to ${max}`);
  return n;
};

const workspaceId = (value: string) => {
  if (!WORKSPACE_ID_PATTERN.test(value)) throw new UsageError('--workspace must be a workspace id: 1 to 64 letters, digits, - or _');
  return value;
};

runWhenMain(
  import.meta.url,
  async () => {
    const { values } = parseCommandLine(
      {
        options: {
          table: { type: 'string' },
          endpoint: { type: 'string' },
          segments: { type: 'string' },
          concurrency: { type: 'string' },
          workspace: { type: 'string' },
          'stack-name': { type: 'string' },
          'outputs-file': { type: 'string' },
        },
      },
      USAGE,
    );
    process.env.TABLE_NAME = stackOutput({ flag: values.table, envName: 'TIMEBILL_TABLE_NAME', output: OUTPUTS.tableName, what: 'table' }, values, process.env, process.cwd());
    if (values.endpoint) process.env.DYNAMODB_ENDPOINT = values.endpoint;
    const report = await backfillTotals({
      segments: positive(values.segments, '--segments', 4, 64),
      concurrency: positive(values.concurrency, '--concurrency', 8, 100),
      ...(values.workspace === undefined ? {} : { workspaceId: workspaceId(values.workspace) }),
      progress: (r) => console.log(`counted ${r.counted}, skipped ${r.skipped} so far`),
    });
    console.log(`counted ${report.counted}, skipped ${report.skipped}`);
  },
  'backfill:totals',
);
