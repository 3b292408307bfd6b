/**
 * Stopping the local stack stops its stream poller and delivery scheduler and loses nothing
 * already acknowledged: over a DATA_DIR, every change answered before the stop has exactly one
 * event after the restart, the data is there (a client made before the stop is listed, with a
 * token minted on the new stack), a delivery waiting for its retry is made by the next stack, and
 * nothing already delivered is delivered again.
 *
 * The two stops are SIGTERM, then SIGINT, sent to the npm process alone (as a script or a
 * supervisor does, not a terminal's Ctrl-C: local-stack.test.ts sends that): each stops the whole
 * process tree (npm, node, java, ...) within 5 s, as a stop, not as a death of DynamoDB Local.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LOCAL_TABLE_NAME } from '../../infra/local/stack.ts';
import { allGone, cleanUpStarted, dirs, javaOf, javaTempDirOf, localToken, npmStart, npmStartUntilExit, sleep, tree, waitUntilClosed, type Running } from '../support/npm-start.ts';
import { startReceiver, storedEvents, waitFor, type Receiver } from '../support/events.ts';

afterAll(cleanUpStarted);
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const SCOPES = 'clients:read,clients:write,webhook_endpoints:read,webhook_endpoints:write';
const WORKSPACE = 'restart';

async function call(s: Running, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${s.port}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as any };
}

const eventsOf = (s: Running) => storedEvents({ endpoint: `http://127.0.0.1:${s.dynamoPort}`, tableName: LOCAL_TABLE_NAME }, WORKSPACE);

/** `signal` to npm alone (not its process group): the whole stack stops within 5 s, as a stop, and leaves no temporary directory of Java's. */
async function stopByNpmAlone(s: Running, signal: 'SIGINT' | 'SIGTERM') {
  const procs = tree(s.child.pid!);
  expect(procs.map((p) => p.comm)).toEqual(expect.arrayContaining(['npm start', 'node', 'java']));
  const javaTempDir = javaTempDirOf(javaOf(procs));
  const sentAt = Date.now();
  process.kill(s.child.pid!, signal); // npm only, not its process group
  expect(await allGone(procs, 5000), `${signal} to npm alone`).toEqual([]);
  expect(Date.now() - sentAt).toBeLessThan(5000);
  expect(await waitUntilClosed(s.dynamoPort)).toBe(true);
  expect(existsSync(javaTempDir), "Java's temporary directory").toBe(false);
  expect(s.output()).not.toMatch(/DynamoDB Local .* (exited|stopped answering)/); // a stop, not a death
}

describe('the local stack stopped and started again over DATA_DIR', { timeout: 180_000 }, () => {
  it("SIGTERM, then SIGINT, to npm alone stops the whole stack within 5 s; the next stack lists the client made before, keeps every acknowledged change's event (once), delivers what was waiting for a retry, and delivers nothing twice", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'timebill-events-'));
    dirs.push(dataDir);
    const retried = await startReceiver();
    const delivered = await startReceiver();
    receivers.push(retried, delivered);
    retried.respondWith.push(500); // the first attempt fails: the delivery waits for its retry
    // The retry must still wait when the first stack stops: 6 s leaves a loaded machine room for the
    // PATCH and the stop; the second stack takes about as long to start, so it adds little.
    const env = { DATA_DIR: dataDir, WEBHOOK_RETRY_BASE_MS: '6000' };

    const first = await npmStart(env);
    // A second stack on the same DATA_DIR is refused: two DynamoDB Locals on one file would corrupt it.
    // Its npm and tsx start (a few seconds) overlaps the first stack's requests; it is awaited before the stop.
    const refused = npmStartUntilExit(env);
    const token = await localToken(first.port, WORKSPACE, SCOPES);
    expect((await call(first, token, 'POST', '/webhook_endpoints', { url: retried.url, enabled_events: ['client.created'] })).status).toBe(201);
    expect((await call(first, token, 'POST', '/webhook_endpoints', { url: delivered.url, enabled_events: ['client.created'] })).status).toBe(201);
    const created = await call(first, token, 'POST', '/clients', { company_name: 'Before the stop', company_email: 'a@a.test' });
    expect(created.status).toBe(201);
    await waitFor(async () => (retried.received.length >= 1 && delivered.received.length >= 1 ? true : undefined), 'the first attempts');
    const second = await refused;
    expect([second.code, second.output]).toEqual([2, expect.stringContaining(`DATA_DIR ${dataDir} is in use by another npm start`)]);
    // A change answered just before the stop: its event may or may not be made before the stop.
    const late = await call(first, token, 'PATCH', `/clients/${created.body.id}`, { status: 'ACTIVE' });
    expect(late.status).toBe(200);
    await stopByNpmAlone(first, 'SIGTERM');
    expect(retried.received).toHaveLength(1);
    expect(delivered.received).toHaveLength(1);

    const again = await npmStart(env);
    // The data is kept: the client made before the stop is listed, with a token minted on the new stack.
    const readToken = await localToken(again.port, WORKSPACE, 'clients:read');
    const listed = await call(again, readToken, 'GET', '/clients');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { company_name: string }) => c.company_name)).toEqual(['Before the stop']);
    // The waiting delivery is made by the new stack, with the same event.
    await waitFor(async () => (retried.received.length >= 2 ? true : undefined), 'the retried delivery');
    expect(retried.received[1]!.headers['webhook-id']).toBe(retried.received[0]!.headers['webhook-id']);
    // Every acknowledged change has exactly one event.
    const events = await waitFor(async () => {
      const stored = await eventsOf(again);
      return stored.some((e) => e.event.request_id === late.requestId) ? stored : undefined;
    }, 'the event of the late change');
    expect(events.map((e) => e.event.request_id).sort()).toEqual([created.requestId, late.requestId].sort());
    expect(events.map((e) => e.event.type)).toEqual(['client.created', 'client.updated']);
    // The stream is not consumed again from its start: what was delivered is not delivered again.
    await sleep(2000);
    expect(delivered.received).toHaveLength(1);
    expect(retried.received).toHaveLength(2);
    await stopByNpmAlone(again, 'SIGINT');
  });
});
