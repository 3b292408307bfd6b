/**
 * A billing run's work under faults (contract, "Billing runs"; decision 0033), in this process
 * over the shared table: the run is started over HTTP behind a lane held for the test, then made
 * running and planned here, so the stack's queue leaves its clients to this file's messages.
 * A client's create killed mid-build and retried after its lease, one killed after its invoice
 * and before its outcome, a message delivered twice at once, a create meeting a DynamoDB failure
 * then retried, a client given up on (its dead-letter queue) and worked again, a client deleted
 * before its turn: every client ends
 * with one outcome and at most one invoice, the counts are exact, and the run completes.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createClient, createProject, logTimes, workspace } from '../support/api.ts';
import { useSharedTable } from '../support/in-process.ts';
import { mockWrites, type WriteFaults } from '../support/write-faults.ts';

type Obj = Record<string, any>;

const LEASE_MS = 5_000;
let faults: WriteFaults;
let raw: DynamoDBDocumentClient;
let work: typeof import('../../shared/billing/work.ts');
let keys: typeof import('../../shared/data/keys.ts').keys;

beforeAll(async () => {
  // Entries locked one a transaction: a create is several, so it can die between them.
  useSharedTable('billing-run-faults-test-cursor-key-0123456789', { AWS_LAMBDA_LOG_LEVEL: 'WARN', INVOICE_BATCH_ENTRIES: '1', INVOICE_WORK_LEASE_MS: String(LEASE_MS) });
  work = await import('../../shared/billing/work.ts');
  ({ keys } = await import('../../shared/data/keys.ts'));
  faults = await mockWrites();
  raw = faults.raw;
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

const table = () => inject('tableName');
const get = async (key: { PK: string; SK: string }) => (await raw.send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;

/** Each of the workspace's invoices made by the run, by client. */
async function invoicesOf(ws: string, runId: string): Promise<Map<string, string[]>> {
  const out = await raw.send(
    new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `WS#${ws}`, ':sk': 'INVOICE#' }, ConsistentRead: true }),
  );
  const byClient = new Map<string, string[]>();
  for (const item of out.Items ?? []) {
    if (item.data.billing_run_id !== runId) continue;
    byClient.set(item.data.client_id, [...(byClient.get(item.data.client_id) ?? []), item.data.id]);
  }
  return byClient;
}

