/**
 * Races between writes that the delete guards depend on. After each round the stored data is
 * checked directly in DynamoDB Local as well as through the API: no orphan ever survives its
 * owner, and the owner's counters equal the number of children that exist.
 */
import { describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTime, workspace } from '../support/api.ts';
import { listAll, race, storedItems } from '../support/races.ts';

type Obj = Record<string, any>;

/** Rounds of the race: each runs it again (ten before; six keep `npm test` within its time). */
const ROUNDS = 6;
const RACERS = 8;

const { stored, storedItem } = storedItems();

describe('concurrent project creates racing the delete of their client', () => {
  it(`never leaves a project without its client, and counts exactly (${ROUNDS} rounds of ${RACERS})`, async () => {
    const ws = await workspace('race-prj');
    let deletedRounds = 0;
    let keptRounds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const client = await createClient(ws.api, { company_name: `Race ${round}` });
      const { racing, late } = await race(
        Array.from({ length: RACERS }, (_, i) => () => ws.api.post('/projects', { name: `P${round}-${i}`, client_id: client.id, billing_type: 'Monthly' })),
        () => ws.api.delete(`/clients/${client.id}`),
      );
      const created = racing.filter((r) => r.status === 201).map((r) => r.body as Obj);
      for (const r of racing) {
        if (r.status !== 201) expect(expectError(r, 400, 'invalid_request').param, `round ${round}`).toBe('client_id');
      }
      const storedProjects = (await stored(ws.id, 'PROJECT')).filter((p) => p.client_id === client.id);
      const listed = await listAll(ws.api, `/projects?client_id=${client.id}`);
      const storedClient = await storedItem(ws.id, 'CLIENT', client.id);
      const retrieved = await ws.api.get(`/clients/${client.id}`);

      if (late.status === 200) {
        deletedRounds++;
        expect(late.body).toEqual({ object: 'client', id: client.id, deleted: true });
        expect(storedClient, `round ${round}: client deleted`).toBeUndefined();
        expectError(retrieved, 404, 'not_found');
        expect(created, `round ${round}: a project was created for a client that was then deleted`).toEqual([]);
        expect(storedProjects.map((p) => p.id), `round ${round}: orphan projects in the table`).toEqual([]);
        expect(listed, `round ${round}: orphan projects in the list`).toEqual([]);
      } else {
        keptRounds++;
        expectError(late, 409, 'conflict');
        expect(storedClient, `round ${round}: client kept`).toBeDefined();
        expect(retrieved.status).toBe(200);
        expect(created.length).toBeGreaterThan(0);
        expect(Number(storedClient!.project_count), `round ${round}: project_count`).toBe(storedProjects.length);
        expect(storedProjects.map((p) => p.id).sort()).toEqual(created.map((p) => p.id).sort());
        expect(listed.map((p) => p.id).sort()).toEqual(created.map((p) => p.id).sort());
      }
    }
    // The rounds must not all go one way for the test to mean something (both ways is likely, not certain).
    expect(deletedRounds + keptRounds).toBe(ROUNDS);
    expect(keptRounds).toBeGreaterThan(0);
  });

  it('deletes every project of a kept client, then the client, whatever the interleaving', async () => {
    const ws = await workspace('race-prj-cleanup');
    const client = await createClient(ws.api);
    const projects = await Promise.all(Array.from({ length: RACERS }, (_, i) => createProject(ws.api, client.id, { name: `C${i}` })));
    expect(Number((await storedItem(ws.id, 'CLIENT', client.id))!.project_count)).toBe(RACERS);
    // Concurrent project deletes racing repeated client deletes: the client goes only once all are gone.
    const { racing, late } = await race(
      projects.map((p) => () => ws.api.delete(`/projects/${p.id}`)),
      () => ws.api.delete(`/clients/${client.id}`),
    );
    for (const r of racing) expect(r.status).toBe(200);
    if (late.status !== 200) {
      expectError(late, 409, 'conflict');
      expect((await ws.api.delete(`/clients/${client.id}`)).status).toBe(200);
    }
    expect(await storedItem(ws.id, 'CLIENT', client.id)).toBeUndefined();
    expect(await stored(ws.id, 'PROJECT')).toEqual([]);
  });
});

