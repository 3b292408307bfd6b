/**
 * Stopping the local stack stops its stream poller and delivery scheduler and loses nothing
 * already acknowledged: over a DATA_DIR, a change answered just before the stop has exactly one
 * event after the restart, and a delivery waiting for its retry is delivered by the next stack.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUpStarted, dirs, lastLine, npmRunToken, npmStart, waitUntilClosed, type Running } from '../support/npm-start.ts';
import { startReceiver, waitFor, type Receiver } from '../support/events.ts';

afterAll(cleanUpStarted);
let receiver: Receiver | undefined;
afterEach(async () => receiver?.close());

const SCOPES = 'clients:read,clients:write,events:read,webhook_endpoints:read,webhook_endpoints:write';

async function call(s: Running, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${s.port}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as any };
}

describe('the local stack stopped and started again over DATA_DIR', { timeout: 120_000 }, () => {
  it('keeps every acknowledged change\'s event (once) and delivers what was waiting for a retry', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'timebill-events-'));
    dirs.push(dataDir);
    receiver = await startReceiver();
    receiver.respondWith.push(500); // the first attempt fails: the delivery waits for its retry
    const env = { DATA_DIR: dataDir, WEBHOOK_RETRY_BASE_MS: '3000' };

    const first = await npmStart(env);
    const token = lastLine((await npmRunToken(first.port, 'restart', SCOPES)).stdout);
    expect((await call(first, token, 'POST', '/webhook_endpoints', { url: receiver.url, enabled_events: ['client.created'] })).status).toBe(201);
    const created = await call(first, token, 'POST', '/clients', { company_name: 'Before the stop', company_email: 'a@a.test' });
    expect(created.status).toBe(201);
    await waitFor(async () => (receiver!.received.length >= 1 ? true : undefined), 'the failed first attempt');
    // A change answered just before the stop: its event may or may not be made before the stop.
    const late = await call(first, token, 'PATCH', `/clients/${created.body.id}`, { status: 'ACTIVE' });
    expect(late.status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await waitUntilClosed(first.dynamoPort)).toBe(true);
    expect(receiver.received).toHaveLength(1);

    const again = await npmStart(env);
    const token2 = lastLine((await npmRunToken(again.port, 'restart', SCOPES)).stdout);
    // The waiting delivery is made by the new stack, with the same event.
    await waitFor(async () => (receiver!.received.length >= 2 ? true : undefined), 'the retried delivery', 20_000);
    expect(receiver.received[1]!.headers['timebill-event-id']).toBe(receiver.received[0]!.headers['timebill-event-id']);
    // Every acknowledged change has exactly one event (the poller reads the stream from its start
    // again; the consumer's markers make the replay a no-op).
    const events = await waitFor(async () => {
      const list = (await call(again, token2, 'GET', '/events?limit=100')).body.data as any[];
      return list.some((e) => e.request_id === late.requestId) ? list : undefined;
    }, 'the event of the late change');
    expect(events.map((e) => e.request_id).sort()).toEqual([created.requestId, late.requestId].sort());
    expect(events.map((e) => e.type).sort()).toEqual(['client.created', 'client.updated']);
    again.child.kill('SIGTERM');
    expect(await waitUntilClosed(again.dynamoPort)).toBe(true);
  });
});
