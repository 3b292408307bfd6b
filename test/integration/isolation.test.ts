/**
 * Tenant isolation: another workspace can neither see, change nor reference a workspace's
 * clients, projects and time entries, and cannot tell them apart from ids that name nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTime, workspace, type Api, type ApiResponse } from '../support/api.ts';

type Obj = Record<string, any>;

const MISSING = {
  client: 'cli_00000000000000000000000000',
  project: 'prj_00000000000000000000000000',
  time_entry: 'te_00000000000000000000000000',
};

/** The 404 for a foreign id must read exactly as the 404 for an id that names nothing. */
async function expectSameAsMissing(foreign: Promise<any>, missing: Promise<any>, foreignId: string, missingId: string) {
  const [f, m] = await Promise.all([foreign, missing]);
  const fe = expectError(f, 404, 'not_found');
  const me = expectError(m, 404, 'not_found');
  expect({ ...fe, request_id: '', message: fe.message.replace(foreignId, 'ID') }).toEqual({
    ...me,
    request_id: '',
    message: me.message.replace(missingId, 'ID'),
  });
}

/** A reference to another workspace's item is refused exactly as one naming nothing. */
function expectSameRefusal(foreign: ApiResponse, missing: ApiResponse, param: string) {
  const f = expectError(foreign, 400, 'invalid_request');
  expect(f.param).toBe(param);
  expect(f.message).toBe(expectError(missing, 400, 'invalid_request').message);
}

