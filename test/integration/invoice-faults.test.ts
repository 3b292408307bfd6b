/**
 * Invoices under failure (contract, "Invoices"; decision 0023): the handlers run in process over
 * the shared table with small batches (INVOICE_BATCH_ENTRIES=2), so that a create of 5 entries
 * takes a draft transaction and three batches (a first, a middle and a sealing one).
 * aws-sdk-client-mock fails each of those writes in turn, before it lands (an error) or after (it
 * lands, the response is lost: a timeout), or kills the request between batches (a batch's send
 * never returns). After each: every entry naming an invoice names one that exists and lists it, the
 * lines total exactly the entries naming it, the invoiced totals equal the reference; then the
 * retry with the same Idempotency-Key: 409 idempotency_key_in_use with Retry-After while the dead
 * request's lease runs, and past it 201 with the same invoice, complete. A void and a delete killed
 * mid-release are finished by the next void or DELETE once the lease is past.
 *
 * The clock (Date only) stands still during each test and is moved past the lease by hand, so
 * "while the lease runs" does not depend on the machine's speed.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AwsStub } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { handlerCalls, importHandler, lambdaContext, proxyEvent as event, useSharedTable, type ProxyHandler } from '../support/in-process.ts';
import { internal, mockWrites, timedOut, type WriteFaults } from '../support/write-faults.ts';
import { valueWithLogs } from '../support/logs.ts';
import { expectedAmount, referenceSummary, type EntryLike } from '../support/summaries.ts';

const BATCH = 2;
/** The billable entries of each test's workspace: three batches of BATCH at most. */
const BILLABLE = 5;
const LEASE_MS = 2_000;
const OPERATIONS = [
  'createClient',
  'createProject',
  'logTimeEntryBatch',
  'listTimeEntries',
  'listTimeSummaries',
  'createInvoice',
  'listInvoices',
  'retrieveInvoice',
  'finalizeInvoice',
  'voidInvoice',
  'deleteInvoice',
] as const satisfies readonly Operation[];
const handlers: Partial<Record<Operation, ProxyHandler>> = {};
let faults: WriteFaults;
let docMock: AwsStub<any, any, any>;
let raw: DynamoDBDocumentClient;
let keys: typeof import('../../shared/data/keys.ts').keys;

beforeAll(async () => {
  useSharedTable('invoice-faults-test-cursor-signing-key-0123456789', {
    AWS_LAMBDA_LOG_LEVEL: 'WARN',
    INVOICE_BATCH_ENTRIES: String(BATCH),
    INVOICE_WORK_LEASE_MS: String(LEASE_MS),
  });
  for (const name of OPERATIONS) handlers[name] = await importHandler(routeByOperation(name).entry);
  ({ keys } = await import('../../shared/data/keys.ts'));
  faults = await mockWrites();
  ({ mock: docMock, raw } = faults);
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

/** The clock moves past any lease taken so far. */
const afterTheLease = () => vi.setSystemTime(Date.now() + LEASE_MS + 1);

const { invoke, ok } = handlerCalls(handlers);

/** The same request again, as a new invocation (a new request id). */
const again = (e: APIGatewayProxyEvent): APIGatewayProxyEvent => ({ ...e, requestContext: { ...e.requestContext, requestId: randomUUID() } });

const query = (ws: string, path: string, params: Record<string, string>) => ({ ...event(ws, 'GET', path), queryStringParameters: params });
const PERIOD = { from: '2026-04-01', to: '2026-05-01' };
const SUMMARY = { ...PERIOD, timezone: 'UTC', group_by: 'project', period: 'day' } as const;

/** A client with BILLABLE entries on two projects and without one (three lines), and one non-billable. */
async function workspaceWithTime() {
  const ws = `invoice-faults-${randomUUID().slice(0, 8)}`;
  const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Acme', company_email: 'a@acme.test' } }))).id as string;
  const a = (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name: 'A', client_id: client, billing_type: 'Monthly', hourly_rate: 95 } }))).id;
  const b = (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name: 'B', client_id: client, billing_type: 'Monthly', hourly_rate: 12.5 } }))).id;
  const bodies: Record<string, unknown>[] = [];
  for (let day = 2; day <= 7; day++) {
    const started_at = `2026-04-${String(day).padStart(2, '0')}T10:00:00Z`;
    const duration_minutes = 7 * day + 1;
    if (day <= 3) bodies.push({ project_id: a, started_at, duration_minutes });
    else if (day <= 5) bodies.push({ project_id: b, started_at, duration_minutes });
    else if (day === 6) bodies.push({ client_id: client, started_at, duration_minutes, billable_rate: 80 });
    else bodies.push({ project_id: a, started_at, duration_minutes, billable: false });
  }
  // One request: the entries are each test's fixture, not what it tests.
  await ok('logTimeEntryBatch', event(ws, 'POST', '/api/v1/time_entries/batch', { body: { entries: bodies } }));
  return { ws, client, billable: bodies.filter((body) => body.billable !== false).length };
}

