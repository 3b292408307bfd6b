/**
 * The time-entry side of invoices over HTTP (contract, "Invoices"; decision 0023): `invoice_id`
 * on every entry (read-only), the lock (PATCH, moves and DELETE of an entry on an invoice are a
 * 409 time_entry_invoiced that changes nothing), its release, the lock's and release's events,
 * `GET /time_entries?invoice_id=` and `GET /time_summaries?invoiced=` against a brute-force
 * reference. Entries are locked and released as an invoice's batches do it: the parts of
 * shared/domain/invoices/lock.ts in one transaction (test/support/invoice-lock.ts).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createClient, createProject, expectError, logTime, logTimes, workspace, type Api } from '../support/api.ts';
import { expectInvalid } from '../support/assertions.ts';
import { waitFor, allEvents } from '../support/events.ts';
import { useSharedTable } from '../support/in-process.ts';
import { invoiceId, lockEntries, releaseEntries } from '../support/invoice-lock.ts';
import { allEntries, referenceSummary, summaryRows, type SummaryQuery } from '../support/summaries.ts';

type Obj = Record<string, any>;

beforeAll(() => useSharedTable('invoice-lock-test-cursor-signing-key-0123456789'));
/** Started with the file (see migrateOldTable); its test, the last, awaits it. Handled here so that a failure is that test's, not an unhandled rejection. */
let oldTableMigrated: ReturnType<typeof migrateOldTable>;
beforeAll(() => {
  oldTableMigrated = migrateOldTable();
  oldTableMigrated.catch(() => undefined);
});

/** A client with two projects and four entries on three days: A and F on P, B on the client alone, E on Q. */
async function setup(prefix: string) {
  const ws = await workspace(prefix);
  const client = await createClient(ws.api);
  const other = await createClient(ws.api, { company_name: 'Other' });
  const p = await createProject(ws.api, client.id, { hourly_rate: 60 });
  const q = await createProject(ws.api, client.id, { hourly_rate: 100 });
  const [a, b, e, f] = (await logTimes(ws.api, [
    { project_id: p.id, started_at: '2026-11-20T09:00:00Z' },
    { client_id: client.id, billable_rate: 80, started_at: '2026-11-21T10:00:00Z' },
    { project_id: q.id, started_at: '2026-11-19T08:00:00Z' },
    { project_id: p.id, started_at: '2026-11-20T12:00:00Z' },
  ])) as [Obj, Obj, Obj, Obj];
  return { ws, client, other, p, q, a, b, e, f };
}

const ids = (response: { body: Obj }) => (response.body.data as Obj[]).map((x) => x.id);

describe('invoice_id', () => {
  it('is null on a logged entry, in its retrieve and its list; a create or PATCH sending it is a 400 naming it, storing nothing', async () => {
    const { ws, client, a } = await setup('inv-field');
    expect(a.invoice_id).toBeNull();
    expect((await ws.api.get(`/time_entries/${a.id}`)).body.invoice_id).toBeNull();
    expect(((await ws.api.get('/time_entries')).body.data as Obj[]).map((x) => x.invoice_id)).toEqual([null, null, null, null]);
    const inv = invoiceId();
    for (const invoice_id of [inv, null]) {
      expectInvalid(await ws.api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 5, invoice_id }), ['invoice_id']);
      expectInvalid(await ws.api.patch(`/time_entries/${a.id}`, { invoice_id }), ['invoice_id']);
      expectInvalid(await ws.api.patch(`/time_entries/${a.id}`, { duration_minutes: 7, invoice_id }), ['invoice_id']);
    }
    expect((await ws.api.get('/time_entries')).body.data).toHaveLength(4);
    expect((await ws.api.get(`/time_entries/${a.id}`)).body).toEqual(a);
  });
});

