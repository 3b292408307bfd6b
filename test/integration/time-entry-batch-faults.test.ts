/**
 * A time entry batch under failure (contract, "CSV and bulk import"; decision 0032): the handler
 * runs in process over the shared table with small parts (TIME_ENTRY_BATCH_PART_ITEMS=8), so that a
 * batch of 6 entries on two projects and their client takes three transactions. aws-sdk-client-mock
 * fails each of them in turn, before it lands (an error) or after (it lands, the response is lost),
 * or kills the request there (its send never returns). After each: every entry written is whole
 * (its project's and client's counters count exactly the entries listed, the summaries equal the
 * reference over them); then the retry with the same Idempotency-Key writes exactly the entries
 * left and answers the whole batch, the ones written before under their ids.
 *
 * The clock (Date only) stands still during each test and is moved past the lease by hand.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { handlerCalls, importHandler, lambdaContext, proxyEvent as event, useSharedTable, type ProxyHandler } from '../support/in-process.ts';
import { valueWithLogs } from '../support/logs.ts';
import { mockWrites, type WriteFaults } from '../support/write-faults.ts';
import { referenceSummary, type EntryLike } from '../support/summaries.ts';

const PART_ITEMS = 8;
/** The batch's transactions (see `bodiesOf`: 5 + 3 items, then 4 + 3, then 5 + 3). */
const PARTS = 3;
const LEASE_MS = 2_000;
const OPERATIONS = ['createClient', 'createProject', 'logTimeEntryBatch', 'listTimeEntries', 'listTimeSummaries', 'deleteTimeEntry'] as const satisfies readonly Operation[];
const handlers: Partial<Record<Operation, ProxyHandler>> = {};
let faults: WriteFaults;
let keys: typeof import('../../shared/data/keys.ts').keys;

beforeAll(async () => {
  useSharedTable('batch-faults-test-cursor-signing-key-0123456789ab', {
    AWS_LAMBDA_LOG_LEVEL: 'WARN',
    TIME_ENTRY_BATCH_PART_ITEMS: String(PART_ITEMS),
    TIME_ENTRY_BATCH_LEASE_MS: String(LEASE_MS),
  });
  for (const name of OPERATIONS) handlers[name] = await importHandler(routeByOperation(name).entry);
  ({ keys } = await import('../../shared/data/keys.ts'));
  faults = await mockWrites();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date());
});
afterEach(() => {
  vi.useRealTimers();
  faults.passThrough();
});
afterAll(() => faults?.restore());

const { invoke, ok } = handlerCalls(handlers);
const again = (e: APIGatewayProxyEvent): APIGatewayProxyEvent => ({ ...e, requestContext: { ...e.requestContext, requestId: randomUUID() } });
const query = (ws: string, path: string, params: Record<string, string>) => ({ ...event(ws, 'GET', path), queryStringParameters: params });
const SUMMARY = { from: '2026-04-01', to: '2026-05-01', timezone: 'UTC', group_by: 'project', period: 'day' } as const;

/** Six entries: on project A, on project B (both of one client) and on the client alone, over three days; the first of each owner first. */
function bodiesOf(client: string, a: string, b: string) {
  const at = (day: number) => `2026-04-0${day}T10:00:00Z`;
  return [
    { project_id: a, started_at: at(2), duration_minutes: 15 },
    { project_id: b, started_at: at(2), duration_minutes: 22 },
    { client_id: client, started_at: at(3), duration_minutes: 29, billable_rate: 80 },
    { project_id: a, started_at: at(3), duration_minutes: 36 },
    { project_id: b, started_at: at(4), duration_minutes: 43 },
    { project_id: a, started_at: at(4), duration_minutes: 50, billable: false },
  ];
}

async function workspaceWithProjects() {
  const ws = `batch-faults-${randomUUID().slice(0, 8)}`;
  const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Acme', company_email: 'a@acme.test' } }))).id as string;
  const project = async (name: string, hourly_rate: number) =>
    (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name, client_id: client, billing_type: 'Monthly', hourly_rate } }))).id as string;
  const a = await project('A', 95);
  const b = await project('B', 12.5);
  const request = event(ws, 'POST', '/api/v1/time_entries/batch', { body: { entries: bodiesOf(client, a, b) }, headers: { 'Idempotency-Key': randomUUID() } });
  return { ws, client, owners: [client, a, b], request };
}

/** The stored counter of time entries on a project or client. */
async function counterOf(ws: string, id: string): Promise<number> {
  const type = id.startsWith('cli_') ? 'CLIENT' : 'PROJECT';
  const item = (await faults.raw.send(new GetCommand({ TableName: inject('tableName'), Key: keys.item(ws, type, id) }))).Item!;
  return Number(item.time_entry_count ?? 0);
}

/** Every entry written is whole: each owner counts exactly the entries listed on it, the summaries equal the reference over them. */
async function expectWhole(ws: string, owners: string[]) {
  const entries = (await ok('listTimeEntries', query(ws, '/api/v1/time_entries', { limit: '100' }))).data as (EntryLike & { id: string })[];
  for (const id of owners) {
    expect(await counterOf(ws, id), id).toBe(entries.filter((e) => e.project_id === id || e.client_id === id).length);
  }
  const summaries = (await ok('listTimeSummaries', query(ws, '/api/v1/time_summaries', { ...SUMMARY, limit: '100' }))).data;
  expect(summaries).toEqual(referenceSummary(entries, SUMMARY, () => 'USD'));
  return entries;
}