describe('concurrent time-entry logs racing the delete of their project', () => {
  it(`never leaves an entry without its project, and counts exactly (${ROUNDS} rounds of ${RACERS})`, async () => {
    const ws = await workspace('race-te');
    const client = await createClient(ws.api);
    let keptRounds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const project = await createProject(ws.api, client.id, { name: `Round ${round}` });
      const { racing, late } = await race(
        Array.from({ length: RACERS }, () => () => ws.api.post('/time_entries', { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 10 })),
        () => ws.api.delete(`/projects/${project.id}`),
      );
      const logged = racing.filter((r) => r.status === 201).map((r) => r.body as Obj);
      for (const r of racing) {
        if (r.status !== 201) expect(expectError(r, 400, 'invalid_request').param, `round ${round}`).toBe('project_id');
      }
      const entries = await stored(ws.id, 'TIME_ENTRY');
      const ofProject = entries.filter((e) => e.project_id === project.id);
      const storedProject = await storedItem(ws.id, 'PROJECT', project.id);
      const listed = await listAll(ws.api, `/time_entries?project_id=${project.id}`);

      if (late.status === 200) {
        expect(storedProject, `round ${round}`).toBeUndefined();
        expect(logged, `round ${round}: time logged on a project that was then deleted`).toEqual([]);
        expect(ofProject, `round ${round}: orphan entries in the table`).toEqual([]);
        expect(listed).toEqual([]);
      } else {
        keptRounds++;
        expectError(late, 409, 'conflict');
        expect(storedProject).toBeDefined();
        expect(logged.length).toBeGreaterThan(0);
        expect(Number(storedProject!.time_entry_count), `round ${round}: time_entry_count of the project`).toBe(ofProject.length);
        expect(ofProject.map((e) => e.id).sort()).toEqual(logged.map((e) => e.id).sort());
        expect(listed.map((e) => e.id).sort()).toEqual(logged.map((e) => e.id).sort());
      }
      // The client counts every entry of its projects.
      const storedClient = await storedItem(ws.id, 'CLIENT', client.id);
      expect(Number(storedClient!.time_entry_count), `round ${round}: time_entry_count of the client`).toBe(
        entries.filter((e) => e.client_id === client.id).length,
      );
      const projects = (await stored(ws.id, 'PROJECT')).filter((p) => p.client_id === client.id);
      expect(Number(storedClient!.project_count), `round ${round}: project_count of the client`).toBe(projects.length);
    }
    expect(keptRounds).toBeGreaterThan(0);
  });

  it('never leaves an entry without its client when logs race the client delete', async () => {
    const ws = await workspace('race-te-cli');
    for (let round = 0; round < ROUNDS; round++) {
      const client = await createClient(ws.api, { company_name: `Direct ${round}` });
      const { racing, late } = await race(
        Array.from({ length: RACERS }, () => () => ws.api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 10 })),
        () => ws.api.delete(`/clients/${client.id}`),
      );
      const logged = racing.filter((r) => r.status === 201).map((r) => r.body as Obj);
      for (const r of racing) {
        if (r.status !== 201) expect(expectError(r, 400, 'invalid_request').param).toBe('client_id');
      }
      const ofClient = (await stored(ws.id, 'TIME_ENTRY')).filter((e) => e.client_id === client.id);
      const storedClient = await storedItem(ws.id, 'CLIENT', client.id);
      if (late.status === 200) {
        expect(storedClient).toBeUndefined();
        expect(logged).toEqual([]);
        expect(ofClient).toEqual([]);
      } else {
        expectError(late, 409, 'conflict');
        expect(Number(storedClient!.time_entry_count), `round ${round}`).toBe(ofClient.length);
        expect(ofClient.map((e) => e.id).sort()).toEqual(logged.map((e) => e.id).sort());
      }
    }
  });
});

