/**
 * Bulk import of time entries over HTTP (contract, "CSV and bulk import", "Bulk import"):
 * `POST /api/v1/time_entries/batch`, 1 to 100 log bodies made whole or refused whole. A batch of
 * 100 mixed entries answered in order and counted exactly (retrieve, lists, time summaries against
 * the reference, the delete guards); every refusal listed by index with nothing created (invalid
 * fields, references that name nothing, deleted or of another workspace, a client that is not the
 * project's, the count, the body's shape); the 1 MiB body limit; keyed replays; one event per entry.
 */
import { describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, workspace, type Api, type ApiResponse } from '../support/api.ts';
import { allEvents, waitFor } from '../support/events.ts';
import { allEntries, referenceSummary, summaryRows, type EntryLike, type SummaryQuery } from '../support/summaries.ts';

type Obj = Record<string, any>;
type Ws = Awaited<ReturnType<typeof workspace>>;

const PATH = '/api/v1/time_entries/batch';
const MiB = 1024 * 1024;
/** Well formed (a ULID of Crockford base32) but naming nothing. */
const UNKNOWN_PROJECT = 'prj_01JZZZZZZZZZZZZZZZZZZZZZZZ';
const ENTRY_ID = /^te_[0-9A-HJKMNP-TV-Z]{26}$/;
/** The range every entry of these tests falls in, by day and project. */
const BY_PROJECT_AND_DAY: SummaryQuery = { from: '2026-10-25', to: '2026-11-20', timezone: 'UTC', group_by: 'project', period: 'day' };

const batch = (ws: Ws, body: unknown, headers: Record<string, string> = {}) => call('POST', PATH, { token: ws.token, body, headers });
const rawBatch = (ws: Ws, text: string) => call('POST', PATH, { token: ws.token, rawBody: text, headers: { 'Content-Type': 'application/json' } });

/** A log body: 30 minutes on 2026-11-10 at 09:00 UTC unless `extra` says otherwise. */
const log = (extra: Obj): Obj => ({ started_at: '2026-11-10T09:00:00Z', duration_minutes: 30, ...extra });

/** A 400 invalid_request whose `errors` names exactly `params`, in this order; `param` (and the message) the first. */
function expectRefused(response: ApiResponse, params: string[]) {
  const error = expectError(response, 400, 'invalid_request');
  expect(error.errors?.map((e) => e.param), JSON.stringify(error)).toEqual(params);
  expect(error.param).toBe(params[0]);
  expect(error.message).toBe(error.errors![0]!.message);
  for (const e of error.errors!) expect(e.message).toMatch(/\S/);
  return error;
}

/** The workspace holds no time entry, and its summaries count nothing. */
async function expectNothingLogged(api: Api) {
  const list = await api.get('/time_entries?limit=100');
  expect(list.status).toBe(200);
  expect(list.body.data).toEqual([]);
  expect(await summaryRows(api, BY_PROJECT_AND_DAY)).toEqual([]);
}

/** Every entry of a list filter (one page: at most 100). */
async function listed(api: Api, query: string): Promise<Obj[]> {
  const page = await api.get(`/time_entries?${query}&limit=100`);
  expect(page.status).toBe(200);
  expect(page.body.has_more).toBe(false);
  return page.body.data;
}

/**
 * 100 log bodies: on two projects of one client (`web` with a rate, `ops` with another), and on
 * the client alone (with and without a rate of its own); over a week, some at an offset that
 * moves them to the UTC day before; some not billable, some with a rate of their own or none.
 */