const createRequest = (ws: string, client: string, key: string) =>
  event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, ...PERIOD, discount_rate: 5, tax_rate: 20 }, headers: { 'Idempotency-Key': key } });

/** A transaction count of a clean create: the draft's, then one per batch (the last one seals). */
const createWrites = (billable: number) => 1 + Math.ceil(billable / BATCH);

interface Entry extends EntryLike {
  id: string;
  invoice_id: string | null;
}

/** Lines as the entries make them: per project and rate, minutes, count and amount (integers; zero for the `covered` projects' time). */
function linesOf(entries: Entry[], covered: ReadonlySet<string | null> = new Set()) {
  const groups = new Map<string, { project_id: string | null; billable_rate: number; minutes: number; time_entry_count: number }>();
  for (const e of entries) {
    const key = `${e.project_id}|${e.billable_rate}`;
    const g = groups.get(key) ?? { project_id: e.project_id, billable_rate: e.billable_rate!, minutes: 0, time_entry_count: 0 };
    g.minutes += e.duration_minutes;
    g.time_entry_count += 1;
    groups.set(key, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, amount: expectedAmount(covered.has(g.project_id) ? 0n : BigInt(g.minutes) * BigInt(Math.round(g.billable_rate * 10_000)), 'USD') }))
    .sort((x, y) => `${x.project_id}|${x.billable_rate}`.localeCompare(`${y.project_id}|${y.billable_rate}`));
}

/** An invoice's time lines (its fee lines are checked against their marks: expectFeesConsistent). */
const shownLines = (invoice: any) =>
  (invoice.lines as any[])
    .filter((line) => line.kind === 'time')
    .map(({ project_id, billable_rate, minutes, time_entry_count, amount }) => ({ project_id, billable_rate, minutes, time_entry_count, amount }))
    .sort((x, y) => `${x.project_id}|${x.billable_rate}`.localeCompare(`${y.project_id}|${y.billable_rate}`));

/**
 * The invariants whatever failed: every entry naming an invoice names one that exists; a draft's
 * or open invoice's lines and count are exactly the entries naming it (a void one keeps its lines,
 * and the entries still naming it while it releases are among them); the invoiced totals equal
 * the reference over the entries naming an invoice.
 */
async function expectConsistent(ws: string, covered?: ReadonlySet<string>) {
  const entries = (await ok('listTimeEntries', query(ws, '/api/v1/time_entries', { limit: '100' }))).data as Entry[];
  const invoices = (await ok('listInvoices', query(ws, '/api/v1/invoices', { limit: '100' }))).data as any[];
  const byId = new Map(invoices.map((i) => [i.id as string, i]));
  for (const e of entries.filter((x) => x.invoice_id !== null)) expect(byId.has(e.invoice_id!), `${e.id} names ${e.invoice_id}`).toBe(true);
  for (const id of new Set(entries.map((e) => e.invoice_id).filter((x) => x !== null))) {
    expect((await invoke('retrieveInvoice', event(ws, 'GET', '/api/v1/invoices/{id}', { id }))).status).toBe(200);
  }
  for (const invoice of invoices) {
    const named = entries.filter((e) => e.invoice_id === invoice.id);
    if (invoice.status === 'void') {
      const kept = new Map(shownLines(invoice).map((l) => [`${l.project_id}|${l.billable_rate}`, l]));
      for (const line of linesOf(named, covered)) expect(line.time_entry_count).toBeLessThanOrEqual(kept.get(`${line.project_id}|${line.billable_rate}`)!.time_entry_count);
      continue;
    }
    expect(shownLines(invoice), invoice.id).toEqual(linesOf(named, covered));
    expect(invoice.time_entry_count).toBe(named.length);
  }
  const invoiced = (await ok('listTimeSummaries', query(ws, '/api/v1/time_summaries', { ...SUMMARY, invoiced: 'true', limit: '100' }))).data;
  expect(invoiced).toEqual(referenceSummary(entries.filter((e) => e.invoice_id !== null), SUMMARY, () => 'USD'));
  return { entries, invoices };
}

