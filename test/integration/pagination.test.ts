/**
 * List pagination of clients, projects and time entries: limits, ordering, exact has_more,
 * walking every page with every limit edge, filters, search with full pages, and cursor misuse.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTimes, workspace, type Api } from '../support/api.ts';

type Item = { id: string; created_at: string; [k: string]: unknown };

/** Runs the tasks in sequential batches of `size` parallel calls; results in task order. */
async function inBatches<T>(tasks: (() => Promise<T>)[], size = 10): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < tasks.length; i += size) out.push(...(await Promise.all(tasks.slice(i, i + size).map((t) => t()))));
  return out;
}

function withQuery(path: string, params: Record<string, string | number | undefined>): string {
  const [base, existing] = path.split('?');
  const search = new URLSearchParams(existing ?? '');
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, String(v));
  const qs = search.toString();
  return qs ? `${base}?${qs}` : base!;
}

/** Newest first by (created_at, id), as the contract orders lists. */
const newestFirst = (items: Item[]) =>
  [...items].sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

function expectStrictlyDescending(items: Item[]) {
  for (let i = 1; i < items.length; i++) {
    const prev = items[i - 1]!;
    const cur = items[i]!;
    const ok = prev.created_at > cur.created_at || (prev.created_at === cur.created_at && prev.id > cur.id);
    if (!ok) throw new Error(`not strictly newest first at ${i}: (${prev.created_at}, ${prev.id}) then (${cur.created_at}, ${cur.id})`);
  }
}

/**
 * Follows next_cursor to the end with the given limit; asserts the envelope on every page, that
 * pages are full except the last, that has_more is exact, and returns the pages.
 */
async function walk(api: Api, path: string, limit: number | undefined): Promise<Item[][]> {
  const pages: Item[][] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 500; guard++) {
    const response = await api.get(withQuery(path, { limit, cursor }));
    expect(response.status, `${path} limit=${limit}: ${JSON.stringify(response.body)}`).toBe(200);
    const page = response.body;
    expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    expect(page.object).toBe('list');
    expect(page.data.length).toBeLessThanOrEqual(limit ?? 25);
    if (pages.length > 0) expect(page.data.length, 'a page after has_more=true must not be empty').toBeGreaterThan(0);
    pages.push(page.data);
    if (page.has_more === false) {
      expect(page.next_cursor).toBeNull();
      return pages;
    }
    expect(page.has_more).toBe(true);
    expect(typeof page.next_cursor).toBe('string');
    expect(page.data.length, 'a page followed by more must be full').toBe(limit ?? 25);
    cursor = page.next_cursor;
  }
  throw new Error('too many pages');
}

/** Walks the list with every limit edge around N and checks every item comes exactly once, in order. */
async function expectWalks(api: Api, path: string, expected: Item[], extraLimits: number[] = []) {
  const n = expected.length;
  const want = newestFirst(expected).map((i) => i.id);
  const limits = [...new Set([1, 2, n - 1, n, n + 1, ...extraLimits].filter((l) => l >= 1 && l <= 100))];
  await Promise.all(
    limits.map(async (limit) => {
      const pages = await walk(api, path, limit);
      const all = pages.flat();
      expect(all.map((i) => i.id), `${path} with limit ${limit}`).toEqual(want);
      expectStrictlyDescending(all);
      expect(pages.length, `${path} with limit ${limit}: page count`).toBe(Math.max(1, Math.ceil(n / limit)));
    }),
  );
}

const BAD_LIMITS = ['0', '101', '-1', '1.5', 'abc', '', '1e1', ' 5', '1000'];

async function expectLimitRules(api: Api, path: string, total: number) {
  for (const limit of BAD_LIMITS) {
    const error = expectError(await api.get(withQuery(path, { limit })), 400, 'invalid_request');
    expect(error.param, `limit=${JSON.stringify(limit)}`).toBe('limit');
  }
  const one = await api.get(withQuery(path, { limit: 1 }));
  expect(one.status).toBe(200);
  expect(one.body.data).toHaveLength(1);
  expect(one.body.has_more).toBe(total > 1);
  const hundred = await api.get(withQuery(path, { limit: 100 }));
  expect(hundred.status).toBe(200);
  expect(hundred.body.data).toHaveLength(Math.min(total, 100));
  expect(hundred.body.has_more).toBe(total > 100);
  expect(hundred.body.next_cursor).toBeNull();
  const byDefault = await api.get(path);
  expect(byDefault.status).toBe(200);
  expect(byDefault.body.data).toHaveLength(Math.min(total, 25));
  expect(byDefault.body.has_more).toBe(total > 25);
  expectStrictlyDescending(byDefault.body.data);
}

