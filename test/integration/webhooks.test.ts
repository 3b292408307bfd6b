/**
 * Webhook endpoints and deliveries (events.md) on the local stack: CRUD with the secret shown
 * once, validation and SSRF refusals, isolation, signed deliveries a receiver can verify,
 * retries on the schedule after a failing receiver, disabled endpoints and type filters.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { apiFor, createClient, expectError, token, workspace } from '../support/api.ts';
import { WEBHOOK_RETRY_BASE_MS, eventsWhen, startReceiver, waitFor, type Receiver } from '../support/events.ts';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** What the README shows a receiver doing. */
function verify(secret: string, header: string, rawBody: string): boolean {
  const { t, v1 } = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return v1 === expected && Math.abs(Date.now() / 1000 - Number(t)) < 300;
}

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
  it('post the event as in the feed, with headers and a signature the receiver verifies', async () => {
    const { api } = await workspace('dl');
    const hook = await receiver();
    const endpoint = await api.post('/webhook_endpoints', { url: hook.url, enabled_events: ['*'] });
    const client = await createClient(api);
    const [delivery] = await waitFor(async () => (hook.received.length > 0 ? hook.received : undefined), 'a delivery');
    const [event] = await eventsWhen(api, 1);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['timebill-event-id']).toBe(event.id);
    expect(verify(endpoint.body.secret, String(delivery!.headers['timebill-signature']), delivery!.body)).toBe(true);
    expect(verify('whsec_wrong', String(delivery!.headers['timebill-signature']), delivery!.body)).toBe(false);
    expect(JSON.parse(delivery!.body)).toEqual((await api.get(`/events/${event.id}`)).body);
    expect(JSON.parse(delivery!.body).data.object.id).toBe(client.id);
  });

  it('are retried with growing delays after a failing receiver, with the same event id, until acknowledged', async () => {
    const { api } = await workspace('dl-retry');
    const hook = await receiver();
    hook.respondWith.push(500, 503, 404);
    await api.post('/webhook_endpoints', { url: hook.url, enabled_events: ['client.created'] });
    await createClient(api);
    await waitFor(async () => (hook.received.length >= 4 ? true : undefined), 'four attempts', 20_000);
    await new Promise((resolve) => setTimeout(resolve, 8 * WEBHOOK_RETRY_BASE_MS));
    expect(hook.received.length).toBe(4); // acknowledged by the fourth: no more
    expect(new Set(hook.received.map((r) => r.headers['timebill-event-id'])).size).toBe(1);
    const gaps = hook.received.slice(1).map((r, i) => r.at - hook.received[i]!.at);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(WEBHOOK_RETRY_BASE_MS * 2 ** i - 20);
      expect(gap).toBeLessThan(WEBHOOK_RETRY_BASE_MS * 2 ** i * 1.25 + 1000);
    });
  });

  it('skip disabled endpoints, types an endpoint did not enable, and changes made before the endpoint existed', async () => {
    const { api } = await workspace('dl-skip');
    const before = await createClient(api, { company_name: 'before' });
    await eventsWhen(api, 1);
    const all = await receiver();
    const projectsOnly = await receiver();
    const disabled = await receiver();
    await api.post('/webhook_endpoints', { url: all.url, enabled_events: ['*'] });
    await api.post('/webhook_endpoints', { url: projectsOnly.url, enabled_events: ['project.created'] });
    const off = await api.post('/webhook_endpoints', { url: disabled.url, enabled_events: ['*'] });
    await api.patch(`/webhook_endpoints/${off.body.id}`, { status: 'disabled' });
    await api.patch(`/clients/${before.id}`, { status: 'ACTIVE' });
    await waitFor(async () => (all.received.length >= 1 ? true : undefined), 'the delivery to the enabled endpoint');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(all.received.map((r) => JSON.parse(r.body).type)).toEqual(['client.updated']);
    expect(projectsOnly.received).toEqual([]);
    expect(disabled.received).toEqual([]);
  });
});