/** The invoice holds every billable entry, and they all name it. */
async function expectComplete(ws: string, invoice: any, billable: number) {
  const { entries, invoices } = await expectConsistent(ws);
  expect(invoice.time_entry_count).toBe(billable);
  expect(entries.filter((e) => e.invoice_id === invoice.id)).toHaveLength(billable);
  expect(invoices.map((i) => i.id)).toEqual([invoice.id]);
  expect((await invoke('retrieveInvoice', event(ws, 'GET', '/api/v1/invoices/{id}', { id: invoice.id }))).body).toEqual(invoice);
}

const failTransaction = (k: number, when: 'before' | 'after' | 'kill') => faults.failTransaction(k, when);

/** Sends the request and leaves it hanging (its function killed); resolves once its killed write was reached. */
async function killedAt(k: number, operation: Operation, request: APIGatewayProxyEvent) {
  failTransaction(k, 'kill');
  void handlers[operation]!(request, lambdaContext());
  await vi.waitFor(() => expect(docMock.commandCalls(TransactWriteCommand).length).toBe(k + 1), { timeout: 30_000, interval: 20 });
  docMock.reset();
  docMock.send.callThrough();
}

const storedInvoice = async (ws: string, id: string) => (await raw.send(new GetCommand({ TableName: inject('tableName'), Key: keys.item(ws, 'INVOICE', id) }))).Item!;

const invoiceIdsOf = async (ws: string) => ((await ok('listInvoices', query(ws, '/api/v1/invoices', { limit: '100' }))).data as any[]).map((i) => i.id as string);

/** A retry while the dead request's lease runs: 409 idempotency_key_in_use, Retry-After the lease's seconds left. */
async function expectKeyInUse(request: APIGatewayProxyEvent) {
  const waiting = await invoke('createInvoice', again(request));
  expect([waiting.status, waiting.body.error?.type], JSON.stringify(waiting.body)).toEqual([409, 'idempotency_key_in_use']);
  // The clock stands still: the whole lease is left.
  expect(waiting.headers['Retry-After']).toBe(String(Math.ceil(LEASE_MS / 1000)));
}

describe('a create of several batches under failure', () => {
  it(`takes ${createWrites(BILLABLE)} transactions when nothing fails (the draft, then a batch of ${BATCH} at most each)`, async () => {
    const { ws, client, billable } = await workspaceWithTime();
    expect(billable).toBe(BILLABLE);
    docMock.resetHistory();
    const created = await invoke('createInvoice', createRequest(ws, client, randomUUID()));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(docMock.commandCalls(TransactWriteCommand)).toHaveLength(createWrites(billable));
    await expectComplete(ws, created.body, billable);
  });

  for (let k = 0; k < createWrites(BILLABLE); k++) {
    for (const when of ['before', 'after'] as const) {
      it(`write ${k + 1} of ${createWrites(BILLABLE)} failing ${when} it lands: consistent, 503, and the keyed retry finishes the same invoice`, async () => {
        const { ws, client, billable } = await workspaceWithTime();
        const request = createRequest(ws, client, randomUUID());
        failTransaction(k, when);
        const { value: failed, lines } = await valueWithLogs(() => invoke('createInvoice', request));
        docMock.reset();
        docMock.send.callThrough();
        expect(failed.status, JSON.stringify(failed.body)).toBe(503);
        expect(failed.headers['Retry-After']).toBe((when === 'after' ? timedOut : internal).retryAfter);
        expect(lines.filter((l) => l.level === 'ERROR').map((l) => l.message)).toEqual(['Dependency failure']);
        await expectConsistent(ws);
        const made = await invoiceIdsOf(ws);
        const sealed = when === 'after' && k === createWrites(billable) - 1;
        // Nothing landed: no invoice. The draft's write landed: its request died without a word, so
        // its lease runs. A batch failed: that request gave its work up as it answered.
        if (k === 0 && when === 'before') expect(made).toEqual([]);
        else expect(made).toHaveLength(1);
        if (k > 0 && !sealed) {
          // The batches that landed stand (a response lost included); the lease was given up.
          const stored = await storedInvoice(ws, made[0]!);
          expect(stored.work).toMatchObject({ kind: 'build', lease_until: 0, next: (when === 'after' ? k : k - 1) * BATCH });
        }
        if (k === 0 && when === 'after') {
          await expectKeyInUse(request);
          await expectConsistent(ws);
          afterTheLease();
        }
        const retried = await invoke('createInvoice', again(request));
        expect(retried.status, JSON.stringify(retried.body)).toBe(201);
        expect(retried.headers['Idempotent-Replayed']).toBe(sealed ? 'true' : undefined);
        if (made.length) expect(retried.body.id).toBe(made[0]);
        await expectComplete(ws, retried.body, billable);
        // Done: the key now replays it.
        const replay = await invoke('createInvoice', again(request));
        expect([replay.status, replay.headers['Idempotent-Replayed'], replay.body]).toEqual([201, 'true', retried.body]);
      });
    }
  }

  for (let k = 1; k < createWrites(BILLABLE); k++) {
    it(`killed before write ${k + 1} (after batch ${k - 1}): consistent; the keyed retry waits out the lease, then finishes the same invoice`, async () => {
      const { ws, client, billable } = await workspaceWithTime();
      const request = createRequest(ws, client, randomUUID());
      await killedAt(k, 'createInvoice', request);
      const { invoices } = await expectConsistent(ws);
      expect(invoices).toHaveLength(1);
      expect(invoices[0].time_entry_count).toBe(Math.min(billable, (k - 1) * BATCH));
      await expectKeyInUse(request);
      afterTheLease();
      const retried = await invoke('createInvoice', again(request));
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(retried.body.id).toBe(invoices[0].id);
      await expectComplete(ws, retried.body, billable);
    });
  }
});