/** The retry's answer is the whole batch in the order given, the entries written before among it under their ids. */
async function expectFinished(ws: string, owners: string[], request: APIGatewayProxyEvent, before: { id: string }[]) {
  const retried = await invoke('logTimeEntryBatch', again(request));
  expect(retried.status, JSON.stringify(retried.body)).toBe(201);
  const made = retried.body.data as { id: string; started_at: string; duration_minutes: number }[];
  expect(made.map((e) => e.duration_minutes)).toEqual([15, 22, 29, 36, 43, 50]);
  for (const entry of before) expect(made.map((e) => e.id)).toContain(entry.id);
  const entries = await expectWhole(ws, owners);
  expect(entries.map((e) => e.id).sort()).toEqual(made.map((e) => e.id).sort());
  // Sent again: the same answer, replayed.
  const replayed = await invoke('logTimeEntryBatch', again(request));
  expect([replayed.status, replayed.headers['Idempotent-Replayed']]).toEqual([201, 'true']);
  expect(replayed.body.data).toEqual(made);
}

describe('a batch of several parts under failure', () => {
  it(`takes ${PARTS} transactions when nothing fails, each whole`, async () => {
    const { ws, owners, request } = await workspaceWithProjects();
    faults.mock.resetHistory();
    const made = await invoke('logTimeEntryBatch', request);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(faults.mock.commandCalls(TransactWriteCommand)).toHaveLength(PARTS);
    expect(made.body.data).toHaveLength(6);
    await expectWhole(ws, owners);
  });

  for (let k = 0; k < PARTS; k++) {
    for (const when of ['before', 'after'] as const) {
      it(`part ${k + 1} of ${PARTS} failing ${when} it lands: whole entries, 503, and the keyed retry writes exactly the rest`, async () => {
        const { ws, owners, request } = await workspaceWithProjects();
        faults.failTransaction(k, when);
        const { value: failed, lines } = await valueWithLogs(() => invoke('logTimeEntryBatch', request));
        faults.passThrough();
        expect(failed.status, JSON.stringify(failed.body)).toBe(503);
        expect(lines.filter((l) => l.level === 'ERROR').map((l) => l.message)).toEqual(['Dependency failure']);
        const written = await expectWhole(ws, owners);
        // Whole parts only: parts 1 and 2 hold 2 entries each, part 3 the last 2.
        expect(written).toHaveLength(2 * (when === 'after' ? k + 1 : k));
        // The request gave its work up as it answered: the retry takes it over at once.
        await expectFinished(ws, owners, request, written);
      });
    }
  }

  it('killed between parts: the retry is a 409 while the lease runs, and past it finishes the batch', async () => {
    const { ws, owners, request } = await workspaceWithProjects();
    faults.failTransaction(1, 'kill');
    void handlers.logTimeEntryBatch!(request, lambdaContext());
    await vi.waitFor(() => expect(faults.mock.commandCalls(TransactWriteCommand).length).toBe(2), { timeout: 30_000, interval: 20 });
    faults.passThrough();
    const written = await expectWhole(ws, owners);
    expect(written).toHaveLength(2);
    const waiting = await invoke('logTimeEntryBatch', again(request));
    expect([waiting.status, waiting.body.error?.type]).toEqual([409, 'idempotency_key_in_use']);
    expect(waiting.headers['Retry-After']).toBe(String(Math.ceil(LEASE_MS / 1000)));
    vi.setSystemTime(Date.now() + LEASE_MS + 1);
    // An entry of the part written is deleted meanwhile: the retry does not make it again.
    const gone = written[0]!;
    expect((await invoke('deleteTimeEntry', event(ws, 'DELETE', '/api/v1/time_entries/{id}', { id: gone.id }))).status).toBe(200);
    const retried = await invoke('logTimeEntryBatch', again(request));
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((retried.body.data as { id: string }[]).map((e) => e.id)).not.toContain(gone.id);
    expect(retried.body.data).toHaveLength(5);
    await expectWhole(ws, owners);
  });

  it('a project deleted between the check and the first write: a 400 naming each entry on it, nothing written, and the same again with the key', async () => {
    const { ws, owners, request } = await workspaceWithProjects();
    const a = owners[1]!;
    // The project goes (an item with no entries: nothing guards it yet) just before the first part's transaction.
    let deleted = false;
    faults.passThrough();
    faults.mock.on(TransactWriteCommand).callsFake(async (input: unknown) => {
      if (!deleted) await faults.raw.send(new DeleteCommand({ TableName: inject('tableName'), Key: keys.item(ws, 'PROJECT', a) }));
      deleted = true;
      return faults.raw.send(new TransactWriteCommand(input as never));
    });
    for (const attempt of [request, again(request)]) {
      const refused = await invoke('logTimeEntryBatch', attempt);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.errors.map((e: { param: string }) => e.param)).toEqual(['entries[0].project_id', 'entries[3].project_id', 'entries[5].project_id']);
      expect(await expectWhole(ws, owners.filter((id) => id !== a))).toEqual([]);
    }
  });

  it('without a key, a failure leaves the parts written whole, and nothing to finish them', async () => {
    const { ws, owners, request } = await workspaceWithProjects();
    const { 'Idempotency-Key': _key, ...headers } = request.headers as Record<string, string>;
    faults.failTransaction(1, 'before');
    const { value: failed, lines } = await valueWithLogs(() => invoke('logTimeEntryBatch', { ...request, headers, multiValueHeaders: {} }));
    faults.passThrough();
    expect(failed.status).toBe(503);
    expect(lines.filter((l) => l.level === 'ERROR')).toHaveLength(1);
    expect(await expectWhole(ws, owners)).toHaveLength(2);
  });
});
