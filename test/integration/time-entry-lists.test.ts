/**
 * Lists of time entries: newest first by started_at (ties by id) across pages, the
 * started_from (inclusive) / started_to (exclusive) range with offsets, its combinations with
 * project_id and client_id, cursors bound to all of them, and a correction of started_at moving
 * the entry in every list at once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTimes, workspace, type Api } from '../support/api.ts';
import { listAll } from '../support/races.ts';
import { expectInvalid } from '../support/assertions.ts';

type Obj = Record<string, any>;

/** Every page of a list at `limit` per page, checking has_more and next_cursor on each. */
async function walk(api: Api, query: string, limit: number): Promise<Obj[]> {
  const out: Obj[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get(`/time_entries?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    if (page.body.has_more) expect(page.body.data.length).toBe(limit);
    else expect(page.body.next_cursor).toBeNull();
    out.push(...page.body.data);
    cursor = page.body.has_more ? page.body.next_cursor : undefined;
  } while (cursor);
  return out;
}

/** Newest first by started_at, ties by id (newest id first). */
const ordered = (entries: Obj[]) =>
  [...entries].sort((a, b) => (a.started_at === b.started_at ? (a.id < b.id ? 1 : -1) : a.started_at < b.started_at ? 1 : -1)).map((e) => e.id);

describe('time entries by started_at', () => {
  let api: Api;
  let client: Obj;
  let other: Obj;
  let project: Obj;
  let entries: Obj[];

  // November and early December 2026, out of logging order, with ties and a project and a client entry at each instant.
  const STARTS = [
    '2026-11-30T23:59:59.999Z',
    '2026-11-01T00:00:00.000Z',
    '2026-12-01T00:00:00.000Z',
    '2026-10-31T23:59:59.999Z',
    '2026-11-15T12:00:00.000Z',
    '2026-11-15T12:00:00.000Z',
    '2026-11-02T09:00:00.000Z',
  ];

  beforeAll(async () => {
    const ws = await workspace('te-lists');
    api = ws.api;
    [client, other] = await Promise.all([createClient(api, { company_name: 'Listed' }), createClient(api, { company_name: 'Other' })]);
    project = await createProject(api, client.id);
    // In one batch, in the same order.
    entries = await logTimes(
      api,
      STARTS.flatMap((started_at) => [
        { project_id: project.id, started_at },
        { client_id: client.id, started_at },
        { client_id: other.id, started_at },
      ]),
    );
  });

  const within = (from: string | undefined, to: string | undefined, pick: (e: Obj) => boolean = () => true) =>
    ordered(entries.filter((e) => pick(e) && (from === undefined || e.started_at >= from) && (to === undefined || e.started_at < to)));

  it('orders every list newest first by started_at, ties by id, across pages of every size', async () => {
    for (const limit of [1, 2, 5, 100]) {
      expect((await walk(api, '', limit)).map((e) => e.id), `limit ${limit}`).toEqual(ordered(entries));
    }
    expect((await walk(api, `&project_id=${project.id}`, 4)).map((e) => e.id)).toEqual(within(undefined, undefined, (e) => e.project_id === project.id));
    expect((await walk(api, `&client_id=${client.id}`, 3)).map((e) => e.id)).toEqual(within(undefined, undefined, (e) => e.client_id === client.id));
  });

  it('takes started_from inclusive and started_to exclusive, alone or together, with every filter', async () => {
    const from = '2026-11-01T00:00:00Z';
    const to = '2026-12-01T00:00:00Z';
    const month = await walk(api, `&started_from=${from}&started_to=${to}`, 4);
    expect(month.map((e) => e.id)).toEqual(within('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'));
    // The edges: exactly started_from is in, exactly started_to is out, a millisecond before it is in.
    const starts = new Set(month.map((e) => e.started_at));
    expect(starts.has('2026-11-01T00:00:00.000Z')).toBe(true);
    expect(starts.has('2026-11-30T23:59:59.999Z')).toBe(true);
    expect(starts.has('2026-12-01T00:00:00.000Z')).toBe(false);
    expect(starts.has('2026-10-31T23:59:59.999Z')).toBe(false);
    expect((await walk(api, `&started_from=${from}`, 100)).map((e) => e.id)).toEqual(within('2026-11-01T00:00:00.000Z', undefined));
    expect((await walk(api, `&started_to=${to}`, 100)).map((e) => e.id)).toEqual(within(undefined, '2026-12-01T00:00:00.000Z'));
    const byProject = await walk(api, `&project_id=${project.id}&started_from=${from}&started_to=${to}`, 2);
    expect(byProject.map((e) => e.id)).toEqual(within('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', (e) => e.project_id === project.id));
    const byClient = await walk(api, `&client_id=${client.id}&started_from=${from}&started_to=${to}`, 2);
    expect(byClient.map((e) => e.id)).toEqual(within('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', (e) => e.client_id === client.id));
    const byBoth = await walk(api, `&project_id=${project.id}&client_id=${client.id}&started_from=${from}&started_to=${to}`, 2);
    expect(byBoth.map((e) => e.id)).toEqual(byProject.map((e) => e.id));
    // A client that is not the project's: nothing, not an error.
    expect(await walk(api, `&project_id=${project.id}&client_id=${other.id}`, 2)).toEqual([]);
    expect(await walk(api, `&project_id=prj_00000000000000000000000000&client_id=${client.id}`, 2)).toEqual([]);
    // An empty range (from = to) holds nothing.
    expect(await walk(api, `&started_from=${from}&started_to=${from}`, 5)).toEqual([]);
  });

  it('compares instants: offsets in the bounds name the same range as UTC', async () => {
    const utc = await walk(api, '&started_from=2026-11-15T12:00:00Z&started_to=2026-12-01T00:00:00Z', 100);
    const offset = await walk(api, `&started_from=${encodeURIComponent('2026-11-15T13:00:00+01:00')}&started_to=${encodeURIComponent('2026-11-30T19:00:00-05:00')}`, 100);
    expect(offset.map((e) => e.id)).toEqual(utc.map((e) => e.id));
    expect(utc.map((e) => e.started_at)).toContain('2026-11-15T12:00:00.000Z');
  });

  it('refuses bounds outside the timestamp rules and a range that ends before it starts, naming the parameter', async () => {
    for (const [query, param] of [
      ['started_from=2026-11-01', 'started_from'],
      ['started_from=yesterday', 'started_from'],
      ['started_from=1899-12-31T23:59:59Z', 'started_from'],
      ['started_to=2026-11-01T00:00:00', 'started_to'],
      ['started_to=', 'started_to'],
      ['started_to=10000-01-01T00:00:00Z', 'started_to'],
      ['started_from=2026-12-01T00:00:00Z&started_to=2026-11-01T00:00:00Z', 'started_to'],
      [`started_from=${encodeURIComponent('2026-11-01T00:30:00+00:00')}&started_to=${encodeURIComponent('2026-11-01T01:00:00+01:00')}`, 'started_to'],
    ] as const) {
      expect(expectError(await api.get(`/time_entries?${query}`), 400, 'invalid_request').param, query).toBe(param);
    }
  });

  it('lists a range that ends before it starts beside the other failing parameters (errors lists every one)', async () => {
    const error = expectInvalid(await api.get('/time_entries?limit=0&started_from=2026-12-01T00:00:00Z&started_to=2026-11-01T00:00:00Z'), ['limit', 'started_to']);
    expect(error.errors!.find((e) => e.param === 'started_to')!.message).toBe('started_to must not be before started_from');
  });

  it('binds a cursor to its range and filters', async () => {
    const range = '&started_from=2026-11-01T00:00:00Z&started_to=2026-12-01T00:00:00Z';
    const first = await api.get(`/time_entries?limit=2${range}`);
    const cursor = encodeURIComponent(first.body.next_cursor);
    expect((await api.get(`/time_entries?limit=2${range}&cursor=${cursor}`)).status).toBe(200);
    for (const changed of [
      '&started_from=2026-11-01T00:00:00Z&started_to=2026-12-02T00:00:00Z',
      '&started_from=2026-11-01T00:00:01Z&started_to=2026-12-01T00:00:00Z',
      '&started_to=2026-12-01T00:00:00Z',
      '',
      `${range}&client_id=${client.id}`,
    ]) {
      expect(expectError(await api.get(`/time_entries?limit=2${changed}&cursor=${cursor}`), 400, 'invalid_request').param, changed).toBe('cursor');
    }
    // The same instants spelled with offsets are the same range: the cursor continues it.
    const spelled = `&started_from=${encodeURIComponent('2026-11-01T01:00:00+01:00')}&started_to=2026-12-01T00:00:00.000Z`;
    expect((await api.get(`/time_entries?limit=2${spelled}&cursor=${cursor}`)).status).toBe(200);
  });

  it('moves a corrected entry in every list at once', async () => {
    const ws = await workspace('te-lists-move');
    const c = await createClient(ws.api);
    const p = await createProject(ws.api, c.id);
    const [early, late] = (await logTimes(ws.api, [
      { project_id: p.id, started_at: '2026-11-01T09:00:00Z' },
      { project_id: p.id, started_at: '2026-11-02T09:00:00Z' },
    ])) as [Obj, Obj];
    const lists = ['', `?project_id=${p.id}`, `?client_id=${c.id}`, `?started_from=2026-11-01T00:00:00Z&client_id=${c.id}`];
    for (const query of lists) expect((await listAll(ws.api, `/time_entries${query}`)).map((e) => e.id), query).toEqual([late.id, early.id]);
    expect((await ws.api.patch(`/time_entries/${early.id}`, { started_at: '2026-11-03T09:00:00Z' })).status).toBe(200);
    for (const query of lists) expect((await listAll(ws.api, `/time_entries${query}`)).map((e) => e.id), query).toEqual([early.id, late.id]);
    // Out of a range, and back into it, with a move to no project on the way.
    const december = `?started_from=2026-12-01T00:00:00Z&client_id=${c.id}`;
    expect(await listAll(ws.api, `/time_entries${december}`)).toEqual([]);
    expect((await ws.api.patch(`/time_entries/${late.id}`, { started_at: '2026-12-24T09:00:00Z', project_id: null })).status).toBe(200);
    expect((await listAll(ws.api, `/time_entries${december}`)).map((e) => e.id)).toEqual([late.id]);
    expect((await listAll(ws.api, `/time_entries?project_id=${p.id}`)).map((e) => e.id)).toEqual([early.id]);
    expect((await listAll(ws.api, '/time_entries')).map((e) => e.id)).toEqual([late.id, early.id]);
  });
});