describe('a release killed part-way', () => {
  async function invoiced() {
    const { ws, client, billable } = await workspaceWithTime();
    const invoice = (await ok('createInvoice', createRequest(ws, client, randomUUID()))).id as string;
    return { ws, invoice, billable };
  }
  const released = async (ws: string) => {
    const { entries } = await expectConsistent(ws);
    expect(entries.filter((e) => e.invoice_id !== null)).toEqual([]);
    expect((await ok('listTimeSummaries', query(ws, '/api/v1/time_summaries', { ...SUMMARY, invoiced: 'true', limit: '100' }))).data).toEqual([]);
  };
  /**
   * Part of the entries released. While the dead request's lease runs, a retry with its own key is
   * 409 idempotency_key_in_use (its reply comes once the release ends, Retry-After 1), and another
   * request waits out the lease (409 invalid_state naming the status, Retry-After); then the clock passes it.
   */
  const stillReleasing = async (ws: string, id: string, billable: number, operation: Operation, request: APIGatewayProxyEvent, status: 'void' | 'draft') => {
    const { entries } = await expectConsistent(ws);
    const named = entries.filter((e) => e.invoice_id === id).length;
    expect(named).toBeGreaterThan(0);
    expect(named).toBeLessThan(billable);
    const key = request.headers['Idempotency-Key'];
    if (key !== undefined) {
      const own = await invoke(operation, again(request));
      expect([own.status, own.body.error?.type], JSON.stringify(own.body)).toEqual([409, 'idempotency_key_in_use']);
      expect(own.headers['Retry-After']).toBe('1');
    }
    const { 'Idempotency-Key': _key, ...headers } = request.headers;
    const other = await invoke(operation, again({ ...request, headers }));
    expect([other.status, other.body.error?.type]).toEqual([409, 'invalid_state']);
    expect(other.body.error.message).toContain(`is ${status}, its time entries being released by another request`);
    expect(other.headers['Retry-After']).toBe(String(Math.ceil(LEASE_MS / 1000)));
    afterTheLease();
  };

  it('a void: the next void waits out the lease (409 invalid_state, Retry-After), then finishes the release', async () => {
    const { ws, invoice, billable } = await invoiced();
    await ok('finalizeInvoice', event(ws, 'POST', '/api/v1/invoices/{id}/finalize', { id: invoice }));
    const key = randomUUID();
    const voidRequest = event(ws, 'POST', '/api/v1/invoices/{id}/void', { id: invoice, headers: { 'Idempotency-Key': key } });
    // The void's own write, then one batch released, then killed.
    await killedAt(2, 'voidInvoice', voidRequest);
    await stillReleasing(ws, invoice, billable, 'voidInvoice', voidRequest, 'void');
    const voided = await invoke('voidInvoice', again(voidRequest));
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body).toMatchObject({ id: invoice, status: 'void', time_entry_count: billable });
    await released(ws);
    // The key's record was written by the void that finished: a replay.
    const replay = await invoke('voidInvoice', again(voidRequest));
    expect([replay.status, replay.headers['Idempotent-Replayed'], replay.body]).toEqual([200, 'true', voided.body]);
  });

  it('a delete: the next DELETE waits out the lease (409 invalid_state, Retry-After), then releases the rest and deletes the draft', async () => {
    const { ws, invoice, billable } = await invoiced();
    const deleteRequest = event(ws, 'DELETE', '/api/v1/invoices/{id}', { id: invoice });
    // The delete's start, then one batch released, then killed.
    await killedAt(2, 'deleteInvoice', deleteRequest);
    // The release records the version of the draft's last event: invoice.deleted follows it (events/build.ts).
    const stored = await storedInvoice(ws, invoice);
    expect(stored.work).toMatchObject({ kind: 'release', then: 'delete', announced: stored.version });
    await stillReleasing(ws, invoice, billable, 'deleteInvoice', deleteRequest, 'draft');
    const deleted = await invoke('deleteInvoice', again(deleteRequest));
    expect([deleted.status, deleted.body]).toEqual([200, { object: 'invoice', id: invoice, deleted: true }]);
    await released(ws);
    expect(await invoiceIdsOf(ws)).toEqual([]);
    expect((await invoke('retrieveInvoice', event(ws, 'GET', '/api/v1/invoices/{id}', { id: invoice }))).status).toBe(404);
    expect((await raw.send(new GetCommand({ TableName: inject('tableName'), Key: keys.invoiceEntries(ws, invoice) }))).Item).toBeUndefined();
  });
});

