/**
 * Webhook endpoints and deliveries (events.md) on the local stack: CRUD with the secret shown
 * once, validation and SSRF refusals, isolation, deliveries signed per Standard Webhooks that the
 * `standardwebhooks` library verifies and refuses once tampered with (every
 * event type), retries on the schedule after a failing receiver, disabled endpoints and type
 * filters, SSRF refusals at delivery time, and workspaces' deliveries kept apart.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { buildOpenApiDocument } from '../../scripts/openapi-document.ts';
import { keys } from '../../shared/data/keys.ts';
import { DATA_ATTRIBUTE } from '../../shared/data/table.ts';
import { newSecret } from '../../shared/core/webhook-signature.ts';
import { webhookEndpoint } from '../../shared/model/resources.ts';
import { apiFor, createClient, createProject, expectError, logTime, token, workspace } from '../support/api.ts';
import { WEBHOOK_RETRY_BASE_MS, startReadmeReceiver, startReceiver, storedEvents, verifiedEvent, waitFor, type Receiver } from '../support/events.ts';
import { stackWarnings } from '../support/logs.ts';

const receivers: Receiver[] = [];
/** Endpoints whose deliveries could still be retried after their test: deleted at its end, so nothing is posted to a closed receiver. */
const endpoints: { api: ReturnType<typeof apiFor>; id: string }[] = [];
afterEach(async () => {
  for (const { api, id } of endpoints.splice(0)) expect((await api.delete(`/webhook_endpoints/${id}`)).status).toBe(200);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
/** Creates an endpoint (201) that afterEach deletes. */
async function endpointOf(api: ReturnType<typeof apiFor>, body: Record<string, unknown>) {
  const created = await api.post('/webhook_endpoints', body);
  expect(created.status).toBe(201);
  endpoints.push({ api, id: created.body.id });
  return created;
}
/** The shared stack's failed-attempt lines of a workspace, as [attempt, error, next]. */
const failedAttempts = (ws: string) =>
  stackWarnings(ws).map((r) => {
    expect(r).toMatchObject({ level: 'WARN', message: 'Webhook delivery attempt failed', workspace_id: ws });
    return [r.attempt, r.error, r.next];
  });
async function receiver(host?: string) {
  const r = await startReceiver('/hooks', host);
  receivers.push(r);
  return r;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const table = () => ({ endpoint: inject('dynamoEndpoint'), tableName: inject('tableName') });
const raw = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
});
afterAll(() => raw.destroy());

describe('webhook endpoints', () => {
  it('create shows the secret once; retrieve, list and update never do', async () => {
    const { api, id: ws } = await workspace('we');
    const created = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'], description: 'CRM sync' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/webhook_endpoints/${created.body.id}`);
    expect(created.body).toEqual({
      object: 'webhook_endpoint',
      id: expect.stringMatching(/^we_[0-9A-HJKMNP-TV-Z]{26}$/),
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['client.created'],
      description: 'CRM sync',
      status: 'enabled',
      workspace_id: ws,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const { secret, ...shown } = created.body;
    expect(secret.length).toBeGreaterThan(30);
    const retrieved = await api.get(`/webhook_endpoints/${created.body.id}`);
    expect(retrieved.body).toEqual(shown);
    const listed = await api.get('/webhook_endpoints');
    expect(listed.body).toMatchObject({ object: 'list', data: [shown], has_more: false, next_cursor: null });

    const updated = await api.patch(`/webhook_endpoints/${created.body.id}`, { status: 'disabled', enabled_events: ['*'], description: null, url: 'http://localhost:9/other' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: 'disabled', enabled_events: ['*'], description: null, url: 'http://localhost:9/other' });
    expect(updated.body).not.toHaveProperty('secret');

    const deleted = await api.delete(`/webhook_endpoints/${created.body.id}`);
    expect(deleted.body).toEqual({ object: 'webhook_endpoint', id: created.body.id, deleted: true });
    expectError(await api.get(`/webhook_endpoints/${created.body.id}`), 404, 'not_found');
    expectError(await api.delete(`/webhook_endpoints/${created.body.id}`), 404, 'not_found');
  });

  it('refuses URLs that could reach internal addresses (SSRF), and unknown event types, storing nothing', async () => {
    const { api } = await workspace('we-bad');
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/hooks',
      'https://192.168.1.10/',
      'https://[::1]:8443/',
      'https://[fd00:ec2::254]/',
      'http://127.0.0.1/no-port',
      'http://127.0.0.2:8080/',
      'https://localhost/',
      'https://127.0.0.1:8443/hooks',
      'https://localhost:8443/hooks',
      'ftp://example.com/',
      'http://example.com/',
      'https://user:pw@example.com/',
      'not a url',
    ]) {
      const error = expectError(await api.post('/webhook_endpoints', { url, enabled_events: ['*'] }), 400, 'invalid_request');
      expect(error.param, url).toBe('url');
    }
    expect(expectError(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['client.exploded'] }), 400, 'invalid_request').param).toMatch(/^enabled_events/);
    expectError(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*', 'client.created'] }), 400, 'invalid_request');
    expectError(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: [] }), 400, 'invalid_request');
    expectError(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'], secret: 'mine' }), 400, 'invalid_request');
    expect((await api.get('/webhook_endpoints')).body.data).toEqual([]);

    const ok = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'] });
    expect(expectError(await api.patch(`/webhook_endpoints/${ok.body.id}`, { url: 'https://172.16.0.1/' }), 400, 'invalid_request').param).toBe('url');
    expectError(await api.patch(`/webhook_endpoints/${ok.body.id}`, { status: 'paused' }), 400, 'invalid_request');
    expect((await api.get(`/webhook_endpoints/${ok.body.id}`)).body.url).toBe('http://127.0.0.1:9/');
    // The local stack's form with the scheme's default port named: a port as any other.
    expect((await api.post('/webhook_endpoints', { url: 'http://localhost:80/hooks', enabled_events: ['*'] })).status).toBe(201);
  });

  it('count the url\'s length: 2,048 characters fit, 2,049 do not; a URL is ASCII, in its standard form', async () => {
    const { api } = await workspace('we-length');
    const base = 'http://127.0.0.1:9/';
    const longest = `${base}${'%F0%9F%98%80'.repeat(169)}${'a'.repeat(2048 - base.length - 169 * 12)}`;
    expect(longest).toHaveLength(2048);
    const created = await api.post('/webhook_endpoints', { url: longest, enabled_events: ['*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.url).toBe(longest);
    expect(expectError(await api.post('/webhook_endpoints', { url: `${longest}x`, enabled_events: ['*'] }), 400, 'invalid_request').param).toBe('url');
    // The emoji itself is refused, with the form to send: no stored URL fails the document's format: uri.
    const emoji = expectError(await api.post('/webhook_endpoints', { url: `${base}\u{1F600}`, enabled_events: ['*'] }), 400, 'invalid_request');
    expect(emoji.param).toBe('url');
    expect(emoji.message).toContain(`${base}%F0%9F%98%80`);
    expect((await api.get('/webhook_endpoints')).body.data.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
  });

  it("are invisible to other workspaces and need the webhook_endpoints scopes", async () => {
    const { api } = await workspace('we-iso');
    const mine = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'] });
    const other = await workspace('we-other');
    expectError(await other.api.get(`/webhook_endpoints/${mine.body.id}`), 404, 'not_found');
    expectError(await other.api.patch(`/webhook_endpoints/${mine.body.id}`, { status: 'disabled' }), 404, 'not_found');
    expectError(await other.api.delete(`/webhook_endpoints/${mine.body.id}`), 404, 'not_found');
    expect((await other.api.get('/webhook_endpoints')).body.data).toEqual([]);
    const readOnly = apiFor(await token(other.id, ['webhook_endpoints:read']));
    expectError(await readOnly.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'] }), 403, 'insufficient_scope');
  });

  it('are capped per workspace', async () => {
    const { api } = await workspace('we-cap');
    for (let i = 0; i < 16; i++) expect((await api.post('/webhook_endpoints', { url: `http://127.0.0.1:9/${i}`, enabled_events: ['*'] })).status).toBe(201);
    expectError(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/17', enabled_events: ['*'] }), 409, 'conflict');
  });
});

describe('deliveries', () => {
  it('post the stored event with the content type and Standard Webhooks headers that standardwebhooks verifies, and refuses tampered', async () => {
    const { api, id: ws } = await workspace('dl');
    const hook = await receiver();
    const endpoint = await api.post('/webhook_endpoints', { url: hook.url, enabled_events: ['*'] });
    const client = await createClient(api);
    const [delivery] = await waitFor(async () => (hook.received.length > 0 ? hook.received : undefined), 'a delivery');
    const [stored] = await storedEvents(table(), ws);
    expect(delivery!.headers['content-type']).toBe('application/json');
    // webhook-id is the event id; webhook-timestamp the attempt's unix seconds; the signature v1,<base64 of 32 bytes>.
    expect(delivery!.headers['webhook-id']).toBe(stored!.event.id);
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    const signature = String(delivery!.headers['webhook-signature']);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const { secret } = endpoint.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verifiedEvent(secret, delivery!)).toEqual(stored!.event);
    // Tampered: the body, the timestamp, the id or the signature; or checked with another endpoint's secret.
    const refused = (changed: { headers?: Record<string, string>; body?: string }, key = secret) =>
      expect(() => verifiedEvent(key, { body: changed.body ?? delivery!.body, headers: { ...delivery!.headers, ...changed.headers } })).toThrow(WebhookVerificationError);
    refused({ body: delivery!.body.replace(client.id, 'cli_other') });
    refused({ headers: { 'webhook-timestamp': String(Number(delivery!.headers['webhook-timestamp']) - 1) } });
    refused({ headers: { 'webhook-id': stored!.event.id.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')) } });
    refused({ headers: { 'webhook-signature': `v1,${signature[3] === 'A' ? 'B' : 'A'}${signature.slice(4)}` } });
    const other = await endpointOf(api, { url: hook.url, enabled_events: ['project.created'] });
    refused({}, other.body.secret);
    // The body is the event's JSON exactly as stored (and served by the feed).
    expect(delivery!.body).toBe(stored!.body);
    expect(JSON.parse(delivery!.body)).toMatchObject({ object: 'event', type: 'client.created', workspace_id: ws, data: { object: client } });
  });

  it("reach the README's receiver, which verifies them with standardwebhooks, and refuses them under another secret", async () => {
    const { api, id: ws } = await workspace('dl-readme');
    // The endpoint's secret is known from its create response: created first (nothing to deliver yet), then pointed at the receiver.
    const endpoint = await endpointOf(api, { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'] });
    const verifying = await startReadmeReceiver(endpoint.body.secret);
    const wrong = await startReadmeReceiver(newSecret()).catch(async (error) => {
      await verifying.stop();
      throw error;
    });
    try {
      expect((await api.patch(`/webhook_endpoints/${endpoint.body.id}`, { url: verifying.url })).status).toBe(200);
      await endpointOf(api, { url: wrong.url, enabled_events: ['client.created'] });
      await createClient(api);
      const [stored] = await waitFor(async () => {
        const events = await storedEvents(table(), ws);
        return events.length > 0 ? events : undefined;
      }, 'the event');
      const id = stored!.event.id;
      await waitFor(async () => (verifying.output().includes(`verified ${id} client.created\n`) ? true : undefined), 'the verified delivery');
      await waitFor(async () => (wrong.output().includes(`REFUSED ${id} No matching signature found\n`) ? true : undefined), 'the refused delivery');
      expect(verifying.output()).toBe(`verified ${id} client.created\n`);
      expect(wrong.output()).not.toContain('verified');
      // The refusal (400) failed that attempt, which is retried.
      await waitFor(async () => (stackWarnings(ws).length > 0 ? true : undefined), 'the failed attempt logged');
      expect(failedAttempts(ws)[0]).toEqual([1, 'HTTP 400', 'retry']);
      // Deleted before the receivers stop, so no retry meets a closed port.
      for (const { api: a, id: endpointId } of endpoints.splice(0)) expect((await a.delete(`/webhook_endpoints/${endpointId}`)).status).toBe(200);
    } finally {
      await Promise.all([verifying.stop(), wrong.stop()]);
    }
  });

  it("deliver every event type, each resource's event ids in the order of its changes", async () => {
    const { api } = await workspace('dl-all');
    const hook = await receiver();
    const endpoint = await api.post('/webhook_endpoints', { url: hook.url, enabled_events: ['*'] });
    const client = await createClient(api);
    await api.patch(`/clients/${client.id}`, { status: 'ACTIVE' });
    const project = await createProject(api, client.id);
    await api.patch(`/projects/${project.id}`, { name: 'Renamed' });
    const entry = await logTime(api, { project_id: project.id });
    expect((await api.delete(`/time_entries/${entry.id}`)).status).toBe(200);
    expect((await api.delete(`/projects/${project.id}`)).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
    const expected = [
      [client.id, 'client.created'],
      [client.id, 'client.updated'],
      [project.id, 'project.created'],
      [project.id, 'project.updated'],
      [entry.id, 'time_entry.created'],
      [entry.id, 'time_entry.deleted'],
      [project.id, 'project.deleted'],
      [client.id, 'client.deleted'],
    ];
    await waitFor(async () => (hook.received.length >= expected.length ? true : undefined), `${expected.length} deliveries`);
    // Deliveries are not ordered (events.md): put them in feed order, by event id (ids sort by the workspace's sequence).
    const received = hook.received.map((r) => ({ ...r, event: JSON.parse(r.body) })).sort((x, y) => (x.event.id < y.event.id ? -1 : 1));
    for (const r of received) expect(verifiedEvent(endpoint.body.secret, r)).toEqual(r.event);
    // Each delivery carries the headers the OpenAPI document's webhooks section declares for its type, as declared.
    const webhooks = buildOpenApiDocument().webhooks as Record<string, { post: { parameters: { name: string; in: string; schema: { pattern: string } }[] } }>;
    for (const r of received) {
      for (const header of webhooks[r.event.type]!.post.parameters) expect(String(r.headers[header.name]), header.name).toMatch(new RegExp(header.schema.pattern));
    }
    // In that order, each resource's events follow its changes.
    const byResource = (id: string) => received.filter((r) => r.event.data.object.id === id).map((r) => r.event.type);
    for (const id of [client.id, project.id, entry.id]) expect(byResource(id)).toEqual(expected.filter(([of]) => of === id).map(([, type]) => type));
    expect(new Set(received.map((r) => r.event.id)).size).toBe(expected.length);
    expect(received.find((r) => r.event.type === 'client.updated')!.event.data.previous_attributes).toMatchObject({ status: client.status });
    expect(received.find((r) => r.event.type === 'project.deleted')!.event.data.object).toMatchObject({ id: project.id, name: 'Renamed' });
  });

  it('are retried with growing delays after a failing receiver, with the same webhook-id (the event id), until acknowledged', async () => {
    const { api, id: ws } = await workspace('dl-retry');
    const hook = await receiver();
    hook.respondWith.push(500, 503, 404);
    const endpoint = await endpointOf(api, { url: hook.url, enabled_events: ['client.created'] });
    await createClient(api);
    await waitFor(async () => (hook.received.length >= 4 ? true : undefined), 'four attempts');
    await sleep(8 * WEBHOOK_RETRY_BASE_MS);
    expect(hook.received.length).toBe(4); // acknowledged by the fourth: no more
    // Every attempt carries the event id as webhook-id, the same body, and a signature that verifies.
    const [event] = await storedEvents(table(), ws);
    expect(hook.received.map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(event!.event.id));
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    for (const r of hook.received) expect(verifiedEvent(endpoint.body.secret, r)).toEqual(event!.event);
    // Each failure is one WARN line naming it, with the delay the stack chose: WEBHOOK_RETRY_BASE_MS,
    // then doubling, each with up to 25 % jitter.
    expect(failedAttempts(ws)).toEqual([
      [1, 'HTTP 500', 'retry'],
      [2, 'HTTP 503', 'retry'],
      [3, 'HTTP 404', 'retry'],
    ]);
    const delays = stackWarnings(ws).map((r) => Number(r.retry_in_ms));
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(WEBHOOK_RETRY_BASE_MS * 2 ** i);
      expect(delay).toBeLessThanOrEqual(WEBHOOK_RETRY_BASE_MS * 2 ** i * 1.25);
    });
    // The attempts waited at least that long (a loaded machine can only make them later).
    const gaps = hook.received.slice(1).map((r, i) => r.at - hook.received[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(delays[i]! - 20));
  });

  it('treat a redirect as a failed attempt: not followed, retried', async () => {
    const { api, id: ws } = await workspace('dl-redirect');
    const hook = await receiver();
    hook.respondWith.push(302);
    await endpointOf(api, { url: hook.url, enabled_events: ['client.created'] });
    await createClient(api);
    await waitFor(async () => (hook.received.length >= 2 ? true : undefined), 'the retry after the redirect');
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
    expect(failedAttempts(ws)).toEqual([[1, 'HTTP 302', 'retry']]);
  });

  it('acknowledge on the status alone: a long response body is not read, and not retried', async () => {
    const { api } = await workspace('dl-body');
    const seen: number[] = [];
    // 200, then a body that never ends: the attempt must not wait for it.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(Date.now());
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        const chunk = 'x'.repeat(64 * 1024);
        const timer = setInterval(() => res.write(chunk), 5);
        res.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await api.post('/webhook_endpoints', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, enabled_events: ['client.created'] });
      await createClient(api);
      await waitFor(async () => (seen.length > 0 ? true : undefined), 'the delivery');
      await sleep(6 * WEBHOOK_RETRY_BASE_MS);
      expect(seen).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('skip disabled endpoints, types an endpoint did not enable, and changes made before the endpoint existed', async () => {
    const { api, id: ws } = await workspace('dl-skip');
    const before = await createClient(api, { company_name: 'before' });
    await waitFor(async () => ((await storedEvents(table(), ws)).length >= 1 ? true : undefined), 'the first event');
    const all = await receiver();
    const projectsOnly = await receiver();
    const disabled = await receiver();
    await api.post('/webhook_endpoints', { url: all.url, enabled_events: ['*'] });
    await api.post('/webhook_endpoints', { url: projectsOnly.url, enabled_events: ['project.created'] });
    const off = await api.post('/webhook_endpoints', { url: disabled.url, enabled_events: ['*'] });
    expect((await api.patch(`/webhook_endpoints/${off.body.id}`, { status: 'disabled' })).status).toBe(200);
    await api.patch(`/clients/${before.id}`, { status: 'ACTIVE' });
    await waitFor(async () => (all.received.length >= 1 ? true : undefined), 'the delivery to the enabled endpoint');
    await sleep(5 * WEBHOOK_RETRY_BASE_MS);
    expect(all.received.map((r) => JSON.parse(r.body).type)).toEqual(['client.updated']);
    expect(projectsOnly.received).toEqual([]);
    expect(disabled.received).toEqual([]);
  });

  it('stop for an endpoint disabled while its delivery waits for a retry', async () => {
    const { api, id: ws } = await workspace('dl-disable');
    const hook = await receiver();
    hook.respondWith.push(500, 500, 500, 500);
    const endpoint = await endpointOf(api, { url: hook.url, enabled_events: ['*'] });
    await createClient(api);
    await waitFor(async () => (hook.received.length >= 1 ? true : undefined), 'the first attempt');
    expect((await api.patch(`/webhook_endpoints/${endpoint.body.id}`, { status: 'disabled' })).status).toBe(200);
    const attempts = hook.received.length;
    await sleep(8 * WEBHOOK_RETRY_BASE_MS);
    expect(hook.received.length).toBeLessThanOrEqual(attempts + 1); // at most a retry already under way
    expect(hook.received.length).toBeLessThan(4);
    // One WARN line per attempt the receiver failed, none after.
    const lines = await waitFor(async () => {
      const failed = failedAttempts(ws);
      return failed.length === hook.received.length ? failed : undefined;
    }, 'a line for each attempt the receiver saw');
    expect(lines).toEqual(hook.received.map((_r, i) => [i + 1, 'HTTP 500', 'retry']));
  });

  it('refuse at delivery time an address that the URL check refuses, though the endpoint holds it', async () => {
    const { api, id: ws } = await workspace('dl-ssrf');
    // 127.0.0.2 is loopback too, but the local stack allows only 127.0.0.1 and localhost.
    const internal = await receiver('127.0.0.2');
    const allowed = await receiver();
    expect((await api.post('/webhook_endpoints', { url: internal.url, enabled_events: ['*'] })).status).toBe(400);
    // An endpoint whose URL went bad after its check (as a DNS change would make it): written beside the API.
    const endpoint = await endpointOf(api, { url: allowed.url.replace('/hooks', '/placeholder'), enabled_events: ['*'] });
    await DynamoDBDocumentClient.from(raw).send(
      new UpdateCommand({
        TableName: inject('tableName'),
        Key: keys.item(ws, webhookEndpoint.type, endpoint.body.id),
        UpdateExpression: 'SET #data.#url = :url',
        ExpressionAttributeNames: { '#data': DATA_ATTRIBUTE, '#url': 'url' },
        ExpressionAttributeValues: { ':url': internal.url },
      }),
    );
    await api.post('/webhook_endpoints', { url: allowed.url, enabled_events: ['*'] });
    await createClient(api);
    await waitFor(async () => (allowed.received.length >= 1 ? true : undefined), 'the delivery to the allowed endpoint');
    // The refused attempts are logged as failures, naming the refusal, and retried (the address may be fixed).
    const refused = await waitFor(async () => {
      const lines = failedAttempts(ws);
      return lines.length >= 2 ? lines : undefined;
    }, 'two refused attempts');
    for (const [, error, next] of refused) {
      expect(error).toMatch(/^refused: /);
      expect(next).toBe('retry');
    }
    expect(internal.received).toEqual([]);
    expect(allowed.received).toHaveLength(1);
  });

  it("go to each workspace's own endpoints only", async () => {
    const a = await workspace('dl-iso-a');
    const b = await workspace('dl-iso-b');
    const hookA = await receiver();
    const hookB = await receiver();
    await a.api.post('/webhook_endpoints', { url: hookA.url, enabled_events: ['*'] });
    await b.api.post('/webhook_endpoints', { url: hookB.url, enabled_events: ['*'] });
    await createClient(a.api, { company_name: 'A' });
    await createClient(b.api, { company_name: 'B1' });
    await createClient(b.api, { company_name: 'B2' });
    await waitFor(async () => (hookA.received.length >= 1 && hookB.received.length >= 2 ? true : undefined), 'the deliveries of both workspaces');
    await sleep(3 * WEBHOOK_RETRY_BASE_MS);
    expect(hookA.received.map((r) => [JSON.parse(r.body).workspace_id, JSON.parse(r.body).data.object.company_name])).toEqual([[a.id, 'A']]);
    expect(hookB.received.map((r) => JSON.parse(r.body).workspace_id)).toEqual([b.id, b.id]);
    expect(hookB.received.map((r) => JSON.parse(r.body).data.object.company_name).sort()).toEqual(['B1', 'B2']);
  });
});
