/**
 * Moves of time entries racing the delete of the project they join or leave. After each round
 * the stored data is checked directly in DynamoDB Local as well as through the API: no entry
 * names a deleted project or client, and every owner's counter equals the entries that name it.
 */
import { describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTime, workspace, type Api } from '../support/api.ts';
import { listAll, race, storedItems } from '../support/races.ts';

type Obj = Record<string, any>;

/** Rounds per race: each runs the same race again (a third cost `npm test` about 5 core-seconds). */
const ROUNDS = 2;
const RACERS = 20;

const { stored, storedItem } = storedItems();

/** Every entry names owners that exist, and each owner counts exactly the entries naming it. */
async function expectExactOwners(wsId: string, owners: { kind: 'PROJECT' | 'CLIENT'; id: string }[], round: number) {
  const entries = await stored(wsId, 'TIME_ENTRY');
  for (const owner of owners) {
    const item = await storedItem(wsId, owner.kind, owner.id);
    const field = owner.kind === 'PROJECT' ? 'project_id' : 'client_id';
    const naming = entries.filter((e) => e[field] === owner.id);
    if (item === undefined) expect(naming, `round ${round}: entries naming the deleted ${owner.kind} ${owner.id}`).toEqual([]);
    else expect(Number(item.time_entry_count), `round ${round}: time_entry_count of ${owner.kind} ${owner.id}`).toBe(naming.length);
  }
}

const logMany = (api: Api, projectId: string) => Promise.all(Array.from({ length: RACERS }, () => logTime(api, { project_id: projectId })));

describe(`time-entry moves racing project deletes (${ROUNDS} rounds of ${RACERS})`, () => {
  it('a move to a project being deleted either lands and blocks the delete, or is refused with nothing changed', async () => {
    const ws = await workspace('race-move-to');
    const [home, away] = await Promise.all([createClient(ws.api, { company_name: 'Home' }), createClient(ws.api, { company_name: 'Away' })]);
    const source = await createProject(ws.api, home.id, { name: 'Source' });
    const outcomes = { deleted: 0, kept: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const target = await createProject(ws.api, away.id, { name: `Target ${round}` });
      const entries = await logMany(ws.api, source.id);
      const { racing, late } = await race(
        entries.map((e) => () => ws.api.patch(`/time_entries/${e.id}`, { project_id: target.id })),
        () => ws.api.delete(`/projects/${target.id}`),
      );
      const moved = racing.filter((r) => r.status === 200).map((r) => r.body as Obj);
      for (const r of racing) if (r.status !== 200) expect(expectError(r, 400, 'invalid_request').param, `round ${round}`).toBe('project_id');
      for (const m of moved) expect(m).toMatchObject({ project_id: target.id, client_id: away.id });
      const listed = await listAll(ws.api, `/time_entries?project_id=${target.id}`);
      if (late.status === 200) {
        outcomes.deleted++;
        expect(moved, `round ${round}: entries moved to a project that was then deleted`).toEqual([]);
        expect(listed).toEqual([]);
      } else {
        outcomes.kept++;
        expectError(late, 409, 'conflict');
        expect(listed.map((e) => e.id).sort()).toEqual(moved.map((e) => e.id).sort());
      }
      await expectExactOwners(ws.id, [{ kind: 'PROJECT', id: source.id }, { kind: 'PROJECT', id: target.id }, { kind: 'CLIENT', id: home.id }, { kind: 'CLIENT', id: away.id }], round);
      // The refused moves left their entries where they were.
      const stayed = (await listAll(ws.api, `/time_entries?project_id=${source.id}`)).filter((e) => entries.some((x) => x.id === e.id));
      expect(stayed.length + moved.length, `round ${round}`).toBe(RACERS);
    }
    expect(outcomes.deleted + outcomes.kept).toBe(ROUNDS);
  });

  it.each(['project', 'client'] as const)('a %s whose entries are moving away is deleted only once none is left on it', async (kind) => {
    const ws = await workspace(`race-move-from-${kind}`);
    const client = await createClient(ws.api);
    const target = kind === 'project' ? await createProject(ws.api, client.id, { name: 'Target' }) : await createClient(ws.api, { company_name: 'Target' });
    const owners: { kind: 'PROJECT' | 'CLIENT'; id: string }[] = [{ kind: 'CLIENT', id: client.id }, { kind: kind === 'project' ? 'PROJECT' : 'CLIENT', id: target.id }];
    for (let round = 0; round < ROUNDS; round++) {
      const source = kind === 'project' ? await createProject(ws.api, client.id, { name: `Source ${round}` }) : await createClient(ws.api, { company_name: `Source ${round}` });
      const entries =
        kind === 'project' ? await logMany(ws.api, source.id) : await Promise.all(Array.from({ length: RACERS }, () => logTime(ws.api, { client_id: source.id })));
      const path = `/${kind === 'project' ? 'projects' : 'clients'}/${source.id}`;
      const { racing, late } = await race(
        entries.map((e) => () => ws.api.patch(`/time_entries/${e.id}`, kind === 'project' ? { project_id: target.id } : { client_id: target.id })),
        () => ws.api.delete(path),
      );
      // Every move succeeds: the source cannot go while one entry is still on it.
      for (const r of racing) expect(r.status, `round ${round}: ${JSON.stringify(r.body)}`).toBe(200);
      if (late.status !== 200) {
        expectError(late, 409, 'conflict');
        expect((await ws.api.delete(path)).status).toBe(200);
      }
      const sourceOwner = { kind: kind === 'project' ? ('PROJECT' as const) : ('CLIENT' as const), id: source.id };
      expect(await storedItem(ws.id, sourceOwner.kind, source.id)).toBeUndefined();
      await expectExactOwners(ws.id, [...owners, sourceOwner], round);
    }
    expect((await listAll(ws.api, `/time_entries?${kind}_id=${target.id}`)).length).toBe(ROUNDS * RACERS);
  });

  it('a client whose entries are moving to it is deleted only while none has landed', async () => {
    const ws = await workspace('race-move-client');
    const home = await createClient(ws.api, { company_name: 'Home' });
    for (let round = 0; round < ROUNDS; round++) {
      const target = await createClient(ws.api, { company_name: `Target ${round}` });
      const entries = await Promise.all(Array.from({ length: RACERS }, () => logTime(ws.api, { client_id: home.id })));
      const { racing, late } = await race(
        entries.map((e) => () => ws.api.patch(`/time_entries/${e.id}`, { client_id: target.id })),
        () => ws.api.delete(`/clients/${target.id}`),
      );
      const moved = racing.filter((r) => r.status === 200);
      for (const r of racing) if (r.status !== 200) expect(expectError(r, 400, 'invalid_request').param, `round ${round}`).toBe('client_id');
      if (late.status === 200) expect(moved, `round ${round}`).toEqual([]);
      else expectError(late, 409, 'conflict');
      await expectExactOwners(ws.id, [{ kind: 'CLIENT', id: home.id }, { kind: 'CLIENT', id: target.id }], round);
    }
  });
});