describe('a DELETE of a draft whose create died part-way', () => {
  it('keyless: 409 invalid_state with Retry-After while the lease runs; past it, the DELETE releases what was locked and the draft goes', async () => {
    const { ws, client, billable } = await workspaceWithTime();
    const request = event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, ...PERIOD } });
    await killedAt(3, 'createInvoice', request); // two batches locked
    const [id] = await invoiceIdsOf(ws);
    const { entries } = await expectConsistent(ws);
    expect(entries.filter((e) => e.invoice_id === id)).toHaveLength(2 * BATCH);
    const deleteRequest = event(ws, 'DELETE', '/api/v1/invoices/{id}', { id: id! });
    const waiting = await invoke('deleteInvoice', deleteRequest);
    expect([waiting.status, waiting.body.error?.type]).toEqual([409, 'invalid_state']);
    expect(waiting.headers['Retry-After']).toBe(String(Math.ceil(LEASE_MS / 1000)));
    afterTheLease();
    const deleted = await invoke('deleteInvoice', again(deleteRequest));
    expect([deleted.status, deleted.body]).toEqual([200, { object: 'invoice', id, deleted: true }]);
    const after = await expectConsistent(ws);
    expect(after.entries.filter((e) => e.invoice_id !== null)).toEqual([]);
    expect(after.invoices).toEqual([]);
    // The time is invoiceable again, whole.
    const created = await invoke('createInvoice', event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, ...PERIOD, discount_rate: 5, tax_rate: 20 } }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await expectComplete(ws, created.body, billable);
  });

  it('keyed: once a DELETE cleared the abandoned draft, a retry with the key creates the invoice afresh', async () => {
    const { ws, client, billable } = await workspaceWithTime();
    const request = createRequest(ws, client, randomUUID());
    await killedAt(2, 'createInvoice', request);
    const [id] = await invoiceIdsOf(ws);
    afterTheLease();
    expect((await invoke('deleteInvoice', event(ws, 'DELETE', '/api/v1/invoices/{id}', { id: id! }))).status).toBe(200);
    const retried = await invoke('createInvoice', again(request));
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body.id).not.toBe(id);
    await expectComplete(ws, retried.body, billable);
    const replay = await invoke('createInvoice', again(request));
    expect([replay.status, replay.headers['Idempotent-Replayed'], replay.body.id]).toEqual([201, 'true', retried.body.id]);
  });
});