function mixedBodies(ids: { client: string; web: string; ops: string }, n = 100): Obj[] {
  return Array.from({ length: n }, (_, i) => {
    const day = String(1 + (i % 7)).padStart(2, '0');
    const hour = String(8 + (i % 9)).padStart(2, '0');
    const minute = String(i % 60).padStart(2, '0');
    const body: Obj = {
      started_at: i % 6 === 0 ? `2026-11-${day}T01:${minute}:00+02:00` : `2026-11-${day}T${hour}:${minute}:00Z`,
      duration_minutes: 5 + ((i * 37) % 240),
    };
    const owner = i % 5;
    if (owner === 0 || owner === 1) body.project_id = ids.web;
    if (owner === 2) Object.assign(body, { project_id: ids.ops }, i % 10 === 2 ? { client_id: ids.client } : {});
    if (owner === 3) body.client_id = ids.client;
    if (owner === 4) Object.assign(body, { client_id: ids.client, billable_rate: 95.25 });
    if (i % 8 === 3) body.billable = false;
    if (i % 8 === 5) body.billable = true;
    if (i % 9 === 4 && owner !== 4) body.billable_rate = 150.75;
    if (i % 11 === 7 && owner < 3) body.billable_rate = null;
    if (i % 3 === 1) body.description = `Imported #${i}: réunion`;
    return body;
  });
}

/** What the log of `body` makes, computed from the body: the project's client and rate unless the body says otherwise. */
function expectedEntry(body: Obj, projects: Map<string, Obj>, workspaceId: string) {
  const project = body.project_id ? projects.get(body.project_id)! : undefined;
  return {
    object: 'time_entry',
    project_id: body.project_id ?? null,
    client_id: project ? project.client_id : body.client_id,
    started_at: new Date(body.started_at).toISOString(),
    duration_minutes: body.duration_minutes,
    billable: body.billable ?? true,
    billable_rate: 'billable_rate' in body ? body.billable_rate : (project?.hourly_rate ?? null),
    description: body.description ?? null,
    invoice_id: null,
    workspace_id: workspaceId,
  };
}

/** A workspace with one client and two of its projects at different rates. */
async function twoProjects(prefix: string) {
  const ws = await workspace(prefix);
  const client = await createClient(ws.api, { company_name: 'Import Co' });
  const [web, ops] = await Promise.all([
    createProject(ws.api, client.id, { name: 'Web', hourly_rate: 120 }),
    createProject(ws.api, client.id, { name: 'Ops', hourly_rate: 85.5 }),
  ]);
  return { ws, client, web, ops, ids: { client: client.id, web: web.id, ops: ops.id }, projects: new Map<string, Obj>([[web.id, web], [ops.id, ops]]) };
}