describe('a billing run under faults', () => {
  it('gives every client one outcome and at most one invoice, with exact counts, and completes', async () => {
    const { id: ws, api } = await workspace('brun-faults');
    const clients: string[] = [];
    for (let i = 0; i < 5; i++) {
      const client = await createClient(api, { company_name: `Faulty ${i}` });
      const project = await createProject(api, client.id, { billing_type: 'Monthly', hourly_rate: 90 });
      await logTimes(api, [1, 2, 3].map((day) => ({ project_id: project.id, started_at: `2026-10-0${day}T10:00:00Z`, duration_minutes: 30 * day })));
      clients.push(client.id);
    }
    const [a, b, c, d, e] = clients as [string, string, string, string, string];
    // F logged nothing, and is deleted before its turn.
    const f = (await createClient(api, { company_name: 'Gone' })).id;
    // A lane held for the test: the run starts queued, and the stack never plans it.
    await raw.send(new PutCommand({ TableName: table(), Item: { ...keys.billingLane(ws), run: 'brun_held_by_the_test', waiting: 0 } }));
    const started = await api.post('/billing_runs', { from: '2026-10-01', to: '2026-11-01' });
    expect(started.body).toMatchObject({ status: 'queued', clients_total: 6 });
    const runId: string = started.body.id;
    // Running and planned here, the lane its own.
    await raw.send(new PutCommand({ TableName: table(), Item: { ...keys.billingLane(ws), run: runId, waiting: 0 } }));
    await raw.send(
      new UpdateCommand({
        TableName: table(),
        Key: keys.item(ws, 'BILLING_RUN', runId),
        UpdateExpression: 'SET #data.#status = :running, planned = :yes, GSI1PK = :index',
        ExpressionAttributeNames: { '#data': 'data', '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':yes': true, ':index': `WS#${ws}#BILLING_RUN#status#running` },
      }),
    );
    const message = (clientId: string) => ({ kind: 'client' as const, workspace_id: ws, run_id: runId, client_id: clientId });
    const afterTheLease = () => vi.setSystemTime(Date.now() + LEASE_MS + 1);

    // A: the create dies after its draft and first entry (the third transaction never returns); the retry after the lease finishes it.
    faults.failTransaction(2, 'kill');
    void work.workOn(message(a), 'a-1').catch(() => undefined);
    // Stuck in its third transaction (the draft's, then one entry's, then this one's never returns).
    await vi.waitFor(() => expect(faults.mock.commandCalls(TransactWriteCommand)).toHaveLength(3), { timeout: 10_000, interval: 50 });
    expect((await invoicesOf(ws, runId)).get(a)).toHaveLength(1);
    faults.passThrough();
    afterTheLease();
    await work.workOn(message(a), 'a-2');

    // B: delivered twice at once: one attempt builds, the other finds the key in use and is handed back.
    const twice = await Promise.allSettled([work.workOn(message(b), 'b-1'), work.workOn(message(b), 'b-2')]);
    expect(twice.filter((t) => t.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    await work.workOn(message(b), 'b-3');

    // C: DynamoDB fails its draft's transaction: thrown (the queue hands it back), then done.
    faults.failTransaction(0, 'before');
    await expect(work.workOn(message(c), 'c-1')).rejects.toThrow();
    faults.passThrough();
    await work.workOn(message(c), 'c-2');

    // D: given up on (its dead-letter queue): failed, and a late delivery changes nothing.
    await work.giveUp(message(d));
    await work.workOn(message(d), 'd-2');

    // E: dies after its invoice is sealed, before its outcome is written; the retry takes that invoice.
    faults.mock.on(TransactWriteCommand).callsFake(async (input: { TransactItems: Obj[] }) => {
      if (input.TransactItems.some((item) => String(item.Put?.Item?.SK ?? '').startsWith('RESULT#'))) return new Promise(() => undefined);
      return raw.send(new TransactWriteCommand(input as never));
    });
    void work.workOn(message(e), 'e-1').catch(() => undefined);
    await vi.waitFor(async () => expect((await get(keys.idempotency(ws, 'billing_run', `${runId}:${e}`)))?.invoice_id).toEqual(expect.any(String)), { timeout: 10_000 });
    const sealed = (await get(keys.idempotency(ws, 'billing_run', `${runId}:${e}`)))!.invoice_id as string;
    faults.passThrough();
    await work.workOn(message(e), 'e-2');

    // F: deleted before its turn: nothing to invoice.
    expect((await api.delete(`/clients/${f}`)).status).toBe(200);
    await work.workOn(message(f), 'f-1');

    const invoices = await invoicesOf(ws, runId);
    expect(new Map([...invoices].map(([client, ids]) => [client, ids.length]))).toEqual(new Map([[a, 1], [b, 1], [c, 1], [e, 1]]));
    expect(invoices.get(e)).toEqual([sealed]);
    // A's invoice holds all three entries: the retry locked what the killed attempt had not.
    const invoiceA = await api.get(`/invoices/${invoices.get(a)![0]}`);
    expect(invoiceA.body).toMatchObject({ status: 'draft', time_entry_count: 3, billing_run_id: runId });
    const rows = (await api.get(`/billing_runs/${runId}/results`)).body.data as Obj[];
    expect(rows.map((r) => [r.client_id, r.outcome, r.invoice_id ?? r.error?.type])).toEqual(
      [...clients, f].sort().map((id) => (id === f ? [f, 'nothing_to_invoice', undefined] : [id, id === d ? 'failed' : 'invoiced', id === d ? 'service_unavailable' : invoices.get(id)![0]])),
    );
    const run = await api.get(`/billing_runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'completed', clients_total: 6, clients_done: 6, invoices_created: 4 });
    // The lane is free again: the next run starts running.
    expect(await get(keys.billingLane(ws))).toBeUndefined();
  });

  it('leaves a plan page given up on in the dead-letter queue (thrown: its consumer reports it failed)', async () => {
    await expect(work.giveUp({ kind: 'plan', workspace_id: 'ws', run_id: 'brun_x', after: null, sent: 0 })).rejects.toThrow(/redrive it from the dead-letter queue/);
  });
});
