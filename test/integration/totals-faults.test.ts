/**
 * The time totals under failure (decision 0019): the handlers run in process over the shared
 * table, and aws-sdk-client-mock fails the transaction that carries an entry's change and its
 * totals, either before it lands or after (the response lost: a timeout). Either way the
 * summary equals the reference computed from the entries as they are, and a retry with the same
 * Idempotency-Key finishes the change once: nothing counted twice, nothing lost.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { handlerCalls, importHandler, proxyEvent as event, useSharedTable, type ProxyHandler } from '../support/in-process.ts';
import { mockWrites, type WriteFaults } from '../support/write-faults.ts';
import { valueWithLogs } from '../support/logs.ts';
import { referenceSummary, type EntryLike } from '../support/summaries.ts';

const OPERATIONS = ['createClient', 'createProject', 'logTimeEntry', 'updateTimeEntry', 'deleteTimeEntry', 'listTimeEntries', 'listTimeSummaries'] as const satisfies readonly Operation[];
const handlers: Partial<Record<Operation, ProxyHandler>> = {};
let faults: WriteFaults;

beforeAll(async () => {
  useSharedTable('totals-faults-test-cursor-signing-key-0123456789', { AWS_LAMBDA_LOG_LEVEL: 'WARN' });
  for (const name of OPERATIONS) handlers[name] = await importHandler(routeByOperation(name).entry);
  faults = await mockWrites();
});
afterEach(() => faults.passThrough());
afterAll(() => faults?.restore());

const { invoke, ok } = handlerCalls(handlers);

const query = (ws: string, path: string, params: Record<string, string>) => ({ ...event(ws, 'GET', path), queryStringParameters: params });
const SUMMARY = { from: '2026-04-01', to: '2026-05-01', timezone: 'America/St_Johns', group_by: 'project', period: 'day', limit: '100' };

/** The summary as the service answers it equals the reference over the entries as they are. */
async function expectExact(ws: string) {
  const entries = (await ok('listTimeEntries', query(ws, '/api/v1/time_entries', { limit: '100' }))).data as EntryLike[];
  const rows = (await ok('listTimeSummaries', query(ws, '/api/v1/time_summaries', SUMMARY))).data;
  expect(rows).toEqual(referenceSummary(entries, SUMMARY as never, () => 'USD'));
  return entries;
}

/** The next TransactWrite fails: before it lands, or after (it lands, then the response is lost). */
const failNextTransaction = (when: 'before' | 'after') => faults.failTransaction(0, when);

describe('a failed transaction of an entry and its totals', () => {
  const cases: { label: string; request: (ws: string, ids: { entry: string; project: string; other: string }, key: string) => { operation: Operation; event: APIGatewayProxyEvent } }[] = [
    {
      label: 'log',
      request: (ws, ids, key) => ({
        operation: 'logTimeEntry',
        event: event(ws, 'POST', '/api/v1/time_entries', { body: { project_id: ids.project, started_at: '2026-04-10T02:30:00Z', duration_minutes: 50 }, headers: { 'Idempotency-Key': key } }),
      }),
    },
    {
      label: 'correction',
      request: (ws, ids, key) => ({
        operation: 'updateTimeEntry',
        event: event(ws, 'PATCH', '/api/v1/time_entries/{id}', { id: ids.entry, body: { started_at: '2026-04-11T02:29:00Z', duration_minutes: 7 }, headers: { 'Idempotency-Key': key } }),
      }),
    },
    {
      label: 'move',
      request: (ws, ids, key) => ({
        operation: 'updateTimeEntry',
        event: event(ws, 'PATCH', '/api/v1/time_entries/{id}', { id: ids.entry, body: { project_id: ids.other }, headers: { 'Idempotency-Key': key } }),
      }),
    },
    {
      label: 'delete',
      request: (ws, ids, key) => ({
        operation: 'deleteTimeEntry',
        event: event(ws, 'DELETE', '/api/v1/time_entries/{id}', { id: ids.entry, headers: { 'Idempotency-Key': key } }),
      }),
    },
  ];

  for (const c of cases) {
    for (const when of ['before', 'after'] as const) {
      it(`${c.label}, failing ${when} it lands: exact, and the retry finishes it once`, async () => {
        const ws = `totals-faults-${randomUUID().slice(0, 8)}`;
        const client = (await ok('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Acme', company_email: 'a@acme.test' } }))).id;
        const project = (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name: 'A', client_id: client, billing_type: 'Monthly', hourly_rate: 95 } }))).id;
        const other = (await ok('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name: 'B', client_id: client, billing_type: 'Monthly', hourly_rate: 12.5 } }))).id;
        const entry = (await ok('logTimeEntry', event(ws, 'POST', '/api/v1/time_entries', { body: { project_id: project, started_at: '2026-04-10T02:29:00Z', duration_minutes: 61 } }))).id;
        const before = await expectExact(ws);

        const key = randomUUID();
        const { operation, event: request } = c.request(ws, { entry, project, other }, key);
        failNextTransaction(when);
        const { value: failed, lines } = await valueWithLogs(() => invoke(operation, request));
        expect(failed.status).toBe(503);
        expect(lines.filter((l) => l.level === 'ERROR').map((l) => l.message)).toEqual(['Dependency failure']);
        const after = await expectExact(ws);
        if (when === 'before') expect(after).toEqual(before);
        else expect(after).not.toEqual(before);

        // The retry: the change once, whether it had landed (a replay) or not (done now).
        const retried = await invoke(operation, { ...request, requestContext: { ...request.requestContext, requestId: randomUUID() } });
        expect(retried.status, JSON.stringify(retried.body)).toBeLessThan(300);
        expect(retried.headers['Idempotent-Replayed']).toBe(when === 'after' ? 'true' : undefined);
        expect(await expectExact(ws)).not.toEqual(before);
      });
    }
  }
});