describe('a create with fees under failure (decision 0029)', () => {
  /**
   * A client whose April charges five fees (a fixed price, four weekly retainer periods) and has
   * two entries of time and materials and one the retainer covers: a draft, three fee batches of
   * two at most, one of the hourly time, one of the covered time.
   */
  async function workspaceWithFees() {
    const ws = `invoice-fees-${randomUUID().slice(0, 8)}`;
    const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Fees', company_email: 'f@fees.test' } }))).id as string;
    const project = async (body: Record<string, unknown>) => (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { client_id: client, ...body } }))).id as string;
    const fixed = await project({ name: 'Fixed', billing_type: 'ProjectBased', fixed_price: 500 });
    const weekly = await project({ name: 'Weekly', billing_type: 'Retainer', amount: 40, interval_count: 1, interval_unit: 'Week', start_date: '2026-03-30T00:00:00Z' });
    const hourly = await project({ name: 'Hourly', billing_type: 'Monthly', hourly_rate: 90 });
    const entries = ([[hourly, 2], [hourly, 3], [weekly, 4]] as const).map(([project_id, day]) => ({ project_id, started_at: `2026-04-0${day}T10:00:00Z`, duration_minutes: 30 }));
    await ok('logTimeEntryBatch', event(ws, 'POST', '/api/v1/time_entries/batch', { body: { entries } }));
    return { ws, client, feeProjects: [fixed, weekly] };
  }
  const FEES = 5;
  const ENTRIES = 3;
  const writes = 1 + Math.ceil(FEES / BATCH) + 1 + 1;

  /** The fees' marks as stored: mark → the invoice it names. */
  async function marksOf(ws: string, projects: string[]) {
    const marks = new Map<string, string>();
    for (const project of projects) {
      const out = await raw.send(new QueryCommand({ TableName: inject('tableName'), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.feesPartition(ws, project) }, ConsistentRead: true }));
      for (const item of out.Items ?? []) marks.set(`${project}|${String(item.SK)}`, String(item.invoice_id));
    }
    return marks;
  }
  const markOfLine = (line: any) => `${line.project_id}|${line.kind === 'fixed_price' ? 'FIXED' : `RETAINER#${line.period_start}`}`;

  /** The entries' invariants (expectConsistent), and the fees': every mark names an invoice whose lines charge it; every fee line of an invoice not void has its mark. */
  async function expectFeesConsistent(ws: string, projects: string[]) {
    const { entries, invoices } = await expectConsistent(ws);
    const marks = await marksOf(ws, projects);
    const byId = new Map(invoices.map((i) => [i.id as string, i]));
    for (const [mark, invoiceId] of marks) {
      expect(byId.has(invoiceId), `${mark} names ${invoiceId}`).toBe(true);
      expect((byId.get(invoiceId)!.lines as any[]).filter((l) => l.kind !== 'time').map(markOfLine), mark).toContain(mark);
    }
    for (const invoice of invoices.filter((i) => i.status !== 'void')) {
      for (const line of (invoice.lines as any[]).filter((l) => l.kind !== 'time')) expect(marks.get(markOfLine(line)), markOfLine(line)).toBe(invoice.id);
    }
    return { entries, invoices, marks };
  }

  async function expectCompleteWithFees(ws: string, invoice: any, projects: string[]) {
    const { invoices, marks } = await expectFeesConsistent(ws, projects);
    expect(invoices.map((i) => i.id)).toEqual([invoice.id]);
    expect(invoice.time_entry_count).toBe(ENTRIES);
    // In the order of their projects' ids (made in one millisecond here, the clock standing still: in either order).
    const fees = (invoice.lines as any[]).filter((l) => l.kind !== 'time').map((l) => [l.kind, l.period_start, l.amount]);
    expect(fees.filter(([kind]) => kind === 'retainer')).toEqual(['2026-04-06', '2026-04-13', '2026-04-20', '2026-04-27'].map((start) => ['retainer', start, '40.00']));
    expect(fees.filter(([kind]) => kind === 'fixed_price')).toEqual([['fixed_price', undefined, '500.00']]);
    expect([...marks.values()]).toEqual(Array.from({ length: FEES }, () => invoice.id));
    expect((await invoke('retrieveInvoice', event(ws, 'GET', '/api/v1/invoices/{id}', { id: invoice.id }))).body).toEqual(invoice);
  }

  it(`takes ${writes} transactions when nothing fails: the draft, the fees in batches of ${BATCH}, then the hourly time, then the covered time`, async () => {
    const { ws, client, feeProjects } = await workspaceWithFees();
    docMock.resetHistory();
    const created = await invoke('createInvoice', createRequest(ws, client, randomUUID()));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(docMock.commandCalls(TransactWriteCommand)).toHaveLength(writes);
    expect(created.body).toMatchObject({ subtotal: '750.00', discount_amount: '37.50', tax_amount: '142.50', total: '855.00' }); // fees 660.00, time 90.00
    await expectCompleteWithFees(ws, created.body, feeProjects);
  });

  // The draft and a batch of hourly time fail above; here each kind of write that marks or covers:
  // the first and the last fee batch, and the covered time's batch (the test budget of npm test).
  for (const k of [1, 3, 5]) {
    for (const when of ['before', 'after'] as const) {
      it(`write ${k + 1} of ${writes} failing ${when} it lands: the marks name what charges them; the keyed retry finishes the same invoice`, async () => {
        const { ws, client, feeProjects } = await workspaceWithFees();
        const request = createRequest(ws, client, randomUUID());
        failTransaction(k, when);
        const failed = await valueWithLogs(() => invoke('createInvoice', request));
        docMock.reset();
        docMock.send.callThrough();
        expect(failed.value.status, JSON.stringify(failed.value.body)).toBe(503);
        const { invoices } = await expectFeesConsistent(ws, feeProjects);
        if (k === 0 && when === 'after') {
          await expectKeyInUse(request);
          afterTheLease();
        }
        const retried = await invoke('createInvoice', again(request));
        expect(retried.status, JSON.stringify(retried.body)).toBe(201);
        if (invoices.length) expect(retried.body.id).toBe(invoices[0].id);
        await expectCompleteWithFees(ws, retried.body, feeProjects);
      });
    }
  }

  // Killed with some fees marked, and with every fee marked and the time not yet taken.
  for (const k of [2, 5]) {
    it(`killed before write ${k + 1}: the marks name what charges them; the keyed retry waits out the lease, then finishes the same invoice`, async () => {
      const { ws, client, feeProjects } = await workspaceWithFees();
      const request = createRequest(ws, client, randomUUID());
      await killedAt(k, 'createInvoice', request);
      const { invoices, marks } = await expectFeesConsistent(ws, feeProjects);
      expect(invoices).toHaveLength(1);
      expect(marks.size).toBe(Math.min(FEES, (k - 1) * BATCH));
      await expectKeyInUse(request);
      afterTheLease();
      const retried = await invoke('createInvoice', again(request));
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(retried.body.id).toBe(invoices[0].id);
      await expectCompleteWithFees(ws, retried.body, feeProjects);
    });
  }

  for (const [operation, status] of [['voidInvoice', 'void'], ['deleteInvoice', 'draft']] as const) {
    it(`a ${operation === 'voidInvoice' ? 'void' : 'delete'} killed part-way through its fees: the marks left name it; the next one releases the rest, and a new invoice charges them again`, async () => {
      const { ws, client, feeProjects } = await workspaceWithFees();
      const invoice = (await ok('createInvoice', createRequest(ws, client, randomUUID()))).id as string;
      if (operation === 'voidInvoice') await ok('finalizeInvoice', event(ws, 'POST', '/api/v1/invoices/{id}/finalize', { id: invoice }));
      const request = operation === 'voidInvoice' ? event(ws, 'POST', '/api/v1/invoices/{id}/void', { id: invoice }) : event(ws, 'DELETE', '/api/v1/invoices/{id}', { id: invoice });
      // Its start, then one batch of fees released, then killed.
      await killedAt(2, operation, request);
      const { marks } = await expectFeesConsistent(ws, feeProjects);
      expect(marks.size).toBe(FEES - BATCH);
      expect([...marks.values()].every((id) => id === invoice)).toBe(true);
      const stored = await storedInvoice(ws, invoice);
      expect([stored.data.status, stored.work.next]).toEqual([status, BATCH]);
      afterTheLease();
      const finished = await invoke(operation, again(request));
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
      const after = await expectFeesConsistent(ws, feeProjects);
      expect(after.marks.size).toBe(0);
      expect(after.entries.filter((e) => e.invoice_id !== null)).toEqual([]);
      const next = await invoke('createInvoice', createRequest(ws, client, randomUUID()));
      expect(next.status, JSON.stringify(next.body)).toBe(201);
      const again_ = await expectFeesConsistent(ws, feeProjects);
      expect([...again_.marks.values()]).toEqual(Array.from({ length: FEES }, () => next.body.id));
      expect(next.body.time_entry_count).toBe(ENTRIES);
    });
  }
});

