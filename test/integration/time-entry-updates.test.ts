/**
 * PATCH /api/v1/time_entries/{id}: corrections, moves between projects and clients (the
 * contract's move rules, each refusal changing nothing), If-Match, Idempotency-Key, the
 * time_entry.updated event, and the deletion-guard counters a move adjusts, checked in the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, logTime, workspace, type Api } from '../support/api.ts';
import { eventsWhen } from '../support/events.ts';
import { storedItems } from '../support/races.ts';

type Obj = Record<string, any>;

const { storedItem } = storedItems();

/** The time_entry_count of each owner, as stored. */
async function counts(wsId: string, owners: Obj[]): Promise<number[]> {
  return Promise.all(
    owners.map(async (o) => Number((await storedItem(wsId, o.object === 'project' ? 'PROJECT' : 'CLIENT', o.id))?.time_entry_count ?? Number.NaN)),
  );
}

describe('correcting a time entry', () => {
  let ws: { id: string; token: string; api: Api };
  let client: Obj;
  let project: Obj;

  beforeAll(async () => {
    ws = await workspace('te-fix');
    client = await createClient(ws.api);
    project = await createProject(ws.api, client.id);
  });

  it('changes started_at, duration_minutes, description and billable; answers the whole entry with its ETag', async () => {
    const entry = await logTime(ws.api, { project_id: project.id, description: 'Typo' });
    const response = await ws.api.patch(`/time_entries/${entry.id}`, {
      started_at: '2026-11-19T08:30:00+01:00',
      duration_minutes: 90,
      description: 'Fixed',
      billable: false,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...entry,
      started_at: '2026-11-19T07:30:00.000Z',
      duration_minutes: 90,
      description: 'Fixed',
      billable: false,
      updated_at: response.body.updated_at,
    });
    expect(Date.parse(response.body.updated_at)).toBeGreaterThan(Date.parse(entry.updated_at));
    expect(response.headers.get('etag')).toMatch(/^"/);
    const read = await ws.api.get(`/time_entries/${entry.id}`);
    expect(read.body).toEqual(response.body);
    expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    // null clears the description; the owners are untouched.
    const cleared = await ws.api.patch(`/time_entries/${entry.id}`, { description: null });
    expect(cleared.body).toMatchObject({ description: null, project_id: project.id, client_id: client.id });
    expect(await counts(ws.id, [project, client])).toEqual([1, 1]);
  });

  it('refuses what the contract refuses, changing nothing', async () => {
    const entry = await logTime(ws.api, { client_id: client.id });
    const cases: [Obj, string][] = [
      [{ started_at: null }, 'started_at'],
      [{ started_at: '2026-11-20' }, 'started_at'],
      [{ started_at: '1899-12-31T23:59:59Z' }, 'started_at'],
      [{ started_at: '10000-01-01T00:00:00Z' }, 'started_at'],
      [{ duration_minutes: null }, 'duration_minutes'],
      [{ duration_minutes: 0 }, 'duration_minutes'],
      [{ duration_minutes: 10_081 }, 'duration_minutes'],
      [{ duration_minutes: 2.5 }, 'duration_minutes'],
      [{ billable: null }, 'billable'],
      [{ billable: 'false' }, 'billable'],
      [{ client_id: null }, 'client_id'],
      [{ description: 'x'.repeat(5001) }, 'description'],
      [{ workspace_id: 'other' }, 'workspace_id'],
      [{ id: 'te_x' }, 'id'],
      [{ rate: 1 }, 'rate'],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await ws.api.patch(`/time_entries/${entry.id}`, body), 400, 'invalid_request');
      expect(error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await ws.api.get(`/time_entries/${entry.id}`)).body).toEqual(entry);
    expect((await ws.api.patch(`/time_entries/${entry.id}`, { duration_minutes: 10_080 })).body.duration_minutes).toBe(10_080);
  });

  it('answers 404 for an entry that is not there, and 412 for a stale If-Match, changing nothing', async () => {
    expectError(await ws.api.patch('/time_entries/te_00000000000000000000000000', { duration_minutes: 5 }), 404, 'not_found');
    expectError(await ws.api.patch('/time_entries/nope', { duration_minutes: 5 }), 404, 'not_found');
    expectError(await ws.api.patch('/time_entries/te_00000000000000000000000000', { project_id: project.id }), 404, 'not_found');
    const entry = await logTime(ws.api, { client_id: client.id });
    const etag = (await ws.api.get(`/time_entries/${entry.id}`)).headers.get('etag')!;
    const patch = (body: Obj, ifMatch: string) => call('PATCH', `/api/v1/time_entries/${entry.id}`, { token: ws.token, body, headers: { 'If-Match': ifMatch } });
    const changed = await patch({ duration_minutes: 31 }, etag);
    expect(changed.status).toBe(200);
    const before = await counts(ws.id, [project, client]);
    // The old ETag is stale: a correction and a move are both refused.
    expectError(await patch({ duration_minutes: 32 }, etag), 412, 'precondition_failed');
    expectError(await patch({ project_id: project.id }, etag), 412, 'precondition_failed');
    expect((await ws.api.get(`/time_entries/${entry.id}`)).body).toEqual(changed.body);
    expect(await counts(ws.id, [project, client])).toEqual(before);
    const moved = await patch({ project_id: project.id }, changed.headers.get('etag')!);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ project_id: project.id, client_id: client.id, duration_minutes: 31 });
  });

  it('makes a time_entry.updated event with previous_attributes', async () => {
    const own = await workspace('te-fix-events');
    const c = await createClient(own.api);
    const other = await createClient(own.api, { company_name: 'Other' });
    const entry = await logTime(own.api, { client_id: c.id });
    const fixed = (await own.api.patch(`/time_entries/${entry.id}`, { duration_minutes: 45, billable: false })).body;
    const moved = (await own.api.patch(`/time_entries/${entry.id}`, { client_id: other.id })).body;
    const events = (await eventsWhen(own.api, 5)).filter((e) => e.data.object.id === entry.id);
    expect(events.map((e) => e.type)).toEqual(['time_entry.created', 'time_entry.updated', 'time_entry.updated']);
    expect(events[1].data).toEqual({ object: fixed, previous_attributes: { duration_minutes: 30, billable: true, updated_at: entry.updated_at } });
    expect(events[2].data).toEqual({ object: moved, previous_attributes: { client_id: c.id, updated_at: fixed.updated_at } });
  });
});