async function expectBadCursor(api: Api, path: string) {
  const response = await api.get(path);
  expect(response.status, `${path.slice(0, 200)} must be refused`).toBe(400);
  const error = expectError(response, 400, 'invalid_request');
  expect(error.param, path).toBe('cursor');
}

async function firstCursor(api: Api, path: string): Promise<string> {
  const response = await api.get(withQuery(path, { limit: 1 }));
  expect(response.status).toBe(200);
  expect(response.body.has_more).toBe(true);
  return response.body.next_cursor as string;
}

// ---------------------------------------------------------------------------------------------

describe('clients list', () => {
  let api: Api;
  let other: Api;
  let clients: Item[];
  // 37 clients: 7 match "acm" case-insensitively, spread among 30 that do not.
  const MATCHING = new Map<number, { name: string; status: string }>([
    [2, { name: 'Acme Corp', status: 'ACTIVE' }],
    [7, { name: 'The ACME Group', status: 'LEAD' }],
    [13, { name: 'Pacman Studios', status: 'ACTIVE' }],
    [18, { name: 'tacmo ltd', status: 'LOST' }],
    [24, { name: 'Lacmus Paints', status: 'ACTIVE' }],
    [29, { name: 'BigACMe', status: 'SLEEPING' }],
    [35, { name: 'acme', status: 'ACTIVE' }],
  ]);
  const OTHER_STATUSES = ['LEAD', 'ACTIVE', 'SLEEPING', 'LOST'];

  beforeAll(async () => {
    const ws = await workspace('page-cli');
    api = ws.api;
    other = (await workspace('page-cli-other')).api;
    clients = await inBatches(
      Array.from({ length: 37 }, (_, i) => () => {
        const m = MATCHING.get(i);
        return createClient(api, m ? { company_name: m.name, status: m.status } : { company_name: `Zeta Holdings ${i}`, status: OTHER_STATUSES[i % 4] });
      }),
    );
  });

  const matching = () => clients.filter((c) => (c.company_name as string).toLowerCase().includes('acm'));

  it('accepts limit 1 and 100, defaults to 25, refuses every other limit (never clamped)', async () => {
    await expectLimitRules(api, '/clients', 37);
  });

  it('lists newest first by (created_at, id), strictly', async () => {
    const page = await api.get('/clients?limit=100');
    expect(page.body.data.map((c: Item) => c.id)).toEqual(newestFirst(clients).map((c) => c.id));
    expectStrictlyDescending(page.body.data);
  });

  it('walks every page exactly once with every limit edge', async () => {
    await expectWalks(api, '/clients', clients, [25, 3]);
  });

  it('filters by status, on every page', async () => {
    for (const status of ['LEAD', 'ACTIVE', 'SLEEPING', 'LOST']) {
      const expected = clients.filter((c) => c.status === status);
      expect(expected.length).toBeGreaterThan(1);
      await expectWalks(api, `/clients?status=${status}`, expected);
    }
  });

  it('searches case-insensitively for a substring, with full pages when matches are sparse', async () => {
    expect(matching()).toHaveLength(7);
    await expectWalks(api, '/clients?search=ACM', matching(), [3]);
    const pages = await walk(api, '/clients?search=ACM', 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);

    const middle = await api.get(`/clients?search=${encodeURIComponent('cme gr')}`);
    expect(middle.body.data.map((c: Item) => c.company_name)).toEqual(['The ACME Group']);
    const lower = await api.get('/clients?search=pacman');
    expect(lower.body.data.map((c: Item) => c.company_name)).toEqual(['Pacman Studios']);
    const none = await api.get('/clients?search=nothing-like-this');
    expect(none.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('combines search with status', async () => {
    const expected = matching().filter((c) => c.status === 'ACTIVE');
    expect(expected).toHaveLength(4);
    await expectWalks(api, '/clients?search=acm&status=ACTIVE', expected);
    const pages = await walk(api, '/clients?status=ACTIVE&search=aCm', 3);
    expect(pages.map((p) => p.length)).toEqual([3, 1]);
  });

  it('refuses an unknown status, an unknown parameter and a repeated parameter', async () => {
    expect(expectError(await api.get('/clients?status=ARCHIVED'), 400, 'invalid_request').param).toBe('status');
    expect(expectError(await api.get('/clients?status=active'), 400, 'invalid_request').param).toBe('status');
    expect(expectError(await api.get('/clients?colour=blue'), 400, 'invalid_request').param).toBe('colour');
    expect(expectError(await api.get('/clients?client_id=x'), 400, 'invalid_request').param).toBe('client_id');
    expect(expectError(await api.get('/clients?limit=1&limit=2'), 400, 'invalid_request').param).toBe('limit');
    expect(expectError(await api.get('/clients?status=LEAD&status=LEAD'), 400, 'invalid_request').param).toBe('status');
  });

  it('refuses a tampered, garbage, foreign or re-filtered cursor; accepts it with another limit', async () => {
    const cursor = await firstCursor(api, '/clients');
    // Every single-character change of the cursor is refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const tampered = new Set<string>();
    for (let i = 0; i < cursor.length; i++) {
      const at = alphabet.indexOf(cursor[i]!);
      const replacement = at < 0 ? 'A' : alphabet[at ^ 1]!; // flips the lowest bit of the base64url digit
      tampered.add(cursor.slice(0, i) + replacement + cursor.slice(i + 1));
    }
    tampered.add(`${cursor}A`);
    tampered.add(cursor.slice(0, -1));
    tampered.add(`${cursor}.x`);
    tampered.add(cursor.replace('.', ''));
    tampered.delete(cursor);
    await inBatches([...tampered].map((t) => () => expectBadCursor(api, withQuery('/clients', { cursor: t }))));

    for (const garbage of ['abc', '.', '..', 'a.b', 'x'.repeat(2000), '%%%', '']) {
      await expectBadCursor(api, withQuery('/clients', { cursor: garbage }));
    }
    // Same list, other filters; other list; other workspace.
    await expectBadCursor(api, withQuery('/clients?status=LEAD', { cursor }));
    await expectBadCursor(api, withQuery('/clients?search=a', { cursor }));
    await expectBadCursor(api, withQuery('/projects', { cursor }));
    await expectBadCursor(api, withQuery('/time_entries', { cursor }));
    await expectBadCursor(other, withQuery('/clients', { cursor }));

    const leadCursor = await firstCursor(api, '/clients?status=LEAD');
    await expectBadCursor(api, withQuery('/clients?status=ACTIVE', { cursor: leadCursor }));
    await expectBadCursor(api, withQuery('/clients', { cursor: leadCursor }));
    const searchCursor = await firstCursor(api, '/clients?search=acm');
    await expectBadCursor(api, withQuery('/clients?search=acme', { cursor: searchCursor }));
    await expectBadCursor(api, withQuery('/clients?search=acm&status=ACTIVE', { cursor: searchCursor }));

    // The same cursor with another limit continues the same list.
    const expected = newestFirst(clients).map((c) => c.id);
    const next = await api.get(withQuery('/clients', { cursor, limit: 5 }));
    expect(next.status).toBe(200);
    expect(next.body.data.map((c: Item) => c.id)).toEqual(expected.slice(1, 6));
    const rest = await api.get(withQuery('/clients', { cursor, limit: 100 }));
    expect(rest.body.data.map((c: Item) => c.id)).toEqual(expected.slice(1));
    expect(rest.body.has_more).toBe(false);
    const searchNext = await api.get(withQuery('/clients?search=acm', { cursor: searchCursor, limit: 10 }));
    expect(searchNext.body.data.map((c: Item) => c.id)).toEqual(newestFirst(matching()).slice(1).map((c) => c.id));
  });
});

describe('projects list', () => {
  let api: Api;
  let other: Api;
  let clientA: Item;
  let clientB: Item;
  let projects: Item[];
  const STATUSES = ['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED', 'ACTIVE'];

  beforeAll(async () => {
    const ws = await workspace('page-prj');
    api = ws.api;
    other = (await workspace('page-prj-other')).api;
    [clientA, clientB] = await Promise.all([createClient(api, { company_name: 'Client A' }), createClient(api, { company_name: 'Client B' })]);
    // 28 projects: 16 of A, 12 of B; every 4th is a "Data Migration" (case varies).
    projects = await inBatches(
      Array.from({ length: 28 }, (_, i) => () =>
        createProject(api, i % 7 < 4 ? clientA!.id : clientB!.id, {
          name: i % 4 === 1 ? `${i % 8 === 1 ? 'DATA MIGRATION' : 'Data migration'} ${i}` : `Website ${i}`,
          status: STATUSES[i % 5],
        }),
      ),
    );
  });

  const of = (pred: (p: Item) => boolean) => projects.filter(pred);
  const isMigration = (p: Item) => (p.name as string).toLowerCase().includes('migr');

  it('accepts limit 1 and 100, defaults to 25, refuses every other limit', async () => {
    expect(of((p) => p.client_id === clientA.id)).toHaveLength(16);
    await expectLimitRules(api, '/projects', 28);
  });

  it('walks every page exactly once, newest first, with every limit edge', async () => {
    await expectWalks(api, '/projects', projects, [25]);
  });

  it('filters by status, by client_id, and by both, on every page', async () => {
    await expectWalks(api, '/projects?status=ACTIVE', of((p) => p.status === 'ACTIVE'));
    await expectWalks(api, `/projects?client_id=${clientA.id}`, of((p) => p.client_id === clientA.id));
    await expectWalks(api, `/projects?client_id=${clientB.id}`, of((p) => p.client_id === clientB.id));
    for (const status of ['ACTIVE', 'ON_HOLD']) {
      const expected = of((p) => p.client_id === clientA.id && p.status === status);
      expect(expected.length).toBeGreaterThan(1);
      await expectWalks(api, `/projects?client_id=${clientA.id}&status=${status}`, expected);
    }
    const empty = await api.get(`/projects?client_id=${clientB.id}&status=COMPLETED&limit=1`);
    expect(empty.body.data.every((p: Item) => p.client_id === clientB.id && p.status === 'COMPLETED')).toBe(true);
    // A client id that names nothing: an empty list, not an error.
    const nothing = await api.get('/projects?client_id=cli_00000000000000000000000000');
    expect(nothing.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('searches names case-insensitively, alone and with client_id and status, with full pages', async () => {
    await expectWalks(api, '/projects?search=MiGr', of(isMigration), [3]);
    await expectWalks(api, `/projects?search=ation&client_id=${clientA.id}`, of((p) => isMigration(p) && p.client_id === clientA.id));
    await expectWalks(api, '/projects?search=migration&status=COMPLETED', of((p) => isMigration(p) && p.status === 'COMPLETED'));
    const expected = of((p) => isMigration(p) && p.client_id === clientA.id && p.status === 'COMPLETED');
    await expectWalks(api, `/projects?search=migr&client_id=${clientA.id}&status=COMPLETED`, expected);
  });

  it('refuses an unknown status, unknown and repeated parameters', async () => {
    expect(expectError(await api.get('/projects?status=LEAD'), 400, 'invalid_request').param).toBe('status');
    expect(expectError(await api.get('/projects?project_id=x'), 400, 'invalid_request').param).toBe('project_id');
    expect(expectError(await api.get('/projects?limit=1&limit=2'), 400, 'invalid_request').param).toBe('limit');
    expect(expectError(await api.get(`/projects?client_id=${clientA.id}&client_id=${clientA.id}`), 400, 'invalid_request').param).toBe('client_id');
  });

  it('binds cursors to the list, its filters and the workspace', async () => {
    const cursor = await firstCursor(api, '/projects');
    const byClient = await firstCursor(api, `/projects?client_id=${clientA.id}`);
    const byBoth = await firstCursor(api, `/projects?client_id=${clientA.id}&status=ACTIVE`);
    await expectBadCursor(api, withQuery('/clients', { cursor }));
    await expectBadCursor(api, withQuery('/projects?status=ACTIVE', { cursor }));
    await expectBadCursor(api, withQuery(`/projects?client_id=${clientB.id}`, { cursor: byClient }));
    await expectBadCursor(api, withQuery('/projects', { cursor: byClient }));
    await expectBadCursor(api, withQuery(`/projects?client_id=${clientA.id}&status=ON_HOLD`, { cursor: byBoth }));
    await expectBadCursor(api, withQuery(`/projects?client_id=${clientA.id}`, { cursor: byBoth }));
    await expectBadCursor(api, withQuery(`/projects?client_id=${clientA.id}&status=ACTIVE&search=web`, { cursor: byBoth }));
    await expectBadCursor(other, withQuery('/projects', { cursor }));
    await expectBadCursor(api, withQuery('/projects', { cursor: `${cursor.slice(0, 3)}${cursor[3] === 'x' ? 'y' : 'x'}${cursor.slice(4)}` }));

    const next = await api.get(withQuery(`/projects?client_id=${clientA.id}&status=ACTIVE`, { cursor: byBoth, limit: 100 }));
    expect(next.status).toBe(200);
    expect(next.body.data.map((p: Item) => p.id)).toEqual(
      newestFirst(of((p) => p.client_id === clientA.id && p.status === 'ACTIVE'))
        .slice(1)
        .map((p) => p.id),
    );
  });
});

describe('time entries list', () => {
  let api: Api;
  let other: Api;
  let clientA: Item;
  let clientB: Item;
  let p1: Item;
  let p2: Item;
  let entries: Item[];

  beforeAll(async () => {
    const ws = await workspace('page-te');
    api = ws.api;
    other = (await workspace('page-te-other')).api;
    [clientA, clientB] = await Promise.all([createClient(api, { company_name: 'A' }), createClient(api, { company_name: 'B' })]);
    [p1, p2] = await Promise.all([createProject(api, clientA!.id, { name: 'P1' }), createProject(api, clientB!.id, { name: 'P2' })]);
    // 28 entries, in one batch: 10 on P1 (client A), 8 on P2 (client B), 10 on client A without a project.
    entries = (await logTimes(
      api,
      Array.from({ length: 28 }, (_, i) => (i % 3 === 0 ? { client_id: clientA!.id } : i % 3 === 1 ? { project_id: p1!.id } : { project_id: p2!.id, description: `entry ${i}` })),
    )) as Item[];
  });

  const of = (pred: (e: Item) => boolean) => entries.filter(pred);

  it('accepts limit 1 and 100, defaults to 25, refuses every other limit', async () => {
    await expectLimitRules(api, '/time_entries', 28);
  });

  it('walks every page exactly once, newest first, with every limit edge', async () => {
    await expectWalks(api, '/time_entries', entries, [25]);
  });

  it('filters by project_id, by client_id and by both', async () => {
    await expectWalks(api, `/time_entries?project_id=${p1.id}`, of((e) => e.project_id === p1.id));
    await expectWalks(api, `/time_entries?client_id=${clientA.id}`, of((e) => e.client_id === clientA.id));
    await expectWalks(api, `/time_entries?client_id=${clientB.id}`, of((e) => e.client_id === clientB.id));
    await expectWalks(api, `/time_entries?project_id=${p1.id}&client_id=${clientA.id}`, of((e) => e.project_id === p1.id));
    const disagree = await api.get(`/time_entries?project_id=${p1.id}&client_id=${clientB.id}`);
    expect(disagree.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('refuses unknown and repeated parameters (time entries have no search or status)', async () => {
    expect(expectError(await api.get('/time_entries?search=x'), 400, 'invalid_request').param).toBe('search');
    expect(expectError(await api.get('/time_entries?status=ACTIVE'), 400, 'invalid_request').param).toBe('status');
    expect(expectError(await api.get('/time_entries?limit=1&limit=2'), 400, 'invalid_request').param).toBe('limit');
  });

  it('binds cursors to the list, its filters and the workspace', async () => {
    const cursor = await firstCursor(api, '/time_entries');
    const byProject = await firstCursor(api, `/time_entries?project_id=${p1.id}`);
    await expectBadCursor(api, withQuery('/clients', { cursor }));
    await expectBadCursor(api, withQuery('/projects', { cursor }));
    await expectBadCursor(api, withQuery(`/time_entries?client_id=${clientA.id}`, { cursor }));
    await expectBadCursor(api, withQuery(`/time_entries?project_id=${p2.id}`, { cursor: byProject }));
    await expectBadCursor(api, withQuery(`/time_entries?project_id=${p1.id}&client_id=${clientA.id}`, { cursor: byProject }));
    await expectBadCursor(other, withQuery('/time_entries', { cursor }));
    await expectBadCursor(api, withQuery('/time_entries', { cursor: `${cursor}x` }));
    const next = await api.get(withQuery(`/time_entries?project_id=${p1.id}`, { cursor: byProject, limit: 3 }));
    expect(next.status).toBe(200);
    expect(next.body.data.map((e: Item) => e.id)).toEqual(newestFirst(of((e) => e.project_id === p1.id)).slice(1, 4).map((e) => e.id));
  });
});

describe('lists while the data changes', () => {
  it('keeps a walk exact when items change between pages', async () => {
    const { api } = await workspace('page-live');
    const clients = await inBatches(Array.from({ length: 12 }, (_, i) => () => createClient(api, { company_name: `Live ${i}`, status: 'ACTIVE' })));
    const order = newestFirst(clients).map((c) => c.id);

    const first = await api.get('/clients?status=ACTIVE&limit=4');
    expect(first.body.data.map((c: Item) => c.id)).toEqual(order.slice(0, 4));
    // The item the cursor points after is archived, one later item is deleted, a new one is created.
    expect((await api.patch(`/clients/${order[3]}`, { status: 'LOST' })).status).toBe(200);
    expect((await api.delete(`/clients/${order[6]}`)).status).toBe(200);
    const newer = await createClient(api, { company_name: 'Live new', status: 'ACTIVE' });

    const rest = await api.get(withQuery('/clients?status=ACTIVE', { cursor: first.body.next_cursor, limit: 100 }));
    expect(rest.status).toBe(200);
    expect(rest.body.data.map((c: Item) => c.id)).toEqual(order.slice(4).filter((id) => id !== order[6]));
    expect(rest.body.has_more).toBe(false);

    // The status filter follows updates: the archived client is listed under its new status only.
    const active = (await api.get('/clients?status=ACTIVE&limit=100')).body.data.map((c: Item) => c.id);
    expect(active).toEqual([newer.id, ...order.filter((id) => id !== order[3] && id !== order[6])]);
    expect((await api.get('/clients?status=LOST')).body.data.map((c: Item) => c.id)).toEqual([order[3]]);
  });

  it('follows renames and status changes of projects in search and filters', async () => {
    const { api } = await workspace('page-live-prj');
    const client = await createClient(api);
    const [p1, p2] = await Promise.all([createProject(api, client.id, { name: 'Alpha' }), createProject(api, client.id, { name: 'Beta' })]);
    expect((await api.patch(`/projects/${p1.id}`, { name: 'Gamma', status: 'ON_HOLD' })).status).toBe(200);
    expect((await api.get('/projects?search=alpha')).body.data).toEqual([]);
    expect((await api.get('/projects?search=GAMM')).body.data.map((p: Item) => p.id)).toEqual([p1.id]);
    expect((await api.get(`/projects?client_id=${client.id}&status=ACTIVE`)).body.data.map((p: Item) => p.id)).toEqual([p2.id]);
    expect((await api.get(`/projects?client_id=${client.id}&status=ON_HOLD`)).body.data.map((p: Item) => p.id)).toEqual([p1.id]);
    expect((await api.get('/projects?status=ACTIVE')).body.data.map((p: Item) => p.id)).toEqual([p2.id]);
  });

  it('matches accented names case-insensitively, composed or not', async () => {
    const { api } = await workspace('page-accents');
    const [societe] = await Promise.all([
      createClient(api, { company_name: 'Société Générale' }),
      createClient(api, { company_name: 'Generic Corp' }),
    ]);
    for (const search of ['GÉNÉ', 'générale', 'SOCIÉTÉ G', 'GE\u0301NE\u0301']) {
      const response = await api.get(withQuery('/clients', { search }));
      expect(response.status).toBe(200);
      expect(response.body.data.map((c: Item) => c.id), search).toEqual([societe.id]);
    }
  });
});
