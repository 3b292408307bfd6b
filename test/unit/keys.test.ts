import { describe, expect, it } from 'vitest';
import { CHANGE_TYPE, eventListSource, keys, listSource, positionOf, spanSource, startKeyFor, type Keyed } from '../../shared/data/keys.ts';
import { pageQueryParams, spanQueryParams } from '../../shared/data/list.ts';
import { TABLE } from '../../shared/data/table.ts';
import { isWellFormedId, newId, orderOfId, sortableId } from '../../shared/core/ids.ts';
import { RESOURCE_LIST, client, project, timeEntry } from '../../shared/model/resources.ts';

// The span read's query names the table (shared/data/list.ts spanQueryParams).
process.env.TABLE_NAME ??= 'unit-test-table';

describe('ids', () => {
  it('carry the type prefix and sort by creation time', () => {
    const earlier = newId('cli_', new Date('2026-11-21T09:00:00.000Z'));
    const later = newId('cli_', new Date('2026-11-21T09:00:00.001Z'));
    expect(earlier).toMatch(/^cli_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
    expect(newId(project.idPrefix, new Date()).startsWith('prj_')).toBe(true);
  });

  it('sort by creation time across every digit of the time, not only the last', () => {
    // Ids 1 ms, 40 ms, 2 s, a day and a year apart: each later one sorts after.
    const base = Date.parse('2026-11-21T09:00:00.000Z');
    const times = [0, 1, 40, 2_000, 86_400_000, 31_536_000_000].map((d) => newId('te_', new Date(base + d)));
    expect([...times].sort()).toEqual(times);
    // The time part is the ULID's first 10 characters: the epoch encodes to 0000000000.
    expect(newId('te_', new Date(0)).slice(3, 13)).toBe('0000000000');
    expect(newId('te_', new Date(32)).slice(3, 13)).toBe('0000000010');
    expect(newId('te_', new Date(2 ** 48 - 1)).slice(3, 13)).toBe('7ZZZZZZZZZ');
  });

  it("give back the order they were made with (an event id's sequence number), whatever follows it", () => {
    for (const order of [0, 1, 31, 32, 1_000_003, 2 ** 48 - 1]) expect(orderOfId('evt_', sortableId('evt_', order))).toBe(order);
    expect(orderOfId('evt_', 'evt_0000000010ZZZZZZZZZZZZZZZZ')).toBe(32);
    expect(orderOfId('te_', 'te_00000000Z1')).toBe(31 * 32 + 1);
  });

  it('are random after the time part', () => {
    const now = new Date();
    const ids = new Set(Array.from({ length: 50 }, () => newId('cli_', now).slice(14)));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{16}$/);
  });

  it('are told apart from ids of other kinds and from junk', () => {
    const id = newId('cli_', new Date());
    expect(isWellFormedId('cli_', id)).toBe(true);
    expect(isWellFormedId('prj_', id)).toBe(false);
    expect(isWellFormedId('cli_', `${id}x`)).toBe(false);
    expect(isWellFormedId('cli_', `x${id}`)).toBe(false);
    expect(isWellFormedId('cli_', 'cli_../../etc')).toBe(false);
    expect(isWellFormedId('cli_', id.toLowerCase())).toBe(false);
  });
});

