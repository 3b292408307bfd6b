/**
 * The events feed (events.md) on the local stack: every event type with its shape and request
 * id, no event for an empty PATCH, retrieve, filters, newest-first paging, sync mode (`after=`)
 * and its 400, workspace isolation, and sync mode under concurrent writers.
 */
import { describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTime, token, apiFor, workspace, type Api } from '../support/api.ts';
import { allEvents, eventsWhen, syncFrom, waitFor } from '../support/events.ts';

const requestIdOf = (response: { headers: Headers }) => response.headers.get('x-request-id');

describe('events of every change', () => {
  it('makes one event per create, update and delete of clients, projects and time entries, none for an empty PATCH', async () => {
    const { api } = await workspace('ev');
    const c = await api.post('/clients', { company_name: 'Acme', company_email: 'a@acme.test' });
    const cu = await api.patch(`/clients/${c.body.id}`, { status: 'ACTIVE' });
    const empty = await api.patch(`/clients/${c.body.id}`, {});
    expect(empty.status).toBe(200);
    const p = await api.post('/projects', { name: 'Site', client_id: c.body.id, billing_type: 'Monthly' });
    const pu = await api.patch(`/projects/${p.body.id}`, { name: 'Website' });
    const t = await api.post('/time_entries', { project_id: p.body.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 });
    const td = await api.delete(`/time_entries/${t.body.id}`);
    const pd = await api.delete(`/projects/${p.body.id}`);
    const cd = await api.delete(`/clients/${c.body.id}`);
    for (const r of [c, cu, p, pu, t, td, pd, cd]) expect(r.status).toBeLessThan(300);

    const events = await eventsWhen(api, 8);
    expect(events.map((e) => e.type)).toEqual([
      'client.created', 'client.updated', 'project.created', 'project.updated',
      'time_entry.created', 'time_entry.deleted', 'project.deleted', 'client.deleted',
    ]);
    expect(events.map((e) => e.request_id)).toEqual([c, cu, p, pu, t, td, pd, cd].map(requestIdOf));
    for (const e of events) {
      expect(e).toMatchObject({ object: 'event', workspace_id: expect.any(String), created_at: expect.any(String) });
      expect(e.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Object.keys(e).sort()).toEqual(['created_at', 'data', 'id', 'object', 'request_id', 'type', 'workspace_id']);
      expect('previous_attributes' in e.data).toBe(e.type.endsWith('.updated'));
    }
    // data.object is the resource as the API returned it after the change; for deletes, its last state.
    expect(events[0].data.object).toEqual(c.body);
    expect(events[1].data.object).toEqual(cu.body);
    expect(events[1].data.previous_attributes).toEqual({ status: 'LEAD', updated_at: c.body.updated_at });
    expect(events[3].data.object).toEqual(pu.body);
    expect(events[3].data.previous_attributes).toEqual({ name: 'Site', updated_at: p.body.updated_at });
    expect(events[4].data.object).toEqual(t.body);
    expect(events[5].data.object).toEqual(t.body);
    expect(events[6].data.object).toEqual(pu.body);
    expect(events[7].data.object).toEqual(cu.body);
    expect(events[1].created_at).toBe(cu.body.updated_at);

    // Retrieve returns the same object as the list.
    const one = await api.get(`/events/${events[1].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(events[1]);
    // Nothing more arrives (the empty PATCH and the counter changes made none).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await allEvents(api)).length).toBe(8);
  });
});

describe('the feed', () => {
  async function seeded(): Promise<{ api: Api; clients: any[]; events: any[] }> {
    const { api } = await workspace('feed');
    const clients = [];
    for (let i = 0; i < 3; i++) clients.push(await createClient(api, { company_name: `C${i}` }));
    await api.patch(`/clients/${clients[0].id}`, { status: 'ACTIVE' });
    await createProject(api, clients[1].id);
    return { api, clients, events: await eventsWhen(api, 5) };
  }

  it('pages newest first with limit and cursor, and filters by type and object_id', async () => {
    const { api, clients, events } = await seeded();
    const first = await api.get('/events?limit=2');
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((e: any) => e.id)).toEqual([events[4].id, events[3].id]);
    const second = await api.get(`/events?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((e: any) => e.id)).toEqual([events[2].id, events[1].id]);
    // A cursor is bound to its list and filters.
    expectError(await api.get(`/events?limit=2&type=client.created&cursor=${encodeURIComponent(first.body.next_cursor)}`), 400, 'invalid_request');

    const created = await api.get('/events?type=client.created&limit=2');
    expect(created.body.data.map((e: any) => e.data.object.id)).toEqual([clients[2].id, clients[1].id]);
    expect(created.body.has_more).toBe(true);
    const ofClient0 = await api.get(`/events?object_id=${clients[0].id}`);
    expect(ofClient0.body.data.map((e: any) => e.type)).toEqual(['client.updated', 'client.created']);
    expect(ofClient0.body.has_more).toBe(false);
  });

  it('sync mode: after= lists what follows, oldest first, with limit, type and object_id', async () => {
    const { api, clients, events } = await seeded();
    const page = await api.get(`/events?after=${events[0].id}&limit=2`);
    expect(page.body.data.map((e: any) => e.id)).toEqual([events[1].id, events[2].id]);
    expect(page.body.has_more).toBe(true);
    const rest = await api.get(`/events?after=${events[0].id}&limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(rest.body.data.map((e: any) => e.id)).toEqual([events[3].id, events[4].id]);
    expect(rest.body.has_more).toBe(false);
    expect((await api.get(`/events?after=${events[4].id}`)).body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    const typed = await syncFrom(api, events[0].id, '&type=client.created');
    expect(typed.map((e) => e.data.object.id)).toEqual([clients[1].id, clients[2].id]);
    const ofOne = await syncFrom(api, events[0].id, `&object_id=${clients[0].id}`);
    expect(ofOne.map((e) => e.type)).toEqual(['client.updated']);
  });

  it('answers 400 on after= an unknown event and on malformed filters, 404 on an unknown event', async () => {
    const { api } = await workspace('feed-bad');
    const unknown = expectError(await api.get('/events?after=evt_0000000001AAAAAAAAAAAAAAAA'), 400, 'invalid_request');
    expect(unknown.param).toBe('after');
    expect(unknown.message).toMatch(/re-list/);
    expect(expectError(await api.get('/events?after=cli_1'), 400, 'invalid_request').param).toBe('after');
    expect(expectError(await api.get('/events?type=client.exploded'), 400, 'invalid_request').param).toBe('type');
    expect(expectError(await api.get('/events?object_id=nope'), 400, 'invalid_request').param).toBe('object_id');
    expect(expectError(await api.get('/events?limit=101'), 400, 'invalid_request').param).toBe('limit');
    expectError(await api.get('/events/evt_0000000001AAAAAAAAAAAAAAAA'), 404, 'not_found');
    expectError(await api.get('/events/nope'), 404, 'not_found');
  });

  it("never shows another workspace's events", async () => {
    const { api, events } = await seeded();
    const other = await workspace('feed-other');
    expectError(await other.api.get(`/events/${events[0].id}`), 404, 'not_found');
    expect((await other.api.get('/events')).body.data).toEqual([]);
    const afterForeign = expectError(await other.api.get(`/events?after=${events[0].id}`), 400, 'invalid_request');
    expect(afterForeign.param).toBe('after');
  });

  it('needs the events:read scope', async () => {
    const { id } = await workspace('feed-scope');
    const limited = apiFor(await token(id, ['clients:read']));
    expectError(await limited.get('/events'), 403, 'insufficient_scope');
  });
});

describe('sync mode under concurrency', () => {
  it('a tailing reader sees every event exactly once, and each resource in the order of its changes', async () => {
    const { api } = await workspace('sync');
    const writers = 4;
    const changesPerWriter = 12;
    // A first event to start from.
    const seed = await createClient(api, { company_name: 'seed' });
    const [start] = await eventsWhen(api, 1);
    expect(start.data.object.id).toBe(seed.id);

    let writing = true;
    const seen: any[] = [];
    const reader = (async () => {
      let after = start.id;
      // Keep tailing while writes go on, and one pass after they ended and the feed settled.
      for (;;) {
        const wasWriting = writing;
        const batch = await syncFrom(api, after);
        seen.push(...batch);
        if (batch.length > 0) after = batch[batch.length - 1].id;
        if (!wasWriting && batch.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const expectedPerResource = new Map<string, string[]>();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const client = await createClient(api, { company_name: `writer ${w}` });
        const versions = [client.updated_at];
        for (let i = 1; i < changesPerWriter; i++) {
          const response = await api.patch(`/clients/${client.id}`, { company_name: `writer ${w} change ${i}` });
          expect(response.status).toBe(200);
          versions.push(response.body.updated_at);
        }
        expectedPerResource.set(client.id, versions);
      }),
    );
    // Wait until the feed holds every change, then let the reader finish.
    const total = 1 + writers * changesPerWriter;
    await eventsWhen(api, total);
    writing = false;
    await reader;

    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length); // none twice
    expect(ids.length).toBe(total - 1); // none missed (all but the starting one)
    const all = await allEvents(api);
    expect(ids).toEqual(all.slice(1).map((e) => e.id)); // the same order as the feed itself
    for (const [id, versions] of expectedPerResource) {
      expect(seen.filter((e) => e.data.object.id === id).map((e) => e.data.object.updated_at)).toEqual(versions);
    }
  });
});

describe('timeliness', () => {
  it('shows an event soon after the response to its change', async () => {
    const { api } = await workspace('lag');
    const client = await createClient(api);
    const event = await waitFor(async () => (await api.get(`/events?object_id=${client.id}`)).body.data[0], 'the event', 5000);
    expect(event.type).toBe('client.created');
  });
});