describe('a create with credit under failure and races (decision 0029)', () => {
  /** A client with a CreditBased project (blocks of 100.00, 1.00 a minute) and an entry on each April day of `minutes` (day → minutes). */
  async function workspaceWithCredit(minutes: Record<number, number>) {
    const ws = `invoice-credit-${randomUUID().slice(0, 8)}`;
    const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Credit', company_email: 'c@credit.test' } }))).id as string;
    const body = { client_id: client, name: 'Prepaid', billing_type: 'CreditBased', amount: 100, hourly_rate: 60 };
    const project = (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body }))).id as string;
    const entries = Object.entries(minutes).map(([day, duration_minutes]) => ({ project_id: project, started_at: `2026-04-0${day}T10:00:00Z`, duration_minutes }));
    await ok('logTimeEntryBatch', event(ws, 'POST', '/api/v1/time_entries/batch', { body: { entries } }));
    return { ws, client, project };
  }
  const ledgerOf = async (ws: string, project: string) => (await raw.send(new GetCommand({ TableName: inject('tableName'), Key: keys.creditLedger(ws, project) }))).Item?.credit;
  const creditRequest = (ws: string, client: string, day: number) =>
    event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, from: `2026-04-0${day}`, to: `2026-04-0${day + 1}` }, headers: { 'Idempotency-Key': randomUUID() } });
  // The draft, the covered time's batch, then the credit's (which seals).
  const expectBought = (invoice: any) =>
    expect((invoice.lines as any[]).find((l) => l.kind === 'credit')).toMatchObject({ blocks: 2, credit_used: '150.00', credit_balance: '50.00', amount: '200.00' });

  for (const when of ['after', 'kill'] as const) {
    it(`the credit's write ${when === 'after' ? 'landing, its response lost' : 'never sent (the function killed)'}: the ledger counts the line once; the keyed retry finishes the same invoice`, async () => {
      const { ws, client, project } = await workspaceWithCredit({ 2: 150 });
      const request = creditRequest(ws, client, 2);
      if (when === 'kill') await killedAt(2, 'createInvoice', request);
      else {
        failTransaction(2, 'after');
        expect((await valueWithLogs(() => invoke('createInvoice', request))).value.status).toBe(503);
        docMock.reset();
        docMock.send.callThrough();
      }
      await expectConsistent(ws, new Set([project]));
      // Landed: the line and the ledger together; killed before: neither.
      expect(await ledgerOf(ws, project)).toBe(when === 'after' ? '5000' : undefined);
      afterTheLease();
      const retried = await invoke('createInvoice', again(request));
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expectBought(retried.body);
      expect(await invoiceIdsOf(ws)).toEqual([retried.body.id]);
      expect(await ledgerOf(ws, project)).toBe('5000');
    });
  }

  it('a create whose credit another invoice bought meanwhile: its covered time is given back, its draft goes, 409 nothing_to_invoice, as in that order', async () => {
    // 150.00 of time on April 2, 30.00 on April 3: alone, each create would buy blocks.
    const { ws, client, project } = await workspaceWithCredit({ 2: 150, 3: 30 });
    const first = creditRequest(ws, client, 2);
    const second = creditRequest(ws, client, 3);
    let n = 0;
    let raced: Awaited<ReturnType<typeof invoke>> | undefined;
    docMock.on(TransactWriteCommand).callsFake(async (input: unknown) => {
      // Just before the second's credit write (its third), the first commits whole: 2 blocks, 50.00 left.
      if (n++ === 2 && raced === undefined) raced = await invoke('createInvoice', first);
      return raw.send(new TransactWriteCommand(input as never));
    });
    const refused = await invoke('createInvoice', second);
    expect(raced!.status, JSON.stringify(raced!.body)).toBe(201);
    expectBought(raced!.body);
    // From 50.00, 30.00 of time buys nothing: covered time and credit used alone make no invoice.
    expect([refused.status, refused.body.error?.type], JSON.stringify(refused.body)).toEqual([409, 'nothing_to_invoice']);
    const { entries } = await expectConsistent(ws, new Set([project]));
    expect(new Set(entries.map((e) => e.invoice_id))).toEqual(new Set([null, raced!.body.id]));
    expect(await invoiceIdsOf(ws)).toEqual([raced!.body.id]);
    expect(await ledgerOf(ws, project)).toBe('5000');
    // Its key answers the same once retried: the create starts afresh, and finds nothing to charge.
    docMock.reset();
    docMock.send.callThrough();
    expect((await invoke('createInvoice', again(second))).body.error?.type).toBe('nothing_to_invoice');
  });
});

