/**
 * The minimal time-entry resource of the contract: logging against a project and/or a client,
 * validation, retrieve, list filters, delete, and the counters behind the delete guards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, logTime, workspace, type Api } from '../support/api.ts';
import { expectInvalid } from '../support/assertions.ts';

type Obj = Record<string, any>;

const ENTRY_KEYS = ['billable', 'billable_rate', 'client_id', 'created_at', 'description', 'duration_minutes', 'id', 'invoice_id', 'object', 'project_id', 'started_at', 'updated_at', 'workspace_id'];
const MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('time entries', () => {
  let api: Api;
  let wsId: string;
  let tokenValue: string;
  let client: Obj;
  let otherClient: Obj;
  let project: Obj;

  beforeAll(async () => {
    const ws = await workspace('te');
    api = ws.api;
    wsId = ws.id;
    tokenValue = ws.token;
    [client, otherClient] = await Promise.all([createClient(api, { company_name: 'Entries Inc' }), createClient(api, { company_name: 'Other Co' })]);
    project = await createProject(api, client.id, { name: 'Tracked' });
  });

  const entryBody = (extra: Obj) => ({ started_at: '2026-11-20T09:00:00Z', duration_minutes: 45, ...extra });

  it('logs against a project alone: the client is the project client', async () => {
    const response = await api.post('/time_entries', entryBody({ project_id: project.id, description: 'Design review' }));
    expect(response.status).toBe(201);
    const entry = response.body;
    expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
    expect(entry).toMatchObject({
      object: 'time_entry',
      project_id: project.id,
      client_id: client.id,
      started_at: '2026-11-20T09:00:00.000Z',
      duration_minutes: 45,
      billable: true,
      description: 'Design review',
      invoice_id: null,
      workspace_id: wsId,
    });
    expect(entry.id).toMatch(/^te_/);
    expect(entry.created_at).toMatch(MS_UTC);
    expect(entry.updated_at).toBe(entry.created_at);
    expect(response.headers.get('location')).toMatch(new RegExp(`/api/v1/time_entries/${entry.id}$`));
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
    expect((await api.get(`/time_entries/${entry.id}`)).body).toEqual(entry);
  });

  it('logs against a client alone: project_id is null', async () => {
    const entry = await logTime(api, { client_id: client.id });
    expect(entry).toMatchObject({ project_id: null, client_id: client.id, description: null, duration_minutes: 30 });
    const explicitNull = await logTime(api, { client_id: otherClient.id, project_id: null });
    expect(explicitNull).toMatchObject({ project_id: null, client_id: otherClient.id });
    expect((await api.get(`/time_entries/${entry.id}`)).body).toEqual(entry);
  });

  it('logs with both ids when they agree, and refuses them when they disagree', async () => {
    const entry = await logTime(api, { project_id: project.id, client_id: client.id });
    expect(entry).toMatchObject({ project_id: project.id, client_id: client.id });
    const before = (await api.get(`/time_entries?client_id=${otherClient.id}&limit=100`)).body.data.length;
    const error = expectError(await api.post('/time_entries', entryBody({ project_id: project.id, client_id: otherClient.id })), 400, 'invalid_request');
    expect(error.param).toBe('client_id');
    // Nothing was logged on either side.
    expect((await api.get(`/time_entries?client_id=${otherClient.id}&limit=100`)).body.data.length).toBe(before);
  });

  it('needs a project_id or a client_id', async () => {
    const error = expectError(await api.post('/time_entries', entryBody({})), 400, 'invalid_request');
    expect(['project_id', 'client_id']).toContain(error.param);
    const nulls = expectError(await api.post('/time_entries', entryBody({ project_id: null })), 400, 'invalid_request');
    expect(['project_id', 'client_id']).toContain(nulls.param);
  });

  it('names a missing project_id or client_id beside the other failing fields (errors lists every one)', async () => {
    const error = expectInvalid(await api.post('/time_entries', entryBody({ duration_minutes: 0 })), ['duration_minutes', 'project_id']);
    expect(error.errors!.find((e) => e.param === 'project_id')!.message).toMatch(/project_id or client_id is required/);
    expectInvalid(await api.post('/time_entries', { project_id: null, billable: 'yes' }), ['started_at', 'duration_minutes', 'billable', 'project_id']);
  });

  it('refuses references that name nothing, with the param named', async () => {
    const cases: [Obj, string][] = [
      [{ project_id: 'prj_00000000000000000000000000' }, 'project_id'],
      [{ project_id: 'nope' }, 'project_id'],
      [{ project_id: client.id }, 'project_id'],
      [{ client_id: 'cli_00000000000000000000000000' }, 'client_id'],
      [{ client_id: 'nope' }, 'client_id'],
      [{ client_id: project.id }, 'client_id'],
      [{ project_id: 'prj_00000000000000000000000000', client_id: client.id }, 'project_id'],
    ];
    for (const [refs, param] of cases) {
      const error = expectError(await api.post('/time_entries', entryBody(refs)), 400, 'invalid_request');
      expect(error.param, JSON.stringify(refs)).toBe(param);
    }
  });

  it('requires started_at and duration_minutes, and validates them', async () => {
    const missingStart = expectError(await api.post('/time_entries', { client_id: client.id, duration_minutes: 5 }), 400, 'invalid_request');
    expect(missingStart.param).toBe('started_at');
    const missingDuration = expectError(await api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T09:00:00Z' }), 400, 'invalid_request');
    expect(missingDuration.param).toBe('duration_minutes');
    const missingBoth = expectError(await api.post('/time_entries', { client_id: client.id }), 400, 'invalid_request');
    expect(missingBoth.errors!.map((e) => e.param).sort()).toEqual(['duration_minutes', 'started_at']);

    for (const duration_minutes of [0, 1.5, -1, -30, '30', null, true]) {
      const error = expectError(await api.post('/time_entries', entryBody({ client_id: client.id, duration_minutes })), 400, 'invalid_request');
      expect(error.param, `duration_minutes ${JSON.stringify(duration_minutes)}`).toBe('duration_minutes');
    }
    for (const started_at of ['2026-13-01T00:00:00Z', '2026-11-20', '2026-11-20T09:00:00', 'yesterday', '', 1700000000, null]) {
      const error = expectError(await api.post('/time_entries', entryBody({ client_id: client.id, started_at })), 400, 'invalid_request');
      expect(error.param, `started_at ${JSON.stringify(started_at)}`).toBe('started_at');
    }
    for (const billable of ['true', 1, 0, null, 'yes', []]) {
      const error = expectError(await api.post('/time_entries', entryBody({ client_id: client.id, billable })), 400, 'invalid_request');
      expect(error.param, `billable ${JSON.stringify(billable)}`).toBe('billable');
    }
    const unknown = expectError(await api.post('/time_entries', entryBody({ client_id: client.id, rate: 1 })), 400, 'invalid_request');
    expect(unknown.param).toBe('rate');
    expectError(
      await call('POST', '/api/v1/time_entries', { token: tokenValue, rawBody: JSON.stringify(entryBody({ client_id: client.id })), headers: { 'Content-Type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectError(await call('POST', '/api/v1/time_entries', { token: tokenValue, rawBody: '{"client_id":', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_request');
  });

  it('logs billable unless the log says otherwise', async () => {
    expect((await logTime(api, { client_id: client.id })).billable).toBe(true);
    const unbilled = await logTime(api, { client_id: client.id, billable: false });
    expect(unbilled.billable).toBe(false);
    expect((await api.get(`/time_entries/${unbilled.id}`)).body.billable).toBe(false);
  });

  it('normalises started_at to UTC with milliseconds; accepts 1 minute', async () => {
    const entry = await logTime(api, { client_id: client.id, started_at: '2026-11-20T10:15:00+01:00', duration_minutes: 1 });
    expect(entry.started_at).toBe('2026-11-20T09:15:00.000Z');
    expect(entry.duration_minutes).toBe(1);
  });

  it('retrieves, lists by project and client, deletes once, then 404s', async () => {
    const ws = await workspace('te-crud');
    const c = await createClient(ws.api);
    const p = await createProject(ws.api, c.id);
    const onProject = await logTime(ws.api, { project_id: p.id });
    const onClient = await logTime(ws.api, { client_id: c.id });

    expect((await ws.api.get(`/time_entries?project_id=${p.id}`)).body.data.map((e: Obj) => e.id)).toEqual([onProject.id]);
    expect((await ws.api.get(`/time_entries?client_id=${c.id}`)).body.data.map((e: Obj) => e.id)).toEqual([onClient.id, onProject.id]);

    expectError(await ws.api.get('/time_entries/te_00000000000000000000000000'), 404, 'not_found');
    expectError(await ws.api.get('/time_entries/not-an-id'), 404, 'not_found');
    expectError(await ws.api.delete('/time_entries/not-an-id'), 404, 'not_found');

    const deleted = await ws.api.delete(`/time_entries/${onProject.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'time_entry', id: onProject.id, deleted: true });
    expectError(await ws.api.delete(`/time_entries/${onProject.id}`), 404, 'not_found');
    expectError(await ws.api.get(`/time_entries/${onProject.id}`), 404, 'not_found');
    expect((await ws.api.get(`/time_entries?client_id=${c.id}`)).body.data.map((e: Obj) => e.id)).toEqual([onClient.id]);
    expect((await ws.api.get(`/time_entries?project_id=${p.id}`)).body.data).toEqual([]);
  });

  it('keeps the owner counters exact: entries block the deletes until they are all gone', async () => {
    const ws = await workspace('te-count');
    const c = await createClient(ws.api);
    const p = await createProject(ws.api, c.id);
    const entries = await Promise.all([1, 2, 3].map(() => logTime(ws.api, { project_id: p.id })));
    const direct = await logTime(ws.api, { client_id: c.id });

    const projectBlocked = expectError(await ws.api.delete(`/projects/${p.id}`), 409, 'conflict');
    expect(projectBlocked.message).toMatch(/3 time entries/);
    expectError(await ws.api.delete(`/clients/${c.id}`), 409, 'conflict');

    await Promise.all(entries.slice(0, 2).map((e) => ws.api.delete(`/time_entries/${e.id}`)));
    expect(expectError(await ws.api.delete(`/projects/${p.id}`), 409, 'conflict').message).toMatch(/1 time entry/);
    expect((await ws.api.delete(`/time_entries/${entries[2]!.id}`)).status).toBe(200);

    // The project is free; the client still has its own entry.
    expect((await ws.api.delete(`/projects/${p.id}`)).body).toEqual({ object: 'project', id: p.id, deleted: true });
    const clientBlocked = expectError(await ws.api.delete(`/clients/${c.id}`), 409, 'conflict');
    expect(clientBlocked.message).toMatch(/1 time entry/);
    expect(clientBlocked.message).not.toMatch(/project/);
    expect((await ws.api.delete(`/time_entries/${direct.id}`)).status).toBe(200);
    expect((await ws.api.delete(`/clients/${c.id}`)).body).toEqual({ object: 'client', id: c.id, deleted: true });
    expectError(await ws.api.get(`/clients/${c.id}`), 404, 'not_found');
  });

  it('refuses a log against a deleted project or client', async () => {
    const ws = await workspace('te-gone');
    const c = await createClient(ws.api);
    const p = await createProject(ws.api, c.id);
    expect((await ws.api.delete(`/projects/${p.id}`)).status).toBe(200);
    expect(expectError(await ws.api.post('/time_entries', entryBody({ project_id: p.id })), 400, 'invalid_request').param).toBe('project_id');
    expect((await ws.api.delete(`/clients/${c.id}`)).status).toBe(200);
    expect(expectError(await ws.api.post('/time_entries', entryBody({ client_id: c.id })), 400, 'invalid_request').param).toBe('client_id');
    expect((await ws.api.get('/time_entries')).body.data).toEqual([]);
  });
});