describe('key schema', () => {
  it('puts every resource of a workspace in its partition, keyed by type and id', () => {
    expect(keys.item('acme', 'CLIENT', 'cli_1')).toEqual({ PK: 'WS#acme', SK: 'CLIENT#cli_1' });
    expect(keys.typePrefix('PROJECT')).toBe('PROJECT#');
    expect(keys.apiClient('c1')).toEqual({ PK: 'API_CLIENT#c1', SK: 'API_CLIENT' });
    expect(keys.workspace('acme')).toEqual({ PK: 'WORKSPACE#acme', SK: 'WORKSPACE' });
    expect(keys.idempotencyPartition('acme')).toBe('WS#acme#IDEMPOTENCY');
    // A key belongs to one API client: another client's same key is another record.
    expect(keys.idempotency('acme', 'c1', 'k#1')).toEqual({ PK: 'WS#acme#IDEMPOTENCY', SK: 'KEY#c1#k#1' });
    expect(keys.idempotency('acme', 'c2', 'k#1')).not.toEqual(keys.idempotency('acme', 'c1', 'k#1'));
    expect(keys.workspacePartition('acme')).toBe('WS#acme');
  });

  it('keeps a project\'s fee marks in a partition of their own: its fixed price, its retainer periods by start date, its credit ledger (decision 0029)', () => {
    expect(keys.feesPartition('acme', 'prj_1')).toBe('WS#acme#FEES#prj_1');
    expect(keys.fixedPriceMark('acme', 'prj_1')).toEqual({ PK: 'WS#acme#FEES#prj_1', SK: 'FIXED' });
    expect(keys.retainerMark('acme', 'prj_1', '2026-02-28')).toEqual({ PK: 'WS#acme#FEES#prj_1', SK: 'RETAINER#2026-02-28' });
    // Periods sort by their start dates, so a range of them is a range of sort keys.
    expect(keys.retainerMark('a', 'p', '2026-12-31').SK < keys.retainerMark('a', 'p', '2027-01-01').SK).toBe(true);
    // The credit ledger shares the partition, outside the marks' range: a Query of the marks never reads it.
    expect(keys.creditLedger('acme', 'prj_1')).toEqual({ PK: 'WS#acme#FEES#prj_1', SK: 'CREDIT' });
    expect(keys.creditLedger('a', 'p').SK < keys.fixedPriceMark('a', 'p').SK).toBe(true);
  });

  it('builds the index keys each resource declares', () => {
    // GSI1 to GSI4 share one sort key attribute (the same value in each); GSI5's is its own.
    expect(keys.indexes(project, 'a', 'prj_1', { client_id: 'cli_1', status: 'ACTIVE' })).toEqual({
      GSI1PK: 'WS#a#PROJECT#status#ACTIVE',
      GSI2PK: 'WS#a#PROJECT#client_id#cli_1',
      GSISK: 'PROJECT#prj_1',
      GSI5PK: 'WS#a#PROJECT#client_id#cli_1',
      GSI5SK: 'status#ACTIVE#PROJECT#prj_1',
    });
    expect(keys.indexes(client, 'a', 'cli_1', { status: 'LEAD' })).toEqual({ GSI1PK: 'WS#a#CLIENT#status#LEAD', GSISK: 'CLIENT#cli_1' });
  });

  it('takes a sort prefix on GSI5 alone, whose sort key is its own', () => {
    const own: Keyed = { type: 'X', indexes: { GSI1: { partition: [] }, GSI5: { partition: ['a'], sortPrefix: 's' } } };
    expect(keys.indexes(own, 'w', 'x_1', { a: '1', s: '2' })).toEqual({ GSI1PK: 'WS#w#X', GSISK: 'X#x_1', GSI5PK: 'WS#w#X#a#1', GSI5SK: 's#2#X#x_1' });
    // @ts-expect-error GSI1 to GSI4 share one sort key: a prefix on one would lead the others' too.
    const shared: Keyed = { type: 'X', indexes: { GSI1: { partition: [] }, GSI2: { partition: ['a'], sortPrefix: 's' } } };
    // What the type refuses: GSI1's sort key would start with the status, and its list order with it.
    expect(keys.indexes(shared, 'w', 'x_1', { a: '1', s: '2' }).GSISK).toBe('s#2#X#x_1');
    for (const resource of RESOURCE_LIST) {
      const prefixed = Object.entries(resource.indexes ?? {}).filter(([, index]) => index?.sortPrefix !== undefined);
      for (const [name] of prefixed) expect(name).toBe('GSI5');
    }
  });

  it('leaves an item out of an index whose partition field is null', () => {
    const at = '2026-11-20T09:00:00.000Z';
    expect(Object.keys(keys.indexes(timeEntry, 'a', 'te_1', { project_id: null, client_id: 'cli_1', started_at: at })).sort()).toEqual(['GSI1PK', 'GSI3PK', 'GSISK']);
    expect(Object.keys(keys.indexes(timeEntry, 'a', 'te_1', { project_id: 'prj_1', client_id: 'cli_1', started_at: at })).sort()).toEqual([
      'GSI1PK',
      'GSI2PK',
      'GSI3PK',
      'GSISK',
    ]);
  });

  it('puts the order field in every sort key of an ordered resource, and rewrites them all when it changes', () => {
    const at = '2026-11-20T09:00:00.000Z';
    expect(keys.indexes(timeEntry, 'a', 'te_1', { project_id: 'prj_1', client_id: 'cli_1', started_at: at })).toEqual({
      GSI1PK: 'WS#a#TIME_ENTRY',
      GSI2PK: 'WS#a#TIME_ENTRY#project_id#prj_1',
      GSI3PK: 'WS#a#TIME_ENTRY#client_id#cli_1',
      GSISK: `TIME_ENTRY#${at}#te_1`,
    });
    const later = '2026-11-21T10:00:00.000Z';
    // One attribute holds the sort key of all four indexes: one rewrite moves the entry in each.
    expect(keys.changedIndexes(timeEntry, 'a', 'te_1', { started_at: later })).toEqual({ GSISK: `TIME_ENTRY#${later}#te_1` });
    expect(keys.changedIndexes(timeEntry, 'a', 'te_1', { duration_minutes: 5, billable: false })).toEqual({});
    const prefixed = { type: 'X', order: { field: 'at' }, indexes: { GSI5: { partition: [], sortPrefix: 's' } } };
    expect(() => keys.changedIndexes(prefixed, 'w', 'x_1', { at })).toThrow(/sort prefix and an ordered sort key/);
  });

  it('reads an ordered resource from an index, within its range, and starts a page at an index position', () => {
    const at = '2026-11-20T09:00:00.000Z';
    expect(listSource(timeEntry, 'a', {})).toEqual({
      index: 'GSI1',
      partitionKey: 'WS#a#TIME_ENTRY',
      type: 'TIME_ENTRY',
      sortKeyPrefix: '',
      remaining: {},
      range: { low: 'TIME_ENTRY#', high: 'TIME_ENTRY#~' },
    });
    const ranged = listSource(timeEntry, 'a', { client_id: 'cli_1' }, { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' });
    expect(ranged).toMatchObject({ index: 'GSI3', range: { low: 'TIME_ENTRY#2026-11-01T00:00:00.000Z', high: 'TIME_ENTRY#2026-12-01T00:00:00.000Z' } });
    // The end is exclusive: an item at exactly `to` sorts after it, one just before sorts inside.
    expect(`TIME_ENTRY#2026-12-01T00:00:00.000Z#te_1` > ranged.range!.high).toBe(true);
    expect(`TIME_ENTRY#2026-11-30T23:59:59.999Z#te_1` < ranged.range!.high).toBe(true);
    expect(`TIME_ENTRY#2026-11-01T00:00:00.000Z#te_1` >= ranged.range!.low).toBe(true);
    const item: Record<string, string> = { ...keys.item('a', 'TIME_ENTRY', 'te_1'), ...keys.indexes(timeEntry, 'a', 'te_1', { project_id: null, client_id: 'cli_1', started_at: at }) };
    const position = positionOf(ranged, item);
    expect(position).toBe(`TIME_ENTRY#${at}#te_1`);
    expect(startKeyFor(ranged, 'a', position)).toEqual({ PK: item.PK, SK: item.SK, GSI3PK: item.GSI3PK, GSISK: item.GSISK });
    // An unordered source's position is the item's own sort key.
    expect(positionOf(listSource(client, 'a', {}), { SK: 'CLIENT#cli_1' })).toBe('CLIENT#cli_1');
  });

  it('reads one value\'s items over a span as a list filtered by it alone does, with the same query', () => {
    const span = { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' };
    const after = { GSI3PK: 'WS#a#TIME_ENTRY#client_id#cli_1', GSISK: 'TIME_ENTRY#2026-11-02T00:00:00.000Z#te_1', PK: 'WS#a', SK: 'TIME_ENTRY#te_1' };
    for (const [field, value] of [['client_id', 'cli_1'], ['project_id', 'prj_1']] as const) {
      const source = spanSource(timeEntry, 'a', field, value, span);
      expect(source).toEqual(listSource(timeEntry, 'a', { [field]: value }, span));
      for (const startKey of [undefined, after]) {
        expect(spanQueryParams(source, 1000, startKey)).toEqual(pageQueryParams({ source, workspaceId: 'a', limit: 0, after: undefined, ascending: true }, 1000, startKey));
      }
    }
    expect(() => spanSource(timeEntry, 'a', 'started_at', 'x', span)).toThrow('No index of TIME_ENTRY is partitioned by started_at alone');
  });

  it('keeps workspaces apart in every index partition', () => {
    const a = keys.indexes(project, 'a', 'prj_1', { client_id: 'cli_1', status: 'ACTIVE' });
    const b = keys.indexes(project, 'b', 'prj_1', { client_id: 'cli_1', status: 'ACTIVE' });
    for (const name of ['GSI1PK', 'GSI2PK', 'GSI5PK']) expect(a[name]).not.toBe(b[name]);
  });

  it('rewrites on a status change exactly the attributes built from the status, without the client', () => {
    const full = keys.indexes(project, 'a', 'prj_1', { client_id: 'cli_1', status: 'ON_HOLD' });
    expect(keys.changedIndexes(project, 'a', 'prj_1', { status: 'ON_HOLD' })).toEqual({ GSI1PK: full.GSI1PK, GSI5SK: full.GSI5SK });
    expect(keys.changedIndexes(project, 'a', 'prj_1', { name: 'x' })).toEqual({});
    expect(keys.changedIndexes(client, 'a', 'cli_1', { status: 'LOST' })).toEqual({ GSI1PK: 'WS#a#CLIENT#status#LOST' });
  });

  it('refuses a change that would need a partition field it was not given', () => {
    const mixed = { type: 'X', indexes: { GSI1: { partition: ['a', 'b'] } } };
    expect(() => keys.changedIndexes(mixed, 'w', 'x_1', { a: '1' })).toThrow(/mixes a changed field/);
    expect(keys.changedIndexes(mixed, 'w', 'x_1', { a: '1', b: '2' })).toEqual({ GSI1PK: 'WS#w#X#a#1#b#2' });
  });

  it('reads each list from the source that serves the most of its filters', () => {
    expect(listSource(client, 'a', {})).toEqual({ index: undefined, partitionKey: 'WS#a', type: 'CLIENT', sortKeyPrefix: '', remaining: {} });
    expect(listSource(client, 'a', { status: undefined }).index).toBeUndefined();
    expect(listSource(client, 'a', { status: 'LEAD' })).toMatchObject({ index: 'GSI1', partitionKey: 'WS#a#CLIENT#status#LEAD', remaining: {} });
    expect(listSource(project, 'a', { status: 'ACTIVE' }).index).toBe('GSI1');
    expect(listSource(project, 'a', { client_id: 'cli_1' })).toMatchObject({ index: 'GSI2', sortKeyPrefix: '' });
    expect(listSource(project, 'a', { client_id: 'cli_1', status: 'ACTIVE' })).toEqual({
      index: 'GSI5',
      partitionKey: 'WS#a#PROJECT#client_id#cli_1',
      type: 'PROJECT',
      sortKeyPrefix: 'status#ACTIVE#',
      remaining: {},
    });
    expect(listSource(timeEntry, 'a', {}).index).toBe('GSI1');
    expect(listSource(timeEntry, 'a', { project_id: 'prj_1' }).index).toBe('GSI2');
    expect(listSource(timeEntry, 'a', { client_id: 'cli_1' }).index).toBe('GSI3');
    // Both: the first index serving one of them; the other is filtered on.
    expect(listSource(timeEntry, 'a', { project_id: 'prj_1', client_id: 'cli_1' })).toMatchObject({ index: 'GSI2', remaining: { client_id: 'cli_1' } });
    // No index serves it: the workspace partition, filtered.
    expect(listSource(client, 'a', { language: 'FRENCH' })).toMatchObject({ index: undefined, remaining: { language: 'FRENCH' } });
  });

  it("lists an invoice's entries from GSI4 whatever else is asked: the others filter at most its 2,000 entries", () => {
    const range = { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' };
    expect(listSource(timeEntry, 'a', { invoice_id: 'inv_1' }, range)).toEqual({
      index: 'GSI4',
      partitionKey: 'WS#a#TIME_ENTRY#invoice_id#inv_1',
      type: 'TIME_ENTRY',
      sortKeyPrefix: '',
      remaining: {},
      range: { low: `TIME_ENTRY#${range.from}`, high: `TIME_ENTRY#${range.to}` },
    });
    for (const other of [{ project_id: 'prj_1' }, { client_id: 'cli_1' }, { project_id: 'prj_1', client_id: 'cli_1' }]) {
      expect(listSource(timeEntry, 'a', { ...other, invoice_id: 'inv_1' })).toMatchObject({ index: 'GSI4', remaining: other });
    }
    expect(listSource(timeEntry, 'a', { project_id: 'prj_1', invoice_id: undefined })).toMatchObject({ index: 'GSI2', remaining: {} });
  });

  it('keeps an entry in GSI4 only while it names an invoice, ordered by started_at as every list', () => {
    const at = '2026-11-20T09:00:00.000Z';
    const fields = { project_id: null, client_id: 'cli_1', started_at: at };
    expect(keys.indexes(timeEntry, 'a', 'te_1', { ...fields, invoice_id: null })).not.toHaveProperty('GSI4PK');
    expect(keys.indexes(timeEntry, 'a', 'te_1', { ...fields, invoice_id: 'inv_1' })).toMatchObject({ GSI4PK: 'WS#a#TIME_ENTRY#invoice_id#inv_1', GSISK: `TIME_ENTRY#${at}#te_1` });
  });

  it('names the invoiced totals levels beside the base ones, with the same groups', () => {
    expect(keys.totals('a', 'CLIENT_INVOICED', '2026-11', keys.totalsGroup('CLIENT_INVOICED', 'cli_1', 'prj_1'), '20')).toEqual({ PK: 'WS#a#TOTALS#CLIENT_INVOICED#2026-11', SK: 'cli_1#20' });
    expect(keys.totals('a', 'PROJECT_INVOICED', '2026-11', keys.totalsGroup('PROJECT_INVOICED', 'cli_1', null), '20')).toEqual({ PK: 'WS#a#TOTALS#PROJECT_INVOICED#2026-11', SK: 'cli_1#-#20' });
  });

  it('rebuilds a start key whose index keys match what the item stores', () => {
    const item: Record<string, string> = { ...keys.item('a', 'PROJECT', 'prj_1'), ...keys.indexes(project, 'a', 'prj_1', { client_id: 'cli_1', status: 'ACTIVE' }) };
    const source = listSource(project, 'a', { client_id: 'cli_1', status: 'ACTIVE' });
    expect(startKeyFor(source, 'a', item.SK!)).toEqual({ PK: item.PK, SK: item.SK, GSI5PK: item.GSI5PK, GSI5SK: item.GSI5SK });
    const byStatus = listSource(project, 'a', { status: 'ACTIVE' });
    expect(startKeyFor(byStatus, 'a', item.SK!)).toEqual({ PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSISK: item.GSISK });
    expect(startKeyFor(listSource(project, 'a', {}), 'a', item.SK!)).toEqual({ PK: item.PK, SK: item.SK });
  });

  it("reads the events feed from the workspace's event partition, resuming at the event's own key", () => {
    const event = keys.event('a', 'evt_1');
    const source = eventListSource('a');
    expect(source).toEqual({ index: undefined, partitionKey: 'WS#a#EVENT', type: 'EVENT', sortKeyPrefix: '', remaining: {} });
    expect(event.SK.startsWith(keys.typePrefix(source.type))).toBe(true);
    expect(startKeyFor(source, 'a', event.SK)).toEqual(event);
    // The sequence counter shares the partition but is not an event.
    expect(keys.eventSequence('a').PK).toBe(source.partitionKey);
    expect(keys.eventSequence('a').SK.startsWith(keys.typePrefix(source.type))).toBe(false);
  });

  it("reads a type's view at the events' own keys, and an object's view at its change records (decision 0018)", () => {
    expect(eventListSource('a', { by: 'type', value: 'client.updated' })).toEqual({
      index: undefined,
      partitionKey: 'WS#a#EVENT_BY#type#client.updated',
      type: 'EVENT',
      sortKeyPrefix: '',
      remaining: {},
    });
    const byObject = eventListSource('a', { by: 'object_id', value: 'cli_1' });
    expect(byObject).toMatchObject({ partitionKey: 'WS#a#EVENT_BY#object_id#cli_1', type: CHANGE_TYPE });
    expect(startKeyFor(byObject, 'a', 'CHANGE#0000000002#1')).toEqual({ PK: 'WS#a#EVENT_BY#object_id#cli_1', SK: 'CHANGE#0000000002#1' });
  });

  it('names only attributes that the table defines', () => {
    const defined = new Set<string>([TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
    for (const resource of RESOURCE_LIST) {
      const fields = Object.fromEntries(resource.fieldNames.map((f) => [f, 'x']));
      for (const name of Object.keys(keys.indexes(resource, 'a', 'x', fields))) expect(defined.has(name)).toBe(true);
    }
  });
});

describe('index projections', () => {
  it('project the data map and the search field, whatever the resources', () => {
    for (const index of TABLE.indexes) expect([...index.projected]).toEqual(['data', 'search_text']);
  });

  it('stay within 30 projected attributes, far under DynamoDB\'s limit of 100 per table', () => {
    expect(TABLE.indexes.reduce((n, i) => n + i.projected.length, 0)).toBeLessThanOrEqual(30);
  });
});