describe('a finalize at a total of zero under failure', () => {
  it('finalized then paid in two writes: a keyed retry after the second failed finishes it, and replays it after', async () => {
    const ws = `invoice-faults-${randomUUID().slice(0, 8)}`;
    const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Zero', company_email: 'z@zero.test' } }))).id;
    const draft = await ok('createInvoice', event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, items: [{ description: 'Goodwill', quantity: 1, unit_price: 0 }] } }));
    const finalize = event(ws, 'POST', '/api/v1/invoices/{id}/finalize', { id: draft.id, body: {}, headers: { 'Idempotency-Key': randomUUID() } });
    failTransaction(1, 'before');
    const { value: died, lines } = await valueWithLogs(() => invoke('finalizeInvoice', finalize));
    expect(died.status).toBe(503);
    expect(lines.filter((l) => l.level === 'ERROR').map((l) => l.message)).toEqual(['Dependency failure']);
    const left = await invoke('retrieveInvoice', event(ws, 'GET', '/api/v1/invoices/{id}', { id: draft.id }));
    expect([left.body.status, left.body.number, left.body.amount_due]).toEqual(['open', 'INV-000001', '0.00']);
    docMock.reset();
    docMock.send.callThrough();
    const finished = await invoke('finalizeInvoice', again(finalize));
    expect([finished.status, finished.body.status, finished.body.paid_at, finished.body.number]).toEqual([200, 'paid', left.body.finalized_at, 'INV-000001']);
    const replayed = await invoke('finalizeInvoice', again(finalize));
    expect([replayed.headers['Idempotent-Replayed'], replayed.body]).toEqual(['true', finished.body]);
  });
});