describe('the lock', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  let inv: string;
  const summary = (api: Api) => summaryRows(api, { from: '2026-11-01', to: '2026-12-01', group_by: 'project', period: 'day' });

  beforeAll(async () => {
    s = await setup('inv-lock');
    inv = invoiceId();
    await lockEntries(s.ws.id, [s.a.id, s.b.id, s.e.id], inv);
  });

  it('is a new version of each entry, naming the invoice, and its time_entry.updated shows invoice_id was null', async () => {
    const read = await s.ws.api.get(`/time_entries/${s.a.id}`);
    expect(read.body).toEqual({ ...s.a, invoice_id: inv, updated_at: read.body.updated_at });
    expect(read.body.updated_at > s.a.updated_at).toBe(true);
    expect(read.headers.get('etag')).toBe('"2"');
    const locks = await waitFor(async () => {
      const found = (await allEvents(s.ws.api, '&type=time_entry.updated')).filter((e) => e.data.object.invoice_id === inv);
      return found.length === 3 ? found : undefined;
    }, 'the three locks');
    const ofA = locks.find((e) => e.data.object.id === s.a.id)!;
    expect(ofA.data).toEqual({ object: read.body, previous_attributes: { invoice_id: null, updated_at: s.a.updated_at } });
    expect(ofA.request_id).toMatch(/^test-lock-/);
  });

  it.each([
    ['a correction', 'a', { duration_minutes: 99 }],
    ['a move to another project', 'a', { project_id: 'q' }],
    ['a move off its project', 'a', { project_id: null }],
    ['a move onto a project', 'b', { project_id: 'p' }],
    ['a move to another client', 'b', { client_id: 'other' }],
    ['an empty PATCH', 'e', {}],
  ] as const)('refuses %s with a 409 time_entry_invoiced naming the invoice, changing nothing', async (_what, which, patch) => {
    const before = await summary(s.ws.api);
    const entry = s[which];
    const body = Object.fromEntries(Object.entries(patch).map(([k, v]) => [k, typeof v === 'string' ? (s[v as 'p' | 'q' | 'other'] as Obj).id : v]));
    const current = await s.ws.api.get(`/time_entries/${entry.id}`);
    const error = expectError(await s.ws.api.patch(`/time_entries/${entry.id}`, body), 409, 'time_entry_invoiced');
    expect(error.message).toContain(inv);
    expect(error.message).toContain(entry.id);
    const after = await s.ws.api.get(`/time_entries/${entry.id}`);
    expect([after.body, after.headers.get('etag')]).toEqual([current.body, current.headers.get('etag')]);
    expect(await summary(s.ws.api)).toEqual(before);
  });

  it('refuses DELETE with the 409, also at the current version (If-Match), and keeps the entry and its owners\' counts', async () => {
    for (const entry of [s.a, s.b]) {
      const current = await s.ws.api.get(`/time_entries/${entry.id}`);
      expectError(await s.ws.api.delete(`/time_entries/${entry.id}`), 409, 'time_entry_invoiced');
      const { call } = await import('../support/api.ts');
      const ifMatch = await call('DELETE', `/api/v1/time_entries/${entry.id}`, { token: s.ws.token, headers: { 'If-Match': current.headers.get('etag')! } });
      expectError(ifMatch, 409, 'time_entry_invoiced');
      expect((await s.ws.api.get(`/time_entries/${entry.id}`)).body).toEqual(current.body);
    }
    // The client still counts its entries: its delete is refused by them.
    expectError(await s.ws.api.delete(`/clients/${s.client.id}`), 409, 'conflict');
  });

  it('leaves an entry on no invoice free to change and delete', async () => {
    expect((await s.ws.api.patch(`/time_entries/${s.f.id}`, { duration_minutes: 45 })).status).toBe(200);
    const g = await logTime(s.ws.api, { project_id: s.p.id });
    expect((await s.ws.api.delete(`/time_entries/${g.id}`)).status).toBe(200);
  });
});

