/**
 * Webhook endpoints and deliveries (events.md) on the local stack: CRUD with the secret shown
 * once, validation and SSRF refusals, isolation, signed deliveries a receiver can verify,
 * retries on the schedule after a failing receiver, disabled endpoints and type filters.
 *
 * Ported onto the resource registry: the endpoints' CRUD, validation, SSRF refusals, isolation
 * and quota. Deliveries (issue-12's `deliveries` suite) join once the stream consumer and the
 * delivery worker are ported as BACKGROUND_FUNCTIONS.
 */
import { describe, expect, it } from 'vitest';
import { apiFor, expectError, token, workspace } from '../support/api.ts';

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
