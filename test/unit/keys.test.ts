import { describe, expect, it } from 'vitest';
import { keys, listSources, startKeyFor } from '../../shared/data/keys.ts';
import { TABLE } from '../../shared/data/table.ts';
import { isWellFormedId, newId } from '../../shared/ids.ts';

describe('ids', () => {
  it('carry the type prefix and sort by creation time', () => {
    const earlier = newId('client', new Date('2026-11-21T09:00:00.000Z'));
    const later = newId('client', new Date('2026-11-21T09:00:00.001Z'));
    expect(earlier).toMatch(/^cli_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
    expect(newId('project', new Date()).startsWith('prj_')).toBe(true);
    expect(newId('time_entry', new Date()).startsWith('te_')).toBe(true);
  });

  it('are told apart from ids of other kinds and from junk', () => {
    const id = newId('client', new Date());
    expect(isWellFormedId('client', id)).toBe(true);
    expect(isWellFormedId('project', id)).toBe(false);
    expect(isWellFormedId('client', `${id}x`)).toBe(false);
    expect(isWellFormedId('client', 'cli_../../etc')).toBe(false);
  });
});

describe('key schema', () => {
  it('puts every resource of a workspace in its partition, keyed by kind and id', () => {
    expect(keys.item('acme', 'CLIENT', 'cli_1')).toEqual({ PK: 'WS#acme', SK: 'CLIENT#cli_1' });
    expect(keys.item('acme', 'PROJECT', 'prj_1')).toEqual({ PK: 'WS#acme', SK: 'PROJECT#prj_1' });
  });

  it('keeps workspaces apart in every index partition', () => {
    const a = keys.projectIndexes('a', 'prj_1', 'cli_1', 'ACTIVE');
    const b = keys.projectIndexes('b', 'prj_1', 'cli_1', 'ACTIVE');
    for (const name of ['GSI1PK', 'GSI2PK', 'GSI3PK'] as const) expect(a[name]).not.toBe(b[name]);
  });

  it('derives the status-dependent attributes of a project without its client', () => {
    const full = keys.projectIndexes('a', 'prj_1', 'cli_1', 'ON_HOLD');
    expect(keys.projectStatusIndexes('a', 'prj_1', 'ON_HOLD')).toEqual({ GSI1PK: full.GSI1PK, GSI3SK: full.GSI3SK });
  });

  it('reads each list from the source that serves it', () => {
    expect(listSources.clients('a').index).toBeUndefined();
    expect(listSources.clients('a', 'LEAD').index).toBe('GSI1');
    expect(listSources.projects('a', {}).index).toBeUndefined();
    expect(listSources.projects('a', { status: 'ACTIVE' }).index).toBe('GSI1');
    expect(listSources.projects('a', { clientId: 'cli_1' }).index).toBe('GSI2');
    expect(listSources.projects('a', { clientId: 'cli_1', status: 'ACTIVE' })).toMatchObject({ index: 'GSI3', sortKeyPrefix: 'STATUS#ACTIVE#' });
    expect(listSources.timeEntries('a', { projectId: 'prj_1' }).index).toBe('GSI2');
    expect(listSources.timeEntries('a', { clientId: 'cli_1' }).index).toBe('GSI3');
  });

  it('rebuilds a start key whose index keys match what the item stores', () => {
    const item = { ...keys.item('a', 'PROJECT', 'prj_1'), ...keys.projectIndexes('a', 'prj_1', 'cli_1', 'ACTIVE') };
    const source = listSources.projects('a', { clientId: 'cli_1', status: 'ACTIVE' });
    expect(startKeyFor(source, 'a', item.SK)).toEqual({ PK: item.PK, SK: item.SK, GSI3PK: item.GSI3PK, GSI3SK: item.GSI3SK });
    const byStatus = listSources.projects('a', { status: 'ACTIVE' });
    expect(startKeyFor(byStatus, 'a', item.SK)).toEqual({ PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK });
  });

  it('names only attributes that the table defines', () => {
    const defined = new Set<string>([TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
    const all = { ...keys.projectIndexes('a', 'p', 'c', 'S'), ...keys.clientIndexes('a', 'c', 'S'), ...keys.timeEntryIndexes('a', 't', 'c', 'p') };
    for (const name of Object.keys(all)) expect(defined.has(name)).toBe(true);
  });
});

describe('index projections', () => {
  it('hold every field a list returns, for each kind an index lists', async () => {
    const { ClientObject, ProjectObject, TimeEntryObject } = await import('../../shared/schemas/objects.ts');
    const fields = {
      CLIENT: Object.keys(ClientObject.entries),
      PROJECT: Object.keys(ProjectObject.entries),
      TIME_ENTRY: Object.keys(TimeEntryObject.entries),
    };
    for (const index of TABLE.indexes) {
      for (const kind of index.kinds) {
        for (const field of fields[kind].filter((f) => f !== 'object')) expect(index.projected, `${index.name} ${kind}.${field}`).toContain(field);
        expect(index.projected).toContain('version');
      }
    }
  });

  it('stay within DynamoDB\'s limit of 100 projected attributes per table', () => {
    expect(TABLE.indexes.reduce((n, i) => n + i.projected.length, 0)).toBeLessThanOrEqual(100);
  });
});