describe('the release', () => {
  it('makes the entries editable again, each in a new version whose event shows the invoice it left; a second release is refused', async () => {
    const s = await setup('inv-release');
    const inv = invoiceId();
    await lockEntries(s.ws.id, [s.a.id, s.b.id], inv);
    await releaseEntries(s.ws.id, [s.a.id, s.b.id], inv);
    const read = await s.ws.api.get(`/time_entries/${s.a.id}`);
    expect([read.body.invoice_id, read.headers.get('etag')]).toEqual([null, '"3"']);
    expect((await s.ws.api.get(`/time_entries?invoice_id=${inv}`)).body.data).toEqual([]);
    const releases = await waitFor(async () => {
      const found = (await allEvents(s.ws.api, '&type=time_entry.updated')).filter((e) => e.data.previous_attributes.invoice_id === inv);
      return found.length === 2 ? found : undefined;
    }, 'the two releases');
    expect(releases.find((e) => e.data.object.id === s.a.id)!.data.object).toEqual(read.body);
    // Released twice: the condition (the entry names this invoice) refuses it.
    await expect(releaseEntries(s.ws.id, [s.a.id], inv)).rejects.toThrow(/cancelled/);
    const moved = await s.ws.api.patch(`/time_entries/${s.a.id}`, { project_id: s.q.id, duration_minutes: 50 });
    expect(moved.status).toBe(200);
    expect((await s.ws.api.delete(`/time_entries/${s.b.id}`)).status).toBe(200);
    // Invoiceable again: a second invoice takes it with its current values.
    const again = invoiceId();
    await lockEntries(s.ws.id, [s.a.id], again);
    expect((await s.ws.api.get(`/time_entries?invoice_id=${again}`)).body.data).toEqual([{ ...moved.body, invoice_id: again, updated_at: expect.any(String) }]);
  });

  it('refuses a lock of an entry on another invoice, or changed since it was read, in the lock\'s own condition', async () => {
    const s = await setup('inv-twice');
    const inv = invoiceId();
    await lockEntries(s.ws.id, [s.a.id], inv);
    await expect(lockEntries(s.ws.id, [s.f.id, s.a.id], invoiceId())).rejects.toThrow(/cancelled/);
    // Nothing of the cancelled batch happened: f is on no invoice.
    expect((await s.ws.api.get(`/time_entries/${s.f.id}`)).body.invoice_id).toBeNull();
    expect((await s.ws.api.get(`/time_entries/${s.a.id}`)).body.invoice_id).toBe(inv);
  });
});

describe('edits racing a lock', () => {
  it('each edit lands before the lock (and is invoiced as it left the entry) or is a 409; the invoiced totals are the entry as locked', async () => {
    const s = await setup('inv-race');
    const inv = invoiceId();
    const edits = Array.from({ length: 12 }, (_, i) =>
      s.ws.api.patch(`/time_entries/${s.a.id}`, i % 3 === 2 ? { project_id: s.q.id, duration_minutes: 100 + i } : { duration_minutes: 100 + i }),
    );
    // The lock goes again, read afresh, while the edits move the version it read (as a create's batch does).
    const lock = (async () => {
      for (let attempt = 0; attempt < 50; attempt++) {
        if (await lockEntries(s.ws.id, [s.a.id], inv).then(() => true, () => false)) return;
      }
      throw new Error('the lock never landed');
    })();
    const answers = await Promise.all(edits);
    await lock;
    expect(answers.every((r) => r.status === 200 || (r.status === 409 && r.body.error.type === 'time_entry_invoiced')), JSON.stringify(answers.map((r) => r.status))).toBe(true);
    const locked = (await s.ws.api.get(`/time_entries/${s.a.id}`)).body;
    expect(locked.invoice_id).toBe(inv);
    // The last edit to land is what the entry shows; a 409 changed nothing.
    const landed = answers.filter((r) => r.status === 200).map((r) => r.body);
    const last = landed.sort((x, y) => (x.updated_at < y.updated_at ? -1 : 1)).at(-1) ?? s.a;
    expect(locked).toEqual({ ...last, invoice_id: inv, updated_at: locked.updated_at });
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.error.message).toContain(inv);
    const entries = await allEntries(s.ws.api);
    for (const invoiced of ['true', 'false'] as const) {
      const q: SummaryQuery = { from: '2026-11-01', to: '2026-12-01', group_by: 'project', invoiced };
      expect(await summaryRows(s.ws.api, q)).toEqual(referenceSummary(entries, q, () => 'USD'));
    }
  });
});

