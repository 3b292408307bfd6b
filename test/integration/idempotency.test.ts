/**
 * Idempotency-Key over HTTP, as the contract's "Idempotency" section says it: exactly once (the
 * record in the change's own transaction), replays byte for byte, DELETE with a key, concurrent
 * duplicates, hostile bodies refused as without a key, and no secret kept in a record.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { baseUrl, call, createClient, createProject, expectError, logTime, token, validClient, workspace } from '../support/api.ts';

/** A request as sent, and its response with the body's exact bytes. */
async function raw(token: string, method: string, path: string, options: { body?: string; key?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${baseUrl()}/api/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(options.key !== undefined ? { 'Idempotency-Key': options.key } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const keyed = (token: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(method, `/api/v1${path}`, { token, ...(body !== undefined ? { body } : {}), headers: { ...headers, 'Idempotency-Key': key } });

describe('hostile input with a key is refused exactly as without one', () => {
  // Issue 18's reproduction: 60 KB, under the 64 KiB limit, 30,000 levels deep.
  const deep = `{"company_name":"x","company_email":"a@b.co","company_address":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;

  it('a deeply nested body: 400 with the key as without, nothing stored, and the key still free', async () => {
    const { token, api } = await workspace();
    const key = randomUUID();
    const without = await raw(token, 'POST', '/clients', { body: deep });
    const withKey = await raw(token, 'POST', '/clients', { body: deep, key });
    expect(without.status).toBe(400);
    expect(withKey.status).toBe(400);
    expect(JSON.parse(withKey.text).error.type).toBe(JSON.parse(without.text).error.type);
    expect(JSON.parse(withKey.text).error.param).toBe(JSON.parse(without.text).error.param);
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    const corrected = await keyed(token, 'POST', '/clients', key, validClient());
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it("a body its schema refuses, by a rule across fields as by a field's own: 400 as without the key, even a key another request took", async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const key = randomUUID();
    expect((await keyed(token, 'PATCH', `/projects/${project.id}`, key, { name: 'One' })).status).toBe(200);
    for (const body of [{ name: ' ' }, { start_date: '2026-06-01T00:00:00Z', end_date: '2026-05-01T00:00:00Z' }]) {
      const without = expectError(await api.patch(`/projects/${project.id}`, body), 400, 'invalid_request');
      const withKey = expectError(await keyed(token, 'PATCH', `/projects/${project.id}`, key, body), 400, 'invalid_request');
      expect([withKey.param, withKey.message, withKey.errors]).toEqual([without.param, without.message, without.errors]);
    }
    const entryKey = randomUUID();
    const entry = { started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 };
    expect((await keyed(token, 'POST', '/time_entries', entryKey, { ...entry, client_id: client.id })).status).toBe(201);
    const neither = expectError(await keyed(token, 'POST', '/time_entries', entryKey, entry), 400, 'invalid_request');
    expect([neither.param, neither.message]).toEqual(['project_id', 'project_id or client_id is required: a time entry belongs to a project or a client']);
    expect((await api.get(`/projects/${project.id}`)).body.name).toBe('One');
  });

  it('a body over the size limit: 413 with the key as without', async () => {
    const { token } = await workspace();
    const big = JSON.stringify({ company_name: 'n'.repeat(70_000), company_email: 'a@b.co' });
    expect((await raw(token, 'POST', '/clients', { body: big, key: randomUUID() })).status).toBe(413);
    expect((await raw(token, 'POST', '/clients', { body: big })).status).toBe(413);
  });
});

describe('a replay is the first response, byte for byte', () => {
  it('status, body bytes, ETag and Location, plus Idempotent-Replayed: true', async () => {
    const { token } = await workspace();
    const key = randomUUID();
    const body = JSON.stringify(validClient({ company_name: 'Bytes ü € 😀 Ltd' }));
    const first = await raw(token, 'POST', '/clients', { body, key });
    const retry = await raw(token, 'POST', '/clients', { body, key });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a PATCH under If-Match retried after it took effect replays its 200, not a 412', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    const ifMatch = { 'If-Match': '"1"' };
    const first = await raw(token, 'PATCH', `/clients/${client.id}`, { body: '{"status":"ACTIVE"}', key, headers: ifMatch });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"2"');
    const retry = await raw(token, 'PATCH', `/clients/${client.id}`, { body: '{"status":"ACTIVE"}', key, headers: ifMatch });
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('etag')).toBe('"2"');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.get(`/clients/${client.id}`)).headers.get('etag')).toBe('"2"');
  });

  it('the same key with another request is 422 idempotency_key_reused, and changes nothing', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    expect((await keyed(token, 'PATCH', `/clients/${client.id}`, key, { company_name: 'One' })).status).toBe(200);
    expectError(await keyed(token, 'PATCH', `/clients/${client.id}`, key, { company_name: 'Two' }), 422, 'idempotency_key_reused');
    expectError(await keyed(token, 'DELETE', `/clients/${client.id}`, key), 422, 'idempotency_key_reused');
    const stored = await api.get(`/clients/${client.id}`);
    expect(stored.body.company_name).toBe('One');
    expect(stored.headers.get('etag')).toBe('"2"');
  });

  it('an empty PATCH keeps its reply under the key: replayed after a later change, and the key taken for another request', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const entry = await logTime(api, { client_id: client.id });
    for (const path of [`/clients/${client.id}`, `/time_entries/${entry.id}`]) {
      const key = randomUUID();
      const first = await raw(token, 'PATCH', path, { body: '{}', key });
      expect(first.status, path).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const change = path.startsWith('/clients') ? { company_name: 'Moved On' } : { duration_minutes: 77 };
      expect((await api.patch(path, change)).headers.get('etag')).toBe('"2"');
      const retry = await raw(token, 'PATCH', path, { body: '{}', key });
      expect([retry.status, retry.headers.get('idempotent-replayed'), retry.headers.get('etag')], path).toEqual([200, 'true', '"1"']);
      expect(retry.text).toBe(first.text);
      expectError(await keyed(token, 'PATCH', path, key, path.startsWith('/clients') ? { company_name: 'Other' } : { duration_minutes: 5 }), 422, 'idempotency_key_reused');
      const stored = await api.get(path);
      expect(stored.headers.get('etag'), path).toBe('"2"');
      expect(stored.body).toMatchObject(change);
    }
  });

  it("a key repeated by a token refused on its own (403) is refused, not replayed: no webhook endpoint's secret for a token that cannot read its events", async () => {
    const { id, token: all } = await workspace();
    const narrow = await token(id, ['webhook_endpoints:read', 'webhook_endpoints:write']);
    const key = randomUUID();
    const body = { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] };
    const created = await keyed(all, 'POST', '/webhook_endpoints', key, body);
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    for (const t of [narrow, all]) {
      const again = await keyed(t, 'POST', '/webhook_endpoints', key, body);
      if (t === narrow) {
        expectError(again, 403, 'insufficient_scope');
        expect(JSON.stringify(again.body)).not.toContain('whsec_');
      } else {
        expect([again.status, again.headers.get('idempotent-replayed'), again.body.secret]).toEqual([201, 'true', created.body.secret]);
      }
    }
    const patch = randomUUID();
    expect((await keyed(all, 'PATCH', `/webhook_endpoints/${created.body.id}`, patch, { enabled_events: ['client.created'] })).status).toBe(200);
    expectError(await keyed(narrow, 'PATCH', `/webhook_endpoints/${created.body.id}`, patch, { enabled_events: ['client.created'] }), 403, 'insufficient_scope');
  });

  it('a refused request stores nothing: the corrected request runs with the same key', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    expectError(await keyed(token, 'PATCH', `/clients/${client.id}`, key, { company_name: 'Late' }, { 'If-Match': '"7"' }), 412, 'precondition_failed');
    expectError(await keyed(token, 'DELETE', '/clients/cli_01M7YN6FC9FCH8W24JAA49XGS6', key), 404, 'not_found');
    const corrected = await keyed(token, 'PATCH', `/clients/${client.id}`, key, { company_name: 'Late' }, { 'If-Match': '"1"' });
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    expect((await api.get(`/clients/${client.id}`)).body.company_name).toBe('Late');
  });
});

describe('DELETE takes a key', () => {
  it('a retried DELETE replays the first 200 instead of a 404 (a client, a project, a time entry)', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const entry = await logTime(api, { project_id: project.id });
    for (const path of [`/time_entries/${entry.id}`, `/projects/${project.id}`, `/clients/${client.id}`]) {
      const key = randomUUID();
      const first = await raw(token, 'DELETE', path, { key });
      expect(first.status, first.text).toBe(200);
      const retry = await raw(token, 'DELETE', path, { key });
      expect(retry.status).toBe(200);
      expect(retry.text).toBe(first.text);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expectError(await api.delete(path), 404, 'not_found'); // without the key: gone, as before
    }
  });

  it('a DELETE refused by a guard stores nothing', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const key = randomUUID();
    expectError(await keyed(token, 'DELETE', `/clients/${client.id}`, key), 409, 'conflict');
    expect((await api.delete(`/projects/${project.id}`)).status).toBe(200);
    const now = await keyed(token, 'DELETE', `/clients/${client.id}`, key);
    expect(now.status).toBe(200);
    expect(now.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('concurrent duplicates', () => {
  it('20 parallel creates with one key make one resource; each answer is its 201 or 409 idempotency_key_in_use', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    const body = { name: 'Race', client_id: client.id, billing_type: 'Monthly' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => keyed(token, 'POST', '/projects', key, body)));
    const created = responses.filter((r) => r.status === 201);
    for (const r of responses) {
      if (r.status === 201) continue;
      expectError(r, 409, 'idempotency_key_in_use');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const projects = (await api.get('/projects')).body.data;
    expect(projects.map((p: { id: string }) => p.id)).toEqual([created[0]!.body.id]);
    // The client's counter counted it once: deleting the one project frees the client.
    expect((await api.delete(`/projects/${projects[0].id}`)).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
  });
});

describe('no secret in a record', () => {
  it('a replayed webhook endpoint create reads the secret from the endpoint; after its deletion the replay shows none', async () => {
    const { token, api } = await workspace();
    const key = randomUUID();
    const body = JSON.stringify({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'] });
    const first = await raw(token, 'POST', '/webhook_endpoints', { body, key });
    expect(first.status, first.text).toBe(201);
    const created = JSON.parse(first.text);
    expect(created.secret).toMatch(/^whsec_/);
    const replay = await raw(token, 'POST', '/webhook_endpoints', { body, key });
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    expect((await api.delete(`/webhook_endpoints/${created.id}`)).status).toBe(200);
    const afterDelete = await raw(token, 'POST', '/webhook_endpoints', { body, key });
    expect(afterDelete.status).toBe(201);
    expect(afterDelete.headers.get('idempotent-replayed')).toBe('true');
    expect(afterDelete.text).not.toContain(created.secret);
    const { secret: _secret, ...withoutSecret } = created;
    expect(JSON.parse(afterDelete.text)).toEqual(withoutSecret);
    // Both 201s are what the document declares for the create: a validating proxy passes them.
    const doc = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const validate = ajv.compile({ $ref: `openapi.json${doc.paths['/api/v1/webhook_endpoints'].post.responses['201'].content['application/json'].schema.$ref}` });
    for (const answer of [first, afterDelete]) expect(validate(JSON.parse(answer.text)), ajv.errorsText(validate.errors)).toBe(true);
  });
});