describe('tenant isolation', () => {
  let a: { id: string; api: Api };
  let b: { id: string; api: Api };
  let clientA: Obj;
  let projectA: Obj;
  let entryA: Obj;
  let clientEntryA: Obj;
  let clientB: Obj;
  let projectB: Obj;
  let entryB: Obj;

  beforeAll(async () => {
    [a, b] = await Promise.all([workspace('iso-a'), workspace('iso-b')]);
    [clientA, clientB] = await Promise.all([
      createClient(a.api, { company_name: 'Isolated Alpha Unique', status: 'ACTIVE' }),
      createClient(b.api, { company_name: 'Beta Ltd', status: 'ACTIVE' }),
    ]);
    [projectA, projectB] = await Promise.all([
      createProject(a.api, clientA.id, { name: 'Alpha Secret Project' }),
      createProject(b.api, clientB.id, { name: 'Beta Project' }),
    ]);
    [entryA, clientEntryA, entryB] = await Promise.all([
      logTime(a.api, { project_id: projectA.id, description: 'alpha work' }),
      logTime(a.api, { client_id: clientA.id }),
      logTime(b.api, { project_id: projectB.id }),
    ]);
  });

  /** A's resources, exactly as A sees them. */
  async function snapshotA() {
    const [c, p, e, ce] = await Promise.all([
      a.api.get(`/clients/${clientA.id}`),
      a.api.get(`/projects/${projectA.id}`),
      a.api.get(`/time_entries/${entryA.id}`),
      a.api.get(`/time_entries/${clientEntryA.id}`),
    ]);
    for (const r of [c, p, e, ce]) expect(r.status).toBe(200);
    return [c.body, p.body, e.body, ce.body];
  }

  it('stamps every object with the caller workspace', async () => {
    for (const o of [clientA, projectA, entryA, clientEntryA]) expect(o.workspace_id).toBe(a.id);
    for (const o of [clientB, projectB, entryB]) expect(o.workspace_id).toBe(b.id);
    for (const path of ['/clients', '/projects', '/time_entries']) {
      for (const ws of [a, b]) {
        const list = await ws.api.get(`${path}?limit=100`);
        expect(list.status).toBe(200);
        expect(list.body.data.length).toBeGreaterThan(0);
        for (const o of list.body.data) expect(o.workspace_id).toBe(ws.id);
      }
    }
  });

  it('refuses a workspace_id in a body (the workspace comes from the token only)', async () => {
    const e1 = expectError(await b.api.post('/clients', { company_name: 'X', company_email: 'x@x.test', workspace_id: a.id }), 400, 'invalid_request');
    expect(e1.param).toBe('workspace_id');
    const e2 = expectError(await b.api.patch(`/clients/${clientB.id}`, { workspace_id: a.id }), 400, 'invalid_request');
    expect(e2.param).toBe('workspace_id');
    const e3 = expectError(
      await b.api.post('/time_entries', { client_id: clientB.id, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5, workspace_id: a.id }),
      400,
      'invalid_request',
    );
    expect(e3.param).toBe('workspace_id');
  });

  it("cannot retrieve, update or delete another workspace's client", async () => {
    const before = await snapshotA();
    await expectSameAsMissing(b.api.get(`/clients/${clientA.id}`), b.api.get(`/clients/${MISSING.client}`), clientA.id, MISSING.client);
    await expectSameAsMissing(
      b.api.patch(`/clients/${clientA.id}`, { company_name: 'Hijacked', status: 'LOST' }),
      b.api.patch(`/clients/${MISSING.client}`, { company_name: 'Hijacked', status: 'LOST' }),
      clientA.id,
      MISSING.client,
    );
    await expectSameAsMissing(b.api.patch(`/clients/${clientA.id}`, {}), b.api.patch(`/clients/${MISSING.client}`, {}), clientA.id, MISSING.client);
    await expectSameAsMissing(b.api.delete(`/clients/${clientA.id}`), b.api.delete(`/clients/${MISSING.client}`), clientA.id, MISSING.client);
    expect(await snapshotA()).toEqual(before);
  });

  it("cannot retrieve, update or delete another workspace's project", async () => {
    const before = await snapshotA();
    await expectSameAsMissing(b.api.get(`/projects/${projectA.id}`), b.api.get(`/projects/${MISSING.project}`), projectA.id, MISSING.project);
    await expectSameAsMissing(
      b.api.patch(`/projects/${projectA.id}`, { name: 'Hijacked', status: 'CANCELLED' }),
      b.api.patch(`/projects/${MISSING.project}`, { name: 'Hijacked', status: 'CANCELLED' }),
      projectA.id,
      MISSING.project,
    );
    await expectSameAsMissing(
      b.api.patch(`/projects/${projectA.id}`, { end_date: '2030-01-01T00:00:00Z' }),
      b.api.patch(`/projects/${MISSING.project}`, { end_date: '2030-01-01T00:00:00Z' }),
      projectA.id,
      MISSING.project,
    );
    await expectSameAsMissing(b.api.delete(`/projects/${projectA.id}`), b.api.delete(`/projects/${MISSING.project}`), projectA.id, MISSING.project);
    expect(await snapshotA()).toEqual(before);
  });

  it("cannot retrieve, correct, move or delete another workspace's time entries", async () => {
    const before = await snapshotA();
    for (const entry of [entryA, clientEntryA]) {
      await expectSameAsMissing(b.api.get(`/time_entries/${entry.id}`), b.api.get(`/time_entries/${MISSING.time_entry}`), entry.id, MISSING.time_entry);
      for (const change of [{ duration_minutes: 1 }, { project_id: projectB.id }, { project_id: null, client_id: clientB.id }]) {
        await expectSameAsMissing(
          b.api.patch(`/time_entries/${entry.id}`, change),
          b.api.patch(`/time_entries/${MISSING.time_entry}`, change),
          entry.id,
          MISSING.time_entry,
        );
      }
      await expectSameAsMissing(b.api.delete(`/time_entries/${entry.id}`), b.api.delete(`/time_entries/${MISSING.time_entry}`), entry.id, MISSING.time_entry);
    }
    expect(await snapshotA()).toEqual(before);
  });

  it("cannot move a time entry to another workspace's project or client", async () => {
    const before = await snapshotA();
    const move = (change: Record<string, unknown>) => b.api.patch(`/time_entries/${entryB.id}`, change);
    const [foreignP, missingP, foreignC, missingC] = await Promise.all([
      move({ project_id: projectA.id }),
      move({ project_id: MISSING.project }),
      move({ project_id: null, client_id: clientA.id }),
      move({ project_id: null, client_id: MISSING.client }),
    ]);
    expectSameRefusal(foreignP, missingP, 'project_id');
    expectSameRefusal(foreignC, missingC, 'client_id');
    expect((await b.api.get(`/time_entries/${entryB.id}`)).body).toEqual(entryB);
    expect(await snapshotA()).toEqual(before);
  });

  it("never lists another workspace's items, whatever the filters", async () => {
    const aIds = new Set([clientA.id, projectA.id, entryA.id, clientEntryA.id]);
    const paths = [
      '/clients?limit=100',
      '/clients?status=ACTIVE&limit=100',
      '/clients?search=isolated',
      '/clients?search=alpha&status=ACTIVE',
      '/projects?limit=100',
      '/projects?status=ACTIVE',
      '/projects?search=secret',
      `/projects?client_id=${clientA.id}`,
      `/projects?client_id=${clientA.id}&status=ACTIVE`,
      `/projects?client_id=${clientA.id}&search=alpha`,
      '/time_entries?limit=100',
      `/time_entries?client_id=${clientA.id}`,
      `/time_entries?project_id=${projectA.id}`,
      `/time_entries?project_id=${projectA.id}&client_id=${clientA.id}`,
    ];
    for (const path of paths) {
      const list = await b.api.get(path);
      expect(list.status, path).toBe(200);
      for (const o of list.body.data) {
        expect(aIds.has(o.id), `${path} leaks ${o.id}`).toBe(false);
        expect(o.workspace_id).toBe(b.id);
      }
      if (path.includes(clientA.id) || path.includes(projectA.id) || path.includes('search=')) {
        expect(list.body, path).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
      }
    }
    // A sees its own items through the same filters.
    expect((await a.api.get(`/projects?client_id=${clientA.id}`)).body.data.map((p: Obj) => p.id)).toEqual([projectA.id]);
    expect((await a.api.get('/clients?search=isolated')).body.data.map((c: Obj) => c.id)).toEqual([clientA.id]);
  });

  it("cannot create a project or log time against another workspace's client or project", async () => {
    const project = (clientId: string) => b.api.post('/projects', { name: 'Sneaky', client_id: clientId, billing_type: 'Monthly' });
    const [foreignP, missingP] = await Promise.all([project(clientA.id), project(MISSING.client)]);
    const fp = expectError(foreignP, 400, 'invalid_request');
    const mp = expectError(missingP, 400, 'invalid_request');
    expect(fp.param).toBe('client_id');
    expect(fp.message).toBe(mp.message);
    expect(fp.errors).toEqual(mp.errors);

    const log = (ref: Record<string, string>) => b.api.post('/time_entries', { ...ref, started_at: '2026-01-01T09:00:00Z', duration_minutes: 15 });
    const [foreignC, missingC, foreignPr, missingPr, mixed] = await Promise.all([
      log({ client_id: clientA.id }),
      log({ client_id: MISSING.client }),
      log({ project_id: projectA.id }),
      log({ project_id: MISSING.project }),
      log({ project_id: projectA.id, client_id: clientA.id }),
    ]);
    expectSameRefusal(foreignC, missingC, 'client_id');
    expectSameRefusal(foreignPr, missingPr, 'project_id');
    expect(expectError(mixed, 400, 'invalid_request').param).toBe('project_id');

    // Nothing was created anywhere.
    expect((await a.api.get(`/projects?client_id=${clientA.id}`)).body.data).toHaveLength(1);
    expect((await a.api.get(`/time_entries?client_id=${clientA.id}`)).body.data).toHaveLength(2);
    expect((await b.api.get('/projects?limit=100')).body.data.map((p: Obj) => p.id)).toEqual([projectB.id]);
    expect((await b.api.get('/time_entries?limit=100')).body.data.map((e: Obj) => e.id)).toEqual([entryB.id]);
  });

  it("leaves the owner's counters untouched: A can still delete everything in order", async () => {
    expect((await a.api.delete(`/time_entries/${entryA.id}`)).status).toBe(200);
    expect((await a.api.delete(`/time_entries/${clientEntryA.id}`)).status).toBe(200);
    expect((await a.api.delete(`/projects/${projectA.id}`)).status).toBe(200);
    const deleted = await a.api.delete(`/clients/${clientA.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'client', id: clientA.id, deleted: true });
    // B's data is still all there.
    for (const path of [`/clients/${clientB.id}`, `/projects/${projectB.id}`, `/time_entries/${entryB.id}`]) {
      expect((await b.api.get(path)).status).toBe(200);
    }
    expectError(await b.api.delete(`/clients/${clientB.id}`), 409, 'conflict');
  });
});
