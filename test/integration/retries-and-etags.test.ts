/** Idempotent retries (Idempotency-Key) and optimistic concurrency (ETag / If-Match). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, logTime, validClient, workspace } from '../support/api.ts';

const post = (token: string, path: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
  call('POST', `/api/v1${path}`, { token, body, headers: { ...headers, ...(key ? { 'Idempotency-Key': key } : {}) } });
const patch = (token: string, path: string, body: unknown, headers: Record<string, string>) => call('PATCH', `/api/v1${path}`, { token, body, headers });
const del = (token: string, path: string, headers: Record<string, string>) => call('DELETE', `/api/v1${path}`, { token, headers });

describe('Idempotency-Key', () => {
  it('replays the first response to a retry, marked, and creates nothing more', async () => {
    const { token, api } = await workspace();
    const key = randomUUID();
    const first = await post(token, '/clients', validClient(), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await post(token, '/clients', validClient(), key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await api.get('/clients')).body.data).toHaveLength(1);
  });

  it('treats a body with other key order or spacing as the same request', async () => {
    const { token } = await workspace();
    const key = randomUUID();
    await post(token, '/clients', { company_name: 'A', company_email: 'a@a.test' }, key);
    const retry = await call('POST', '/api/v1/clients', {
      token,
      rawBody: '{ "company_email": "a@a.test",   "company_name": "A" }',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the same key with a different body, or on another operation, with 422', async () => {
    const { token, api } = await workspace();
    const key = randomUUID();
    const client = (await post(token, '/clients', validClient(), key)).body;
    const error = expectError(await post(token, '/clients', validClient({ company_name: 'Other' }), key), 422, 'idempotency_key_reused');
    expect(error.param).toBe('Idempotency-Key');
    expectError(await post(token, '/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly' }, key), 422, 'idempotency_key_reused');
    expect((await api.get('/clients')).body.data).toHaveLength(1);
    expect((await api.get('/projects')).body.data).toHaveLength(0);
  });

  it('stores nothing for a refused request, so the corrected retry runs', async () => {
    const { token, api } = await workspace();
    const key = randomUUID();
    expectError(await post(token, '/clients', validClient({ company_email: 'nope' }), key), 400, 'invalid_request');
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    const corrected = await post(token, '/clients', validClient(), key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    // And a 400 for a reference to nothing (thrown by the domain) stores nothing either.
    const key2 = randomUUID();
    expectError(await post(token, '/projects', { name: 'P', client_id: 'cli_01M7YN6FC9FCH8W24JAA49XGS6', billing_type: 'Monthly' }, key2), 400, 'invalid_request');
    const ok = await post(token, '/projects', { name: 'P', client_id: corrected.body.id, billing_type: 'Monthly' }, key2);
    expect(ok.status).toBe(201);
  });

  it('creates exactly one resource for concurrent duplicates', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    const body = { project_id: undefined, client_id: client.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 15 };
    const responses = await Promise.all(Array.from({ length: 12 }, () => post(token, '/time_entries', body, key)));
    const statuses = responses.map((r) => r.status);
    for (const r of responses) {
      if (r.status === 409) {
        expect(r.body.error.type).toBe('idempotency_key_in_use');
        expect(r.headers.get('retry-after')).toBe('1');
      } else {
        expect(r.status).toBe(201);
      }
    }
    expect(statuses).toContain(201);
    const ids = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect((await api.get('/time_entries')).body.data).toHaveLength(1);
    // The counter moved once: one delete of the entry frees the client.
    await api.delete(`/time_entries/${[...ids][0]}`);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
  });

  it('scopes keys to the workspace: the same key elsewhere is a new request', async () => {
    const a = await workspace();
    const b = await workspace();
    const key = randomUUID();
    const inA = await post(a.token, '/clients', validClient(), key);
    const inB = await post(b.token, '/clients', validClient(), key);
    expect(inB.status).toBe(201);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.body.id).not.toBe(inA.body.id);
    expect(inB.body.workspace_id).toBe(b.id);
  });

  it('replays a PATCH too, and refuses a malformed key', async () => {
    const { token, api } = await workspace();
    const client = await createClient(api);
    const key = randomUUID();
    const first = await patch(token, `/clients/${client.id}`, { status: 'ACTIVE' }, { 'Idempotency-Key': key });
    await api.patch(`/clients/${client.id}`, { status: 'LOST' });
    const retry = await patch(token, `/clients/${client.id}`, { status: 'ACTIVE' }, { 'Idempotency-Key': key });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await api.get(`/clients/${client.id}`)).body.status).toBe('LOST');
    expect(expectError(await post(token, '/clients', validClient(), 'has space'), 400, 'invalid_request').param).toBe('Idempotency-Key');
    expectError(await post(token, '/clients', validClient(), 'x'.repeat(256)), 400, 'invalid_request');
  });
});

describe('ETag and If-Match', () => {
  it('gives an ETag on create, retrieve and update that changes with every change', async () => {
    const { api, token } = await workspace();
    const created = await api.post('/clients', validClient());
    const etag = created.headers.get('etag');
    expect(etag).toMatch(/^"\d+"$/);
    expect((await api.get(`/clients/${created.body.id}`)).headers.get('etag')).toBe(etag);
    const updated = await patch(token, `/clients/${created.body.id}`, { status: 'ACTIVE' }, { 'If-Match': etag! });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).not.toBe(etag);
    expect((await api.get(`/clients/${created.body.id}`)).headers.get('etag')).toBe(updated.headers.get('etag'));
  });

  it('refuses a PATCH or DELETE with a stale If-Match with 412, changing nothing', async () => {
    const { api, token } = await workspace();
    const client = await api.post('/clients', validClient());
    const stale = client.headers.get('etag')!;
    await api.patch(`/clients/${client.body.id}`, { company_name: 'Renamed' });
    const before = (await api.get(`/clients/${client.body.id}`)).body;
    expectError(await patch(token, `/clients/${client.body.id}`, { company_name: 'Mine' }, { 'If-Match': stale }), 412, 'precondition_failed');
    expectError(await del(token, `/clients/${client.body.id}`, { 'If-Match': stale }), 412, 'precondition_failed');
    expectError(await patch(token, `/clients/${client.body.id}`, {}, { 'If-Match': stale }), 412, 'precondition_failed');
    expectError(await patch(token, `/clients/${client.body.id}`, { status: 'LOST' }, { 'If-Match': 'W/"1"' }), 412, 'precondition_failed');
    expect((await api.get(`/clients/${client.body.id}`)).body).toEqual(before);
  });

  it('deletes with a current If-Match or *, and says 404 for an unknown id whatever If-Match says', async () => {
    const { api, token } = await workspace();
    const a = await api.post('/clients', validClient());
    expect((await del(token, `/clients/${a.body.id}`, { 'If-Match': a.headers.get('etag')! })).status).toBe(200);
    const b = await createClient(api);
    expect((await del(token, `/clients/${b.id}`, { 'If-Match': '*' })).status).toBe(200);
    expectError(await del(token, `/clients/${b.id}`, { 'If-Match': '"1"' }), 404, 'not_found');
  });

  it('guards projects the same way; a current If-Match still meets the 409 guard', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api);
    const project = await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly' });
    const etag = project.headers.get('etag')!;
    await logTime(api, { project_id: project.body.id });
    expectError(await del(token, `/projects/${project.body.id}`, { 'If-Match': etag }), 409, 'conflict');
    const renamed = await patch(token, `/projects/${project.body.id}`, { name: 'Q' }, { 'If-Match': etag });
    expect(renamed.status).toBe(200);
    expectError(await patch(token, `/projects/${project.body.id}`, { name: 'R' }, { 'If-Match': etag }), 412, 'precondition_failed');
    expectError(await del(token, `/projects/${project.body.id}`, { 'If-Match': etag }), 412, 'precondition_failed');
    expect((await api.get(`/projects/${project.body.id}`)).body.name).toBe('Q');
  });

  it('lets exactly one of two concurrent updates with the same If-Match win', async () => {
    const { api, token } = await workspace();
    const project = await createProject(api, (await createClient(api)).id);
    const etag = (await api.get(`/projects/${project.id}`)).headers.get('etag')!;
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) => patch(token, `/projects/${project.id}`, { name }, { 'If-Match': etag })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(3);
    const winner = results.find((r) => r.status === 200)!.body.name;
    expect((await api.get(`/projects/${project.id}`)).body.name).toBe(winner);
  });

  it('compares If-Match strongly: the exact tag, any member of a list; weak and look-alike tags never match', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api); // ETag "1"
    for (const ifMatch of ['"01"', '"1.0"', 'W/"1"', '"2", W/"1"', '"abc"']) {
      expectError(await patch(token, `/clients/${client.id}`, { status: 'LOST' }, { 'If-Match': ifMatch }), 412, 'precondition_failed');
      expectError(await del(token, `/clients/${client.id}`, { 'If-Match': ifMatch }), 412, 'precondition_failed');
    }
    expect((await api.get(`/clients/${client.id}`)).body.status).toBe('LEAD');
    const updated = await patch(token, `/clients/${client.id}`, { status: 'ACTIVE' }, { 'If-Match': '"7", "1"' });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe('"2"');
    const project = await createProject(api, client.id);
    expectError(await del(token, `/projects/${project.id}`, { 'If-Match': '"01"' }), 412, 'precondition_failed');
    expect((await del(token, `/projects/${project.id}`, { 'If-Match': '"9", , "1"' })).status).toBe(200);
    expect((await del(token, `/clients/${client.id}`, { 'If-Match': 'W/"2", "2"' })).status).toBe(200);
  });

  it('refuses an If-Match that is not * or a list of quoted ETags with a 400, changing nothing', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api);
    for (const ifMatch of ['1', '"1', '" 1"', '"1" "2"', '*, "1"']) {
      const error = expectError(await patch(token, `/clients/${client.id}`, { status: 'LOST' }, { 'If-Match': ifMatch }), 400, 'invalid_request');
      expect(error.param).toBe('If-Match');
    }
    expect((await api.get(`/clients/${client.id}`)).body.status).toBe('LEAD');
  });
});

describe('If-Match on a time entry delete', () => {
  it('deletes with the current ETag or *, and answers a wrong one with 412, keeping the entry and the counters', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api);
    const logged = await api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 5 });
    const etag = logged.headers.get('etag')!;
    expect(etag).toBe('"1"');
    expectError(await del(token, `/time_entries/${logged.body.id}`, { 'If-Match': '"7"' }), 412, 'precondition_failed');
    expect((await api.get(`/time_entries/${logged.body.id}`)).status).toBe(200);
    expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect((await del(token, `/time_entries/${logged.body.id}`, { 'If-Match': etag })).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
  });
});
