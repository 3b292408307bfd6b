/**
 * The totals' backfill (scripts/backfill-totals.ts) on a workspace as the code before the totals
 * wrote it: entries without `billable_rate` and uncounted, a client without `currency`, no totals.
 * It gives each entry its project's rate, counts it once, and can be stopped and run again; a
 * request that changes an uncounted entry first counts it itself. Run for one workspace (a Query)
 * on the shared table, and for a whole table (a Scan) from the command line on a table of its own.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { keys } from '../../shared/data/keys.ts';
import { createClient, createProject, workspace } from '../support/api.ts';
import { useSharedTable } from '../support/in-process.ts';
import { startLocalTable } from '../support/local-table.ts';
import { allEntries, referenceSummary, summaryRows, type SummaryQuery } from '../support/summaries.ts';

let raw: DynamoDBDocumentClient;
const table = () => inject('tableName');

beforeAll(() => {
  useSharedTable('totals-backfill-test-cursor-signing-key-0123456789');
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
});
afterAll(() => raw?.destroy());

/** Turns the workspace's items into what the code before the totals stored, and drops its totals. */
async function asBeforeTotals(ws: string) {
  const items = (await raw.send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.workspacePartition(ws) } }))).Items ?? [];
  for (const item of items) {
    const key = { PK: item.PK, SK: item.SK };
    if (String(item.SK).startsWith('TIME_ENTRY#')) {
      await raw.send(new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'REMOVE #counted, #data.#rate', ExpressionAttributeNames: { '#counted': 'counted', '#data': 'data', '#rate': 'billable_rate' } }));
    }
    if (String(item.SK).startsWith('CLIENT#')) {
      await raw.send(new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'REMOVE #data.#currency', ExpressionAttributeNames: { '#data': 'data', '#currency': 'currency' } }));
    }
  }
  for (const level of ['CLIENT', 'PROJECT'] as const) {
    const pk = keys.totalsPartition(ws, level, '2026-03');
    const totals = (await raw.send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }))).Items ?? [];
    for (const item of totals) await raw.send(new DeleteCommand({ TableName: table(), Key: { PK: item.PK, SK: item.SK } }));
  }
}

/** A time entry of a workspace of its own, uncounted as the code before the totals stored it: its key. */
async function uncountedEntryOfAnotherWorkspace() {
  const { id, api } = await workspace('backfill-other');
  const entry = (await api.post('/time_entries', { client_id: (await createClient(api)).id, started_at: '2026-03-02T12:00:00Z', duration_minutes: 30 })).body;
  await asBeforeTotals(id);
  return keys.item(id, 'TIME_ENTRY', entry.id);
}

it('gives old entries their project\'s rate and counts each once, resumably, beside requests that count them first', async () => {
  const { id: ws, api } = await workspace('backfill');
  const client = await createClient(api);
  const priced = await createProject(api, client.id, { hourly_rate: 90 });
  const unpriced = await createProject(api, client.id, { hourly_rate: null });
  const logged = [];
  for (let i = 0; i < 9; i++) {
    const owner = i % 3 === 0 ? { project_id: priced.id } : i % 3 === 1 ? { project_id: unpriced.id } : { client_id: client.id };
    logged.push((await api.post('/time_entries', { ...owner, started_at: `2026-03-${String(10 + i).padStart(2, '0')}T12:00:00Z`, duration_minutes: 60 + i })).body);
  }
  await asBeforeTotals(ws);
  const q: SummaryQuery = { from: '2026-03-01', to: '2026-04-01', group_by: 'project', period: 'day' };
  expect(await summaryRows(api, q)).toEqual([]);
  expect((await api.get(`/clients/${client.id}`)).body.currency).toBe('USD');
  expect((await api.get(`/time_entries/${logged[0]!.id}`)).body.billable_rate).toBeNull();
  const oldVersion = (await api.get(`/time_entries/${logged[0]!.id}`)).headers.get('etag');

  // A correction before the backfill counts the entry (with its new duration) in its own transaction.
  expect((await api.patch(`/time_entries/${logged[1]!.id}`, { duration_minutes: 5 })).status).toBe(200);
  // Stopped after two entries, then run to the end, then again: each counted once.
  const { countStoredEntry } = await import('../../shared/totals/backfill.ts');
  const { backfillTotals } = await import('../../scripts/backfill-totals.ts');
  for (const e of logged.slice(2, 4)) expect(await countStoredEntry(keys.item(ws, 'TIME_ENTRY', e.id))).toBe('counted');
  // This workspace's alone (--workspace): the shared table's other files make uncounted entries of
  // their own meanwhile (time-entry-invoice-lock.test.ts), which the run leaves to them.
  const other = await uncountedEntryOfAnotherWorkspace();
  const first = await backfillTotals({ segments: 2, concurrency: 4, workspaceId: ws });
  expect(first.counted).toBe(6);
  expect((await backfillTotals({ segments: 2, concurrency: 4, workspaceId: ws })).counted).toBe(0);
  expect((await raw.send(new GetCommand({ TableName: table(), Key: other }))).Item?.counted).toBeUndefined();

  const entries = await allEntries(api);
  expect(Object.fromEntries(entries.map((e) => [e.project_id, e.billable_rate]))).toEqual({ [priced.id]: 90, [unpriced.id]: null, null: null });
  expect(await summaryRows(api, q)).toEqual(referenceSummary(entries, q, () => 'USD'));
  // A rate the entry did not show is a change of it: a new version.
  expect((await api.get(`/time_entries/${logged[0]!.id}`)).headers.get('etag')).not.toBe(oldVersion);
});

it('counts a whole table without --workspace (the command line, over a table of its own): each entry once, then none', async () => {
  const { id: ws, api } = await workspace('backfill-table');
  const project = await createProject(api, (await createClient(api)).id, { hourly_rate: 80 });
  for (const day of ['02', '03', '04']) {
    expect((await api.post('/time_entries', { project_id: project.id, started_at: `2026-03-${day}T09:00:00Z`, duration_minutes: 30 })).status).toBe(201);
  }
  await asBeforeTotals(ws);
  // The workspace's items, as the code before the totals left them, in a table of their own: the
  // Scan reads that table whole, and no other file's items.
  const name = 'totals-backfill-whole-table';
  const own = await startLocalTable(name);
  try {
    const items = (await raw.send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.workspacePartition(ws) } }))).Items ?? [];
    for (const Item of items) await own.db.send(new PutCommand({ TableName: name, Item }));
    const backfill = async () =>
      (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/backfill-totals.ts', '--table', name, '--endpoint', inject('dynamoEndpoint'), '--segments', '3'], {
        cwd: resolve(import.meta.dirname, '../..'),
      })).stdout;
    expect(await backfill()).toBe('counted 3, skipped 0\n');
    expect(await backfill()).toBe('counted 0, skipped 0\n');
    const totals = (await own.db.send(new QueryCommand({ TableName: name, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.totalsPartition(ws, 'CLIENT', '2026-03') } }))).Items ?? [];
    const minutes = totals.flatMap((item) => Object.entries(item).filter(([counter]) => /^m\d+$/.test(counter)).map(([, value]) => Number(value)));
    expect(minutes.reduce((sum, m) => sum + m, 0)).toBe(90);
  } finally {
    await own.stop();
  }
});
