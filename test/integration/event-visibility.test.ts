/**
 * You see only what you could read (contract, "Authentication and workspaces"; events.md): the
 * feed shows a token the events of the collections whose read scope it holds, in lists, sync
 * mode, retrieve and filters, and a webhook endpoint subscribes only to what its author can read.
 * Over HTTP on the local stack; the cost of such pages is measured by `npm run bench` (events).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, expectError, token, workspace, type Api } from '../support/api.ts';
import { allEvents, eventsWhen, syncFrom } from '../support/events.ts';

const FEED_ONLY = ['events:read'];
const ids = (events: { id: string }[]) => events.map((e) => e.id);

/** Every event of a list walked one item a page (so every page is a merged or view page), oldest first. */
async function walk(api: Api, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get(`/events?limit=1${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data.length).toBe(1); // has_more was exact: every page it promised holds an item
    events.push(...page.body.data);
    cursor = page.body.has_more ? page.body.next_cursor : undefined;
  } while (cursor);
  return events.reverse();
}

describe('the feed shows the events of readable collections only', () => {
  let ws: string;
  let full: Api;
  let all: any[];
  let client: any;
  let project: any;
  let entry: any;

  beforeAll(async () => {
    const made = await workspace('vis');
    ws = made.id;
    full = made.api;
    client = (await full.post('/clients', { company_name: 'Acme', company_email: 'a@acme.test' })).body;
    await full.patch(`/clients/${client.id}`, { status: 'ACTIVE' });
    project = (await full.post('/projects', { name: 'Site', client_id: client.id, billing_type: 'Monthly' })).body;
    entry = (await full.post('/time_entries', { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 })).body;
    await full.patch(`/projects/${project.id}`, { name: 'Website' });
    const other = (await full.post('/clients', { company_name: 'Other', company_email: 'o@other.test' })).body;
    await full.delete(`/clients/${other.id}`);
    all = await eventsWhen(full, 7);
    expect(all.map((e) => e.type)).toEqual([
      'client.created', 'client.updated', 'project.created', 'time_entry.created', 'project.updated', 'client.created', 'client.deleted',
    ]);
  });

  it('a token that reads one collection lists, pages and syncs only its events', async () => {
    const projects = apiFor(await token(ws, [...FEED_ONLY, 'projects:read']));
    const expected = all.filter((e) => e.type.startsWith('project.'));
    expect(ids(await allEvents(projects))).toEqual(ids(expected));
    expect(ids(await walk(projects))).toEqual(ids(expected));
    expect(ids(await syncFrom(projects, expected[0].id))).toEqual(ids(expected.slice(1)));
    expect((await projects.get(`/events/${expected[0].id}`)).body).toEqual(expected[0]);
    expect(ids(await allEvents(projects, `&object_id=${project.id}`))).toEqual(ids(expected));
    expect(ids(await allEvents(projects, '&type=project.updated'))).toEqual([expected[1].id]);
  });

  it('a token that reads two collections gets their events merged in feed order, exactly once across pages', async () => {
    const two = apiFor(await token(ws, [...FEED_ONLY, 'clients:read', 'time_entries:read']));
    const expected = all.filter((e) => !e.type.startsWith('project.'));
    expect(ids(await allEvents(two))).toEqual(ids(expected));
    expect(ids(await walk(two))).toEqual(ids(expected));
    // Sync mode from an event of either collection, one item a page and a hundred a page.
    expect(ids(await syncFrom(two, expected[0].id))).toEqual(ids(expected.slice(1)));
    const synced: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await two.get(`/events?after=${expected[1].id}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.body.data.length).toBe(1);
      synced.push(...page.body.data);
      cursor = page.body.has_more ? page.body.next_cursor : undefined;
    } while (cursor);
    expect(ids(synced)).toEqual(ids(expected.slice(2)));
  });

  it('every read of an unreadable collection is a 403 naming the scope, and events:read alone reads nothing', async () => {
    const projects = apiFor(await token(ws, [...FEED_ONLY, 'projects:read']));
    const clientEvent = all.find((e) => e.type === 'client.created');
    for (const response of [
      await projects.get(`/events/${clientEvent.id}`),
      await projects.get('/events?type=client.created'),
      await projects.get(`/events?object_id=${client.id}`),
      await projects.get(`/events?object_id=${entry.id}&type=time_entry.created`),
    ]) {
      expectError(response, 403, 'insufficient_scope');
      expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="(clients|time_entries):read"/);
    }
    // `after=` an event it cannot read is, to it, no event at all.
    expect(expectError(await projects.get(`/events?after=${clientEvent.id}`), 400, 'invalid_request').param).toBe('after');

    const feedOnly = apiFor(await token(ws, FEED_ONLY));
    for (const response of [await feedOnly.get('/events'), await feedOnly.get(`/events/${all[0].id}`), await feedOnly.get(`/events?after=${all[0].id}`)]) {
      expectError(response, 403, 'insufficient_scope');
      expect(response.headers.get('www-authenticate')).toContain('scope="clients:read projects:read time_entries:read invoices:read business_profile:read"');
    }
  });

  it('a cursor of one set of readable collections does not continue another', async () => {
    const projects = apiFor(await token(ws, [...FEED_ONLY, 'projects:read']));
    const page = await projects.get('/events?limit=1');
    expect(page.body.has_more).toBe(true);
    const cursor = encodeURIComponent(page.body.next_cursor);
    expect(expectError(await full.get(`/events?limit=1&cursor=${cursor}`), 400, 'invalid_request').param).toBe('cursor');
    expect((await projects.get(`/events?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});

describe('a webhook endpoint subscribes only to what its author can read', () => {
  it('refuses enabled events of unreadable collections on create and on update, changing nothing', async () => {
    const { id: ws, api: full } = await workspace('vis-hooks');
    const writeOnly = apiFor(await token(ws, ['webhook_endpoints:write', 'webhook_endpoints:read']));
    const clientsToo = apiFor(await token(ws, ['webhook_endpoints:write', 'webhook_endpoints:read', 'clients:read']));
    const hook = { url: 'http://127.0.0.1:9/hooks' };

    const star = expectError(await writeOnly.post('/webhook_endpoints', { ...hook, enabled_events: ['*'] }), 403, 'insufficient_scope');
    expect(star.message).toMatch(/clients:read/);
    expectError(await writeOnly.post('/webhook_endpoints', { ...hook, enabled_events: ['client.created'] }), 403, 'insufficient_scope');
    expectError(await clientsToo.post('/webhook_endpoints', { ...hook, enabled_events: ['*'] }), 403, 'insufficient_scope');
    expectError(await clientsToo.post('/webhook_endpoints', { ...hook, enabled_events: ['client.created', 'project.created'] }), 403, 'insufficient_scope');
    expect((await full.get('/webhook_endpoints')).body.data).toEqual([]);

    const mine = await clientsToo.post('/webhook_endpoints', { ...hook, enabled_events: ['client.created', 'client.deleted'] });
    expect(mine.status).toBe(201);
    // Widening past what it reads, or pointing another's everything-endpoint at itself: refused.
    expectError(await clientsToo.patch(`/webhook_endpoints/${mine.body.id}`, { enabled_events: ['*'] }), 403, 'insufficient_scope');
    const everything = (await full.post('/webhook_endpoints', { ...hook, enabled_events: ['*'] })).body;
    expectError(await clientsToo.patch(`/webhook_endpoints/${everything.id}`, { url: 'http://127.0.0.1:9/mine' }), 403, 'insufficient_scope');
    expectError(await writeOnly.patch(`/webhook_endpoints/${mine.body.id}`, { status: 'disabled' }), 403, 'insufficient_scope');
    expect((await full.get(`/webhook_endpoints/${everything.id}`)).body.url).toBe(hook.url);
    expect((await full.get(`/webhook_endpoints/${mine.body.id}`)).body).toMatchObject({ enabled_events: ['client.created', 'client.deleted'], status: 'enabled' });
    // Within what it reads, every change goes through.
    expect((await clientsToo.patch(`/webhook_endpoints/${mine.body.id}`, { enabled_events: ['client.updated'], description: 'CRM' })).status).toBe(200);
    for (const id of [mine.body.id, everything.id]) expect((await full.delete(`/webhook_endpoints/${id}`)).status).toBe(200);
  });
});
