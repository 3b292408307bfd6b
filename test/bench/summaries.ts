/**
 * Section 5b: time summary pages, flat in the number of entries. Two workspaces, one with 100 and
 * one with 100,000 time entries of one client, on the same 100 quarter-hours of 2026 (one per
 * slot in the first, 1,000 per slot in the second), so that the totals have the same items and
 * the same counters, only bigger numbers. The entries are the items the log handler writes
 * (transport intercepted), and the totals the sums of what each log's transaction adds
 * (shared/totals/totals.ts), all written with BatchWriteItem. Each summary's first page is read
 * through the handler and its units measured: the same in both workspaces is the target.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DATA_ATTRIBUTE } from '../../shared/data/table.ts';
import { keys } from '../../shared/data/keys.ts';
import { timeEntry } from '../../shared/model/resources.ts';
import { COUNTED_ATTRIBUTE, COUNTERS, countersOf, placesOf } from '../../shared/totals/totals.ts';
import { storedTimeEntry } from '../../shared/data/stored-time-entries.ts';
import { intercept, observe, unitsOf } from './lib/sdk-hooks.ts';
import { invoke, type Caller } from './lib/invoke.ts';
import { median } from './lib/stats.ts';
import { clientBody, projectBody } from './scenarios.ts';

export const SUMMARY_SIZES = [100, 100_000] as const;
const SLOTS = 100;

/** The summaries measured: the three, and a page of project rows. */
export const SUMMARY_VARIANTS = [
  { key: 'a month by day (UTC)', query: { from: '2026-03-01', to: '2026-04-01', period: 'day' } },
  { key: 'a year by month (UTC)', query: { from: '2026-01-01', to: '2027-01-01', period: 'month' } },
  { key: 'a quarter by week, Asia/Kathmandu (+05:45)', query: { from: '2026-01-01', to: '2026-04-01', period: 'week', timezone: 'Asia/Kathmandu' } },
  { key: 'a year by project, Europe/Paris', query: { from: '2026-01-01', to: '2027-01-01', group_by: 'project', timezone: 'Europe/Paris' } },
] as const;

export interface SummaryPoint {
  variant: string;
  entries: number;
  units: number;
  queries: number;
  rows: number;
  latencyMs: number;
}

/** The n-th slot: a day of 2026 (every 3rd, from Jan 2) at one of four quarter-hours. */
const slotStart = (slot: number) => new Date(Date.UTC(2026, 0, 2 + slot * 3, 8 + (slot % 4), (slot % 4) * 15)).toISOString();

async function writeWorkspace(repoRoot: string, caller: Caller, entries: number, endpoint: string, tableName: string, log: (line: string) => void): Promise<void> {
  const written = async (request: Parameters<typeof invoke>[2]) => {
    const { result, calls } = await intercept(() => invoke(repoRoot, caller, request));
    if (result.status >= 300) throw new Error(`${request.operation}: ${result.status}`);
    for (const call of calls) {
      const items = call.command === 'PutItemCommand' ? [call.input.Item] : ((call.input.TransactItems ?? []) as { Put?: { Item: unknown } }[]).map((t) => t.Put?.Item);
      const put = items.find((item) => item !== undefined) as Record<string, unknown> | undefined;
      if (put) return put;
    }
    throw new Error(`${request.operation} wrote nothing`);
  };
  const client = await written({ operation: 'createClient', body: clientBody(1) });
  const clientId = (client[DATA_ATTRIBUTE] as { id: string }).id;
  const project = await written({ operation: 'createProject', body: projectBody(1, clientId, { hourly_rate: 99.5 }) });
  const projectId = (project[DATA_ATTRIBUTE] as { id: string }).id;
  Object.assign(client, { project_count: 1, time_entry_count: entries });
  Object.assign(project, { time_entry_count: entries });
  // One entry of each slot through the handler; the others are copies of it under fresh ids.
  const templates: Record<string, unknown>[] = [];
  for (let slot = 0; slot < SLOTS; slot++) {
    const { calls } = await intercept(
      () => invoke(repoRoot, caller, { operation: 'logTimeEntry', body: { project_id: projectId, started_at: slotStart(slot), duration_minutes: 37 } }),
      () => ({ Item: project }),
    );
    const put = ((calls.find((c) => c.command === 'TransactWriteItemsCommand')!.input.TransactItems ?? []) as { Put?: { Item: Record<string, unknown> } }[]).find((t) => t.Put)!;
    templates.push(put.Put!.Item);
  }
  const totals = new Map<string, Record<string, unknown>>();
  const items: Record<string, unknown>[] = [client, project];
  for (let n = 0; n < entries; n++) {
    const template = templates[n % SLOTS]!;
    const id = `te_${String(n).padStart(26, '0')}`.slice(0, 29);
    const data = { ...(template[DATA_ATTRIBUTE] as Record<string, unknown>), id };
    items.push({ ...template, SK: `TIME_ENTRY#${id}`, [DATA_ATTRIBUTE]: data, ...keys.indexes(timeEntry, caller.workspaceId, id, data), [COUNTED_ATTRIBUTE]: 1 });
    const entry = storedTimeEntry(data);
    const counters = countersOf(entry);
    for (const { key, quarter } of placesOf(caller.workspaceId, entry)) {
      const item = totals.get(`${key.PK}|${key.SK}`) ?? { ...key };
      totals.set(`${key.PK}|${key.SK}`, item);
      for (const counter of COUNTERS) item[`${counter}${quarter}`] = ((item[`${counter}${quarter}`] as bigint | undefined) ?? 0n) + counters[counter];
    }
  }
  items.push(...totals.values());
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1', maxAttempts: 10 }));
  const started = performance.now();
  try {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        let pending = items.slice(next, (next += 25)).map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) {
          const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  } finally {
    db.destroy();
  }
  log(`summaries: ${entries.toLocaleString('en-US')} entries written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

export async function runSummaryBench(repoRoot: string, endpoint: string, tableName: string, repeats: number, log: (line: string) => void): Promise<SummaryPoint[]> {
  const points: SummaryPoint[] = [];
  for (const entries of SUMMARY_SIZES) {
    const caller: Caller = { workspaceId: `bench-summaries-${entries}-${Date.now()}`, apiClientId: 'bench-summaries' };
    await writeWorkspace(repoRoot, caller, entries, endpoint, tableName, log);
    for (const variant of SUMMARY_VARIANTS) {
      const request = { operation: 'listTimeSummaries' as const, query: { ...variant.query, limit: '25' } };
      const unitRuns: number[] = [];
      const times: number[] = [];
      let queries = 0;
      let rows = 0;
      for (let r = 0; r < repeats; r++) {
        const t0 = performance.now();
        const { result, calls } = await observe(() => invoke(repoRoot, caller, request));
        times.push(performance.now() - t0);
        if (result.status !== 200) throw new Error(`${variant.key}: ${result.status} ${JSON.stringify(result.body)}`);
        unitRuns.push(unitsOf(calls).total);
        queries = calls.filter((c) => c.command === 'QueryCommand').length;
        rows = (result.body as { data: unknown[] }).data.length;
      }
      points.push({ variant: variant.key, entries, units: median(unitRuns), queries, rows, latencyMs: median(times) });
    }
  }
  return points;
}