describe('GET /time_entries?invoice_id=', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  let inv: string;

  beforeAll(async () => {
    s = await setup('inv-list');
    inv = invoiceId();
    await lockEntries(s.ws.id, [s.a.id, s.b.id, s.e.id], inv);
  });

  it("lists the invoice's entries newest first by started_at, combined with every other filter and range", async () => {
    const list = (query: string) => s.ws.api.get(`/time_entries?invoice_id=${inv}${query}`);
    expect(ids(await list(''))).toEqual([s.b.id, s.a.id, s.e.id]);
    expect(((await list('')).body.data as Obj[]).every((x) => x.invoice_id === inv)).toBe(true);
    expect(ids(await list(`&project_id=${s.p.id}`))).toEqual([s.a.id]);
    expect(ids(await list(`&project_id=${s.q.id}&client_id=${s.client.id}`))).toEqual([s.e.id]);
    expect(ids(await list(`&client_id=${s.client.id}`))).toEqual([s.b.id, s.a.id, s.e.id]);
    expect(ids(await list(`&client_id=${s.other.id}`))).toEqual([]);
    expect(ids(await list(`&project_id=${s.p.id}&client_id=${s.other.id}`))).toEqual([]);
    expect(ids(await list('&started_from=2026-11-20T00:00:00Z'))).toEqual([s.b.id, s.a.id]);
    expect(ids(await list('&started_to=2026-11-20T09:00:00Z'))).toEqual([s.e.id]);
  });

  it('pages with a cursor bound to the invoice', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.ws.api.get(`/time_entries?invoice_id=${inv}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...ids(page));
      cursor = page.body.has_more ? page.body.next_cursor : undefined;
      if (cursor) {
        for (const query of [`invoice_id=${invoiceId()}`, '', `invoice_id=${inv}&project_id=${s.p.id}`]) {
          expectInvalid(await s.ws.api.get(`/time_entries?${query}&limit=1&cursor=${encodeURIComponent(cursor)}`), ['cursor']);
        }
      }
    } while (cursor);
    expect(seen).toEqual([s.b.id, s.a.id, s.e.id]);
  });

  it("lists nothing for an unknown invoice or another workspace's; a malformed id is a 400 naming invoice_id", async () => {
    expect((await s.ws.api.get(`/time_entries?invoice_id=${invoiceId()}`)).body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    const other = await setup('inv-list-other');
    expect((await other.ws.api.get(`/time_entries?invoice_id=${inv}`)).body.data).toEqual([]);
    for (const bad of ['inv_', 'nope', s.p.id, `${inv}0`, inv.toLowerCase(), '']) {
      const error = expectInvalid(await s.ws.api.get(`/time_entries?invoice_id=${encodeURIComponent(bad)}`), ['invoice_id']);
      expect(error.message).toMatch(/^invoice_id /);
    }
  });
});

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe('GET /time_summaries?invoiced=', () => {
  it('counts only the invoiced time, or only the rest, as the reference does, in zones whose days are not UTC days', async () => {
    const { id: wsId, api } = await workspace('inv-sum');
    const usd = await createClient(api);
    const jpy = await createClient(api, { company_name: 'Yen KK', currency: 'JPY' });
    const web = await createProject(api, usd.id, { hourly_rate: 99.9999 });
    const yen = await createProject(api, jpy.id, { hourly_rate: 1 });
    const owners = [{ project_id: web.id }, { client_id: usd.id, billable_rate: 12.5 }, { project_id: yen.id }, { client_id: jpy.id }];
    const next = random(32);
    // Around local midnights of Kathmandu (+05:45) and St John's (−03:30) in March 2026, and the month's end.
    const instants: number[] = [];
    for (const day of ['2026-03-01', '2026-03-14', '2026-03-31', '2026-04-01']) {
      for (const offsetMinutes of [-345, 210, 0]) for (const delta of [-1, 0, 1, 37]) instants.push(Date.parse(`${day}T00:00:00Z`) + (offsetMinutes + delta) * 60_000);
    }
    const logged: Obj[] = await logTimes(
      api,
      instants.map((t, i) => ({ ...owners[i % owners.length], started_at: new Date(t).toISOString(), duration_minutes: 1 + Math.floor(next() * 300), billable: next() < 0.8 })),
    );
    // Two invoices, each of one client's entries (in batches, several on one totals item).
    const locked = logged.filter(() => next() < 0.5);
    for (const client of [usd, jpy]) {
      const theirs = locked.filter((e) => e.client_id === client.id).map((e) => e.id);
      const inv = invoiceId();
      for (let i = 0; i < theirs.length; i += 5) await lockEntries(wsId, theirs.slice(i, i + 5), inv);
    }
    const entries = await allEntries(api);
    expect(entries.filter((e) => e.invoice_id != null)).toHaveLength(locked.length);
    expect(locked.length).toBeGreaterThan(5);
    expect(locked.length).toBeLessThan(logged.length - 5);
    const currencyOf = (id: string) => (id === usd.id ? 'USD' : 'JPY');
    for (const timezone of ['UTC', 'Asia/Kathmandu', 'America/St_Johns']) {
      for (const group_by of ['client', 'project'] as const) {
        for (const invoiced of ['true', 'false', undefined] as const) {
          const q: SummaryQuery = { from: '2026-03-01', to: '2026-04-02', timezone, group_by, period: 'day', ...(invoiced ? { invoiced } : {}) };
          const expected = referenceSummary(entries, q, currencyOf);
          // Short pages in one zone (paging with the filter), whole ones elsewhere (fewer requests).
          expect(await summaryRows(api, { ...q, limit: timezone === 'Asia/Kathmandu' ? 10 : 100 }), JSON.stringify(q)).toEqual(expected);
          expect(expected.length).toBeGreaterThan(0);
        }
        const period = { from: '2026-03-01', to: '2026-04-02', timezone, group_by, invoiced: 'true' as const, client_id: usd.id };
        expect(await summaryRows(api, period)).toEqual(referenceSummary(entries, period, currencyOf));
      }
    }
    // Released, the time is uninvoiced again at once.
    const usdInvoice = (await api.get(`/time_entries/${locked.find((e) => e.client_id === usd.id)!.id}`)).body.invoice_id as string;
    const released = entries.filter((e) => e.invoice_id === usdInvoice).map((e) => (e as Obj).id as string);
    await releaseEntries(wsId, released, usdInvoice);
    const after = await allEntries(api);
    for (const invoiced of ['true', 'false'] as const) {
      const q: SummaryQuery = { from: '2026-03-01', to: '2026-04-02', timezone: 'Asia/Kathmandu', group_by: 'project', invoiced };
      expect(await summaryRows(api, q)).toEqual(referenceSummary(after, q, currencyOf));
    }
  });

  it('counts an entry stored before the totals when it is locked: in the base levels and the invoiced ones, in one transaction', async () => {
    const s = await setup('inv-uncounted');
    const { dynamo, tableName } = await import('../../shared/data/dynamo.ts');
    const { DeleteCommand, QueryCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keys } = await import('../../shared/data/keys.ts');
    // a and f as the code before the totals stored them: uncounted, in no total (f shares a's totals items).
    for (const entry of [s.a, s.f]) {
      await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: keys.item(s.ws.id, 'TIME_ENTRY', entry.id), UpdateExpression: 'REMOVE counted' }));
    }
    for (const level of ['CLIENT', 'PROJECT'] as const) {
      const items = (await dynamo().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.totalsPartition(s.ws.id, level, '2026-11') } }))).Items ?? [];
      for (const item of items.filter((i) => String(i.SK).endsWith('#20'))) await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    }
    const q: SummaryQuery = { from: '2026-11-01', to: '2026-12-01', group_by: 'project', period: 'day' };
    const uncounted = (await allEntries(s.ws.api)).filter((e) => (e as Obj).id !== s.a.id && (e as Obj).id !== s.f.id);
    expect(await summaryRows(s.ws.api, q)).toEqual(referenceSummary(uncounted, q, () => 'USD'));
    // One batch: a (uncounted) and b (counted) onto the invoice; a's base and invoiced items in the same transaction.
    await lockEntries(s.ws.id, [s.a.id, s.b.id], invoiceId());
    const entries = await allEntries(s.ws.api);
    const withoutF = entries.filter((e) => (e as Obj).id !== s.f.id);
    for (const invoiced of ['true', 'false', undefined] as const) {
      const query = { ...q, ...(invoiced ? { invoiced } : {}) };
      expect(await summaryRows(s.ws.api, query), String(invoiced)).toEqual(referenceSummary(withoutF, query, () => 'USD'));
    }
  });

  it('binds the cursor to invoiced, and refuses any other value than true or false naming it', async () => {
    const s = await setup('inv-sum-cursor');
    await lockEntries(s.ws.id, [s.a.id, s.b.id, s.e.id], invoiceId());
    const base = { from: '2026-11-01', to: '2026-12-01', period: 'day', limit: '1' };
    const first = await s.ws.api.get(`/time_summaries?${new URLSearchParams({ ...base, invoiced: 'true' })}`);
    expect(first.body.has_more).toBe(true);
    for (const changed of [{ invoiced: 'false' }, {}] as Record<string, string>[]) {
      expectInvalid(await s.ws.api.get(`/time_summaries?${new URLSearchParams({ ...base, ...changed, cursor: first.body.next_cursor })}`), ['cursor']);
    }
    for (const invoiced of ['yes', 'TRUE', '1', '']) {
      expectInvalid(await s.ws.api.get(`/time_summaries?${new URLSearchParams({ ...base, invoiced })}`), ['invoiced']);
    }
  });
});

describe('the local table', () => {
  it('gets the indexes declared since it was made, its items moved to their keys, when the stack starts over an existing one (DATA_DIR)', async () => {
    const { TABLE } = await import('../../shared/data/table.ts');
    const { project, entry, indexes, storedProject, storedEntry, pages, storedAgain } = await oldTableMigrated;
    expect(indexes.map((i) => i.IndexName).sort()).toEqual(TABLE.indexes.map((i) => i.name));
    for (const index of TABLE.indexes) {
      const made = indexes.find((i) => i.IndexName === index.name)!;
      expect(made.KeySchema).toEqual([key(index.partitionKey, 'HASH'), key(index.sortKey, 'RANGE')]);
      expect(made.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['data', 'search_text'] });
    }
    // The items hold the keys of today's indexes, and nothing of the old sort keys.
    expect(storedProject).toEqual({
      PK: S('WS#w'), SK: S('PROJECT#prj_1'), GSI1PK: project.GSI1PK, GSI2PK: project.GSI2PK, GSISK: S('PROJECT#prj_1'), GSI5PK: project.GSI3PK, GSI5SK: project.GSI3SK,
    });
    expect(storedEntry).toEqual({ PK: S('WS#w'), SK: S('TIME_ENTRY#te_1'), GSI1PK: entry.GSI1PK, GSI3PK: entry.GSI3PK, GSISK: S(OLD_ENTRY_AT), data: entry.data });
    // Each list finds them in the index that serves it today.
    expect(pages).toEqual({
      GSI5: ['PROJECT#prj_1'],
      GSI2: ['PROJECT#prj_1'],
      GSI3: ['TIME_ENTRY#te_1'],
      GSI1: ['TIME_ENTRY#te_1'],
    });
    // Made again over it: nothing to add or move, nothing fails.
    expect(storedAgain).toHaveProperty('GSISK', S(OLD_ENTRY_AT));
  });
});

const key = (n: string, t: 'HASH' | 'RANGE') => ({ AttributeName: n, KeyType: t });
const S = (value: string) => ({ S: value });
const OLD_ENTRY_AT = 'TIME_ENTRY#2026-11-20T09:00:00.000Z#te_1';

/**
 * A table as the stack made it before GSI4 (each index with a sort key of its own, GSI3 a
 * project's client and status), made again by createTable as `npm start` does over a DATA_DIR:
 * what it then holds, for the test above. DynamoDB Local takes seconds to build or drop an index
 * while using next to no CPU (about 8 s for the eight changes, measured), so this starts with the
 * file, on a table of its own, and waits beside the other tests instead of after them.
 */
async function migrateOldTable() {
  const { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } = await import('@aws-sdk/client-dynamodb');
  const { LOCAL_AWS_ENV, createTable } = await import('../../infra/local/dynamodb.ts');
  const client = new DynamoDBClient({
    endpoint: inject('dynamoEndpoint'),
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  const name = `old-table-${Date.now()}`;
  try {
    const old = ['GSI1', 'GSI2', 'GSI3'];
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['PK', 'SK', ...old.flatMap((i) => [`${i}PK`, `${i}SK`])].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [key('PK', 'HASH'), key('SK', 'RANGE')],
        GlobalSecondaryIndexes: old.map((i) => ({ IndexName: i, KeySchema: [key(`${i}PK`, 'HASH'), key(`${i}SK`, 'RANGE')], Projection: { ProjectionType: 'ALL' } })),
      }),
    );
    const project = { PK: S('WS#w'), SK: S('PROJECT#prj_1'), GSI1PK: S('WS#w#PROJECT#status#ACTIVE'), GSI1SK: S('PROJECT#prj_1'), GSI2PK: S('WS#w#PROJECT#client_id#cli_1'), GSI2SK: S('PROJECT#prj_1'), GSI3PK: S('WS#w#PROJECT#client_id#cli_1'), GSI3SK: S('status#ACTIVE#PROJECT#prj_1') };
    const entry = { PK: S('WS#w'), SK: S('TIME_ENTRY#te_1'), GSI1PK: S('WS#w#TIME_ENTRY'), GSI1SK: S(OLD_ENTRY_AT), GSI3PK: S('WS#w#TIME_ENTRY#client_id#cli_1'), GSI3SK: S(OLD_ENTRY_AT), data: { M: { id: S('te_1') } } };
    for (const Item of [project, entry]) await client.send(new PutItemCommand({ TableName: name, Item }));
    await createTable(client, name);
    const indexes = (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.GlobalSecondaryIndexes ?? [];
    const stored = async (sk: string) => (await client.send(new GetItemCommand({ TableName: name, Key: { PK: S('WS#w'), SK: S(sk) } }))).Item!;
    const storedProject = await stored('PROJECT#prj_1');
    const storedEntry = await stored('TIME_ENTRY#te_1');
    const page = async (index: string, pk: string) =>
      (await client.send(new QueryCommand({ TableName: name, IndexName: index, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': `${index}PK` }, ExpressionAttributeValues: { ':pk': S(pk) } }))).Items?.map((i) => i.SK!.S);
    const pages = {
      GSI5: await page('GSI5', 'WS#w#PROJECT#client_id#cli_1'),
      GSI2: await page('GSI2', 'WS#w#PROJECT#client_id#cli_1'),
      GSI3: await page('GSI3', 'WS#w#TIME_ENTRY#client_id#cli_1'),
      GSI1: await page('GSI1', 'WS#w#TIME_ENTRY'),
    };
    await createTable(client, name);
    const storedAgain = await stored('TIME_ENTRY#te_1');
    return { project, entry, indexes, storedProject, storedEntry, pages, storedAgain };
  } finally {
    await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
    client.destroy();
  }
}