describe('a batch made whole', () => {
  it('makes 100 mixed entries in the given order, as retrieve and lists show them, counted exactly by summaries and the delete guards', async () => {
    const { ws, client, web, ops, ids, projects } = await twoProjects('batch');
    const bodies = mixedBodies(ids);
    const response = await batch(ws, { entries: bodies });
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(201);
    expect(response.headers.get('location')).toBeNull();
    expect(Object.keys(response.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    expect(response.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const made: Obj[] = response.body.data;
    expect(made).toHaveLength(100);
    made.forEach((entry, i) => expect(entry, `entries[${i}]`).toMatchObject(expectedEntry(bodies[i]!, projects, ws.id)));
    for (const entry of made) {
      expect(entry.id).toMatch(ENTRY_ID);
      expect(entry.updated_at).toBe(entry.created_at);
    }
    expect(new Set(made.map((e) => e.id)).size).toBe(100);

    // Retrieve answers each as the batch did (a few); the lists hold exactly the batch's, as it answered them.
    for (const i of [0, 12, 57, 99]) expect((await ws.api.get(`/time_entries/${made[i]!.id}`)).body).toEqual(made[i]);
    const byId = new Map(made.map((e) => [e.id, e]));
    for (const [query, owner] of [[`project_id=${web.id}`, web.id], [`project_id=${ops.id}`, ops.id]] as const) {
      const entries = await listed(ws.api, query);
      expect(entries.length).toBe(bodies.filter((b) => b.project_id === owner).length);
      for (const e of entries) expect(e).toEqual(byId.get(e.id));
    }
    const all = await listed(ws.api, `client_id=${client.id}`);
    expect(all.map((e) => e.id).sort()).toEqual([...byId.keys()].sort());

    // Summaries by project and day: the reference computed from the bodies.
    const expected = bodies.map((b) => expectedEntry(b, projects, ws.id)) as EntryLike[];
    const rows = await summaryRows(ws.api, BY_PROJECT_AND_DAY);
    expect(rows).toEqual(referenceSummary(expected, BY_PROJECT_AND_DAY, () => 'USD'));
    expect(rows.length).toBeGreaterThan(20);

    // The counters: each project and the client count their entries.
    const onWeb = bodies.filter((b) => b.project_id === web.id).length;
    expect(expectError(await ws.api.delete(`/projects/${web.id}`), 409, 'conflict').message).toMatch(new RegExp(`\\b${onWeb} time entries`));
    expectError(await ws.api.delete(`/projects/${ops.id}`), 409, 'conflict');
    expectError(await ws.api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect((await ws.api.get(`/projects/${web.id}`)).status).toBe(200);
  });

  it('takes a body over 64 KiB up to exactly 1 MiB; one byte more is a 413 that creates nothing; other bodies keep 64 KiB', async () => {
    const { ws, web, projects } = await twoProjects('batch-size');
    const bodies = Array.from({ length: 100 }, (_, i) => log({ project_id: web.id, started_at: `2026-11-${String(1 + (i % 9)).padStart(2, '0')}T10:00:00Z`, description: `${i} ${'x'.repeat(1000)}` }));
    const text = JSON.stringify({ entries: bodies });
    expect(Buffer.byteLength(text)).toBeGreaterThan(64 * 1024);
    const large = await rawBatch(ws, text);
    expect(large.status, JSON.stringify(large.body).slice(0, 300)).toBe(201);
    large.body.data.forEach((entry: Obj, i: number) => expect(entry).toMatchObject(expectedEntry(bodies[i]!, projects, ws.id)));

    // Padded with JSON whitespace to exactly the limit, then one byte past it.
    const one = JSON.stringify({ entries: [log({ project_id: web.id, description: 'at the limit' })] });
    const padded = (bytes: number) => `${one.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(one))}}`;
    const atLimit = await rawBatch(ws, padded(MiB));
    expect(atLimit.status, JSON.stringify(atLimit.body).slice(0, 300)).toBe(201);
    expect(atLimit.body.data).toHaveLength(1);
    expectError(await rawBatch(ws, padded(MiB + 1)), 413, 'payload_too_large');
    // Every entry valid (5,000 code points, the most a description takes), the body over 1 MiB in bytes.
    const heavy = JSON.stringify({ entries: bodies.map((b) => ({ ...b, description: '€'.repeat(5000) })) });
    expect(heavy.length).toBeLessThan(MiB);
    expect(Buffer.byteLength(heavy)).toBeGreaterThan(MiB);
    expectError(await rawBatch(ws, heavy), 413, 'payload_too_large');
    // A single log keeps its 64 KiB.
    const single = JSON.stringify(log({ project_id: web.id }));
    const over64 = `${single.slice(0, -1)}${' '.repeat(64 * 1024 + 1 - Buffer.byteLength(single))}}`;
    expectError(await call('POST', '/api/v1/time_entries', { token: ws.token, rawBody: over64, headers: { 'Content-Type': 'application/json' } }), 413, 'payload_too_large');
    expect(await allEntries(ws.api)).toHaveLength(101);
  });
});

describe('a batch refused whole', () => {
  it('lists every invalid field of 100 by index, the unknown project beside the schema errors, param the lowest index; creates nothing', async () => {
    const { ws, web, ids } = await twoProjects('batch-bad');
    const bodies = mixedBodies(ids);
    bodies[57] = { ...bodies[57], started_at: '2026-11-31T09:00:00Z' };
    bodies[12] = log({ project_id: UNKNOWN_PROJECT });
    bodies[80] = { ...bodies[80], rate: 1 };
    const error = expectRefused(await batch(ws, { entries: bodies }), ['entries[12].project_id', 'entries[57].started_at', 'entries[80].rate']);
    expect(error.message).toMatch(/project/);
    await expectNothingLogged(ws.api);
    // No counter moved: the project deletes.
    expect((await ws.api.delete(`/projects/${web.id}`)).status).toBe(200);
  });

  it('refuses 0 and 101 entries naming entries alone, and a body that is not {entries: [...]}; creates nothing', async () => {
    const { ws, ids } = await twoProjects('batch-count');
    const valid = mixedBodies(ids, 101);
    expectRefused(await batch(ws, { entries: [] }), ['entries']);
    expectRefused(await batch(ws, { entries: valid }), ['entries']);
    expectRefused(await batch(ws, {}), ['entries']);
    expectRefused(await batch(ws, { entries: valid[0] }), ['entries']);
    expectRefused(await batch(ws, { entries: 'all' }), ['entries']);
    expectRefused(await batch(ws, { entries: valid.slice(0, 3), source: 'harvest' }), ['source']);
    // A member beside the entries waits for their references: listed after them.
    expectRefused(await batch(ws, { entries: [valid[0], log({ project_id: UNKNOWN_PROJECT })], source: 'harvest' }), ['entries[1].project_id', 'source']);
    expectRefused(await batch(ws, valid.slice(0, 3)), ['body']);
    expectRefused(await batch(ws, { entries: [valid[0], 1, null] }), ['entries[1]', 'entries[2]']);
    await expectNothingLogged(ws.api);
  });

  it('names each entry whose project was deleted, whose client is not its project\'s, or whose client was deleted', async () => {
    const ws = await workspace('batch-gone');
    const [mine, other, goneClient] = await Promise.all(['Mine', 'Other', 'Gone'].map((company_name) => createClient(ws.api, { company_name })));
    const [project, gone] = await Promise.all([createProject(ws.api, mine!.id), createProject(ws.api, mine!.id, { name: 'Gone' })]);
    expect((await ws.api.delete(`/projects/${gone.id}`)).status).toBe(200);
    expect((await ws.api.delete(`/clients/${goneClient!.id}`)).status).toBe(200);
    const entries = [
      log({ project_id: project.id }),
      log({ project_id: gone.id }),
      log({ project_id: project.id, client_id: other!.id }),
      log({ client_id: goneClient!.id }),
      log({ project_id: gone.id, client_id: mine!.id }),
      log({ client_id: other!.id }),
      log({ project_id: project.id, client_id: mine!.id }),
    ];
    expectRefused(await batch(ws, { entries }), ['entries[1].project_id', 'entries[2].client_id', 'entries[3].client_id', 'entries[4].project_id']);
    await expectNothingLogged(ws.api);
    // The corrected batch goes through.
    const fixed = await batch(ws, { entries: [entries[0], entries[5], entries[6]] });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
    expect(fixed.body.data.map((e: Obj) => [e.project_id, e.client_id])).toEqual([[project.id, mine!.id], [null, other!.id], [project.id, mine!.id]]);
  });

  it("never sees another workspace's project or client: each is an unknown reference by index", async () => {
    const [a, b] = await Promise.all([workspace('batch-a'), workspace('batch-b')]);
    const clientA = await createClient(a.api);
    const projectA = await createProject(a.api, clientA.id);
    const clientB = await createClient(b.api);
    const projectB = await createProject(b.api, clientB.id);
    const entries = [log({ project_id: projectB.id }), log({ project_id: projectA.id }), log({ client_id: clientA.id }), log({ project_id: projectA.id, client_id: clientB.id })];
    expectRefused(await batch(b, { entries }), ['entries[1].project_id', 'entries[2].client_id', 'entries[3].project_id']);
    await expectNothingLogged(b.api);
    await expectNothingLogged(a.api);
    expect((await a.api.delete(`/projects/${projectA.id}`)).status).toBe(200);
  });
});

describe('keyed batches and events', () => {
  it('replays a keyed batch of 100 with the same ids and creates nothing twice; the key with another body is a 422', async () => {
    const { ws, web, ids } = await twoProjects('batch-key');
    const key = `import-${ws.id}`;
    const bodies = mixedBodies(ids);
    // A refused batch stores nothing under its key: the corrected one goes through with it.
    expectRefused(await batch(ws, { entries: [...bodies.slice(0, 99), log({ project_id: UNKNOWN_PROJECT })] }, { 'Idempotency-Key': key }), ['entries[99].project_id']);
    const first = await batch(ws, { entries: bodies }, { 'Idempotency-Key': key });
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await batch(ws, { entries: bodies }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBeNull();
    expect(again.body).toEqual(first.body);

    const reused = await batch(ws, { entries: bodies.slice(0, 1) }, { 'Idempotency-Key': key });
    expectError(reused, 422, 'idempotency_key_reused');
    expect((await listed(ws.api, `client_id=${ids.client}`)).map((e) => e.id).sort()).toEqual(first.body.data.map((e: Obj) => e.id).sort());
    const onWeb = bodies.filter((b) => b.project_id === web.id).length;
    expect(expectError(await ws.api.delete(`/projects/${web.id}`), 409, 'conflict').message).toMatch(new RegExp(`\\b${onWeb} time entries`));

    // A small batch (one transaction, its record beside it) replays alike.
    const small = { entries: [log({ project_id: web.id, started_at: '2026-11-12T09:00:00Z' }), log({ client_id: ids.client, started_at: '2026-11-12T10:00:00Z' })] };
    const once = await batch(ws, small, { 'Idempotency-Key': `${key}-small` });
    expect(once.status, JSON.stringify(once.body)).toBe(201);
    const twice = await batch(ws, small, { 'Idempotency-Key': `${key}-small` });
    expect([twice.status, twice.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(twice.body).toEqual(once.body);
    expect(await allEntries(ws.api)).toHaveLength(102);
  });

  it('replays a keyed batch whose reply is too large to keep from its entries as they are now: the same bytes, then without one deleted', async () => {
    const { ws, web } = await twoProjects('batch-rebuilt');
    const key = `rebuilt-${ws.id}`;
    // About 390 KB of reply: its record keeps the ids (a record must fit DynamoDB's 400 KB item).
    const long = { entries: Array.from({ length: 100 }, (_, i) => log({ project_id: web.id, description: `${i} ${'x'.repeat(3500)}` })) };
    const first = await batch(ws, long, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await batch(ws, long, { 'Idempotency-Key': key });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const gone = first.body.data[7].id as string;
    expect((await ws.api.delete(`/time_entries/${gone}`)).status).toBe(200);
    const rebuilt = await batch(ws, long, { 'Idempotency-Key': key });
    expect(rebuilt.body.data.map((e: Obj) => e.id)).toEqual(first.body.data.map((e: Obj) => e.id).filter((id: string) => id !== gone));
  });

  it('makes one time_entry.created event per entry, each holding the entry, with the batch request id', async () => {
    const { ws, web, ids } = await twoProjects('batch-events');
    const made = await batch(ws, { entries: [log({ project_id: web.id }), log({ client_id: ids.client, billable: false }), log({ project_id: web.id, description: 'third' })] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const requestId = made.headers.get('x-request-id');
    // A later change: once its event and the batch's three are in, the feed holds all the batch made.
    expect((await ws.api.patch(`/projects/${web.id}`, { name: 'Web (imported)' })).status).toBe(200);
    const events = await waitFor(async () => {
      const all = await allEvents(ws.api);
      return all.some((e) => e.type === 'project.updated') && all.filter((e) => e.type === 'time_entry.created').length >= 3 ? all : undefined;
    }, 'the batch events and the later update');
    expect(events.map((e) => e.type).sort()).toEqual(['client.created', 'project.created', 'project.created', 'project.updated', 'time_entry.created', 'time_entry.created', 'time_entry.created']);
    const created = events.filter((e) => e.type === 'time_entry.created');
    const byId = new Map(created.map((e) => [e.data.object.id, e]));
    for (const entry of made.body.data) {
      expect(byId.get(entry.id)?.data.object).toEqual(entry);
      expect(byId.get(entry.id)?.request_id).toBe(requestId);
    }
  });
});