describe('moving a time entry', () => {
  let ws: { id: string; token: string; api: Api };
  let alpha: Obj;
  let beta: Obj;
  let alphaOne: Obj;
  let alphaTwo: Obj;
  let betaOne: Obj;

  beforeAll(async () => {
    ws = await workspace('te-move');
    [alpha, beta] = await Promise.all([createClient(ws.api, { company_name: 'Alpha' }), createClient(ws.api, { company_name: 'Beta' })]);
    [alphaOne, alphaTwo, betaOne] = await Promise.all([
      createProject(ws.api, alpha.id, { name: 'A1' }),
      createProject(ws.api, alpha.id, { name: 'A2' }),
      createProject(ws.api, beta.id, { name: 'B1' }),
    ]);
  });

  const owners = () => [alpha, beta, alphaOne, alphaTwo, betaOne];
  const path = (entry: Obj) => `/time_entries/${entry.id}`;

  it("to another project: the entry's client becomes that project's client, and the counters follow", async () => {
    const before = await counts(ws.id, owners());
    const entry = await logTime(ws.api, { project_id: alphaOne.id });
    const sameClient = await ws.api.patch(path(entry), { project_id: alphaTwo.id });
    expect(sameClient.body).toMatchObject({ project_id: alphaTwo.id, client_id: alpha.id });
    expect(await counts(ws.id, owners())).toEqual([before[0]! + 1, before[1], before[2], before[3]! + 1, before[4]]);
    // To a project of another client; a client_id beside it must be that client.
    const moved = await ws.api.patch(path(entry), { project_id: betaOne.id, client_id: beta.id, description: 'Re-filed' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ project_id: betaOne.id, client_id: beta.id, description: 'Re-filed' });
    expect(await counts(ws.id, owners())).toEqual([before[0], before[1]! + 1, before[2], before[3], before[4]! + 1]);
    expect((await ws.api.get(`/time_entries?project_id=${betaOne.id}`)).body.data.map((e: Obj) => e.id)).toContain(entry.id);
    expect((await ws.api.get(`/time_entries?client_id=${alpha.id}&limit=100`)).body.data.map((e: Obj) => e.id)).not.toContain(entry.id);
  });

  it('with project_id null: to its client alone, or to the client sent beside it', async () => {
    const before = await counts(ws.id, owners());
    const entry = await logTime(ws.api, { project_id: alphaOne.id });
    const detached = await ws.api.patch(path(entry), { project_id: null });
    expect(detached.body).toMatchObject({ project_id: null, client_id: alpha.id });
    expect(await counts(ws.id, owners())).toEqual([before[0]! + 1, before[1], before[2], before[3], before[4]]);
    expect((await ws.api.get(`/time_entries?project_id=${alphaOne.id}&limit=100`)).body.data.map((e: Obj) => e.id)).not.toContain(entry.id);
    // client_id alone on an entry without a project moves it to that client.
    const toBeta = await ws.api.patch(path(entry), { client_id: beta.id });
    expect(toBeta.body).toMatchObject({ project_id: null, client_id: beta.id });
    const back = await logTime(ws.api, { project_id: betaOne.id });
    const both = await ws.api.patch(path(back), { project_id: null, client_id: alpha.id });
    expect(both.body).toMatchObject({ project_id: null, client_id: alpha.id });
    expect(await counts(ws.id, owners())).toEqual([before[0]! + 1, before[1]! + 1, before[2], before[3], before[4]]);
  });

  it("refuses client_id alone when it is not the project's client, and a client_id beside a project that is not its client", async () => {
    const entry = await logTime(ws.api, { project_id: alphaOne.id });
    const before = await counts(ws.id, owners());
    const alone = expectError(await ws.api.patch(path(entry), { client_id: beta.id }), 400, 'invalid_request');
    expect(alone.param).toBe('client_id');
    expect(alone.message).toMatch(/project_id to null/);
    const beside = expectError(await ws.api.patch(path(entry), { project_id: betaOne.id, client_id: alpha.id }), 400, 'invalid_request');
    expect(beside.param).toBe('client_id');
    // Its own client alone is no move: the rest of the change applies.
    const same = await ws.api.patch(path(entry), { client_id: alpha.id, duration_minutes: 12 });
    expect(same.body).toMatchObject({ project_id: alphaOne.id, client_id: alpha.id, duration_minutes: 12 });
    expect(await counts(ws.id, owners())).toEqual(before);
  });

  it('refuses targets that name nothing, naming the field, changing nothing', async () => {
    const entry = await logTime(ws.api, { project_id: alphaOne.id });
    const gone = await createProject(ws.api, beta.id, { name: 'Gone' });
    expect((await ws.api.delete(`/projects/${gone.id}`)).status).toBe(200);
    const goneClient = await createClient(ws.api, { company_name: 'Gone Co' });
    expect((await ws.api.delete(`/clients/${goneClient.id}`)).status).toBe(200);
    const before = await counts(ws.id, owners());
    const cases: [Obj, string][] = [
      [{ project_id: gone.id }, 'project_id'],
      [{ project_id: 'prj_00000000000000000000000000' }, 'project_id'],
      [{ project_id: 'nope' }, 'project_id'],
      [{ project_id: alpha.id }, 'project_id'],
      [{ project_id: '' }, 'project_id'],
      [{ project_id: null, client_id: goneClient.id }, 'client_id'],
      [{ project_id: null, client_id: 'cli_00000000000000000000000000' }, 'client_id'],
      [{ project_id: null, client_id: alphaOne.id }, 'client_id'],
      [{ project_id: null, client_id: 'nope' }, 'client_id'],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await ws.api.patch(path(entry), { ...body, duration_minutes: 99 }), 400, 'invalid_request');
      expect(error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await ws.api.get(path(entry))).body).toEqual(entry);
    expect(await counts(ws.id, owners())).toEqual(before);
  });

  it('replays a move retried with the same Idempotency-Key, counting it once', async () => {
    const entry = await logTime(ws.api, { project_id: alphaOne.id });
    const before = await counts(ws.id, owners());
    const send = () =>
      call('PATCH', `/api/v1${path(entry)}`, { token: ws.token, body: { project_id: betaOne.id }, headers: { 'Idempotency-Key': `move-${entry.id}` } });
    const first = await send();
    const retry = await send();
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await counts(ws.id, owners())).toEqual([before[0]! - 1, before[1]! + 1, before[2]! - 1, before[3], before[4]! + 1]);
  });

  it('frees the project it leaves for deletion, and guards the one it joins', async () => {
    const c = await createClient(ws.api, { company_name: 'Guarded' });
    const [from, to] = await Promise.all([createProject(ws.api, c.id, { name: 'From' }), createProject(ws.api, c.id, { name: 'To' })]);
    const entry = await logTime(ws.api, { project_id: from.id });
    expectError(await ws.api.delete(`/projects/${from.id}`), 409, 'conflict');
    expect((await ws.api.patch(path(entry), { project_id: to.id })).status).toBe(200);
    expect((await ws.api.delete(`/projects/${from.id}`)).status).toBe(200);
    expect(expectError(await ws.api.delete(`/projects/${to.id}`), 409, 'conflict').message).toMatch(/1 time entry/);
    expect((await ws.api.patch(path(entry), { project_id: null })).status).toBe(200);
    expect((await ws.api.delete(`/projects/${to.id}`)).status).toBe(200);
    expectError(await ws.api.delete(`/clients/${c.id}`), 409, 'conflict');
  });
});