describe('concurrent deletes of the same resource', () => {
  it('deletes a time entry exactly once and uncounts it exactly once', async () => {
    const ws = await workspace('race-del');
    const client = await createClient(ws.api);
    const project = await createProject(ws.api, client.id);
    const entries = await Promise.all([
      ...Array.from({ length: 4 }, () => logTime(ws.api, { project_id: project.id })),
      logTime(ws.api, { client_id: client.id }),
    ]);
    // One more entry that stays, so a double uncount would show as a wrong non-zero count.
    const keeper = await logTime(ws.api, { project_id: project.id });
    for (const entry of entries) {
      const results = await Promise.all(Array.from({ length: 6 }, () => ws.api.delete(`/time_entries/${entry.id}`)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok, `entry ${entry.id}`).toHaveLength(1);
      expect(ok[0]!.body).toEqual({ object: 'time_entry', id: entry.id, deleted: true });
      for (const r of results) if (r.status !== 200) expectError(r, 404, 'not_found');
    }
    expect(Number((await storedItem(ws.id, 'PROJECT', project.id))!.time_entry_count)).toBe(1);
    expect(Number((await storedItem(ws.id, 'CLIENT', client.id))!.time_entry_count)).toBe(1);
    expect((await stored(ws.id, 'TIME_ENTRY')).map((e) => e.id)).toEqual([keeper.id]);

    expectError(await ws.api.delete(`/projects/${project.id}`), 409, 'conflict');
    expect((await ws.api.delete(`/time_entries/${keeper.id}`)).status).toBe(200);
    expect((await ws.api.delete(`/projects/${project.id}`)).status).toBe(200);
    expect((await ws.api.delete(`/clients/${client.id}`)).status).toBe(200);
  });

  it('deletes a project exactly once and uncounts it on its client exactly once', async () => {
    const ws = await workspace('race-del-prj');
    const client = await createClient(ws.api);
    const [target, keeper] = await Promise.all([createProject(ws.api, client.id), createProject(ws.api, client.id)]);
    const results = await Promise.all(Array.from({ length: 6 }, () => ws.api.delete(`/projects/${target.id}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results) if (r.status !== 200) expectError(r, 404, 'not_found');
    expect(Number((await storedItem(ws.id, 'CLIENT', client.id))!.project_count)).toBe(1);
    expectError(await ws.api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect((await ws.api.delete(`/projects/${keeper.id}`)).status).toBe(200);

    const clientDeletes = await Promise.all(Array.from({ length: 6 }, () => ws.api.delete(`/clients/${client.id}`)));
    expect(clientDeletes.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of clientDeletes) if (r.status !== 200) expectError(r, 404, 'not_found');
  });
});

describe('updates racing deletes', () => {
  it('never resurrects a deleted client or project as a partial item', async () => {
    const ws = await workspace('race-patch');
    for (let round = 0; round < 5; round++) {
      const client = await createClient(ws.api, { company_name: `Patch ${round}` });
      const clientRace = await race(
        Array.from({ length: 4 }, (_, i) => () => ws.api.patch(`/clients/${client.id}`, { company_name: `Renamed ${i}`, status: 'ACTIVE' })),
        () => ws.api.delete(`/clients/${client.id}`),
      );
      expect(clientRace.late.status).toBe(200);
      for (const r of clientRace.racing) if (r.status !== 200) expectError(r, 404, 'not_found');
      expect(await storedItem(ws.id, 'CLIENT', client.id), `round ${round}: client resurrected`).toBeUndefined();
      expect((await ws.api.get('/clients?status=ACTIVE')).body.data.map((c: Obj) => c.id)).not.toContain(client.id);

      const owner = await createClient(ws.api);
      const project = await createProject(ws.api, owner.id);
      const projectRace = await race(
        Array.from({ length: 4 }, (_, i) => () => ws.api.patch(`/projects/${project.id}`, { name: `Renamed ${i}`, status: 'ON_HOLD' })),
        () => ws.api.delete(`/projects/${project.id}`),
      );
      expect(projectRace.late.status).toBe(200);
      for (const r of projectRace.racing) if (r.status !== 200) expectError(r, 404, 'not_found');
      expect(await storedItem(ws.id, 'PROJECT', project.id), `round ${round}: project resurrected`).toBeUndefined();
      expect(Number((await storedItem(ws.id, 'CLIENT', owner.id))!.project_count)).toBe(0);
      expect((await ws.api.delete(`/clients/${owner.id}`)).status).toBe(200);
    }
  });
});
