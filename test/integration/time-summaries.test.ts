/**
 * Time summaries over HTTP (contract, "Money" and "Time summaries"): whole summaries against the
 * brute-force reference of test/support/summaries.ts, in zones with 30- and 45-minute offsets and
 * daylight saving time, every group_by and period, filters and pages; exactness under
 * corrections, moves, deletes, keyed replays and parallel moves; rounding; hostile parameters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createClient, createProject, workspace, type Api } from '../support/api.ts';
import { allEntries, localDate, referenceSummary, summaryRows, type EntryLike, type SummaryQuery } from '../support/summaries.ts';

const ZONES = ['UTC', 'Europe/Paris', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'Australia/Lord_Howe'] as const;
/** Days around 2026's offset changes of those zones, month ends and the year's end. */
const KEY_DATES = ['2026-01-01', '2026-02-01', '2026-03-08', '2026-03-29', '2026-04-05', '2026-05-31', '2026-09-27', '2026-10-04', '2026-10-25', '2026-11-01', '2026-12-31'];

/** The first minute of `date` in `zone`, found by walking minutes (another road than the service's). */
function localMidnight(date: string, zone: string): number {
  for (let t = Date.parse(`${date}T00:00:00Z`) - 15 * 3_600_000; ; t += 60_000) if (localDate(t, zone) === date) return t;
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** The entries logged in batches of 100 (the bulk import's), as a migration would. */
async function logAll(api: Api, bodies: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 100) {
    const r = await api.post('/time_entries/batch', { entries: bodies.slice(i, i + 100) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
}

describe('time summaries against the reference', () => {
  let api: Api;
  let entries: EntryLike[];
  const currencies = new Map<string, string>();
  const currencyOf = (id: string) => currencies.get(id)!;
  const ids: { usd: string; jpy: string; kwd: string; web: string; rush: string; yen: string } = {} as never;

  beforeAll(async () => {
    ({ api } = await workspace('sum'));
    const usd = await createClient(api, { company_name: 'Dollar Co' });
    const jpy = await createClient(api, { company_name: 'Yen KK', currency: 'JPY' });
    const kwd = await createClient(api, { company_name: 'Dinar WLL', currency: 'KWD' });
    for (const c of [usd, jpy, kwd]) currencies.set(c.id, c.currency);
    Object.assign(ids, {
      usd: usd.id,
      jpy: jpy.id,
      kwd: kwd.id,
      web: (await createProject(api, usd.id, { hourly_rate: 99.9999 })).id,
      rush: (await createProject(api, usd.id, { hourly_rate: 0.1 })).id,
      yen: (await createProject(api, jpy.id, { hourly_rate: 1 })).id,
    });
    const unpriced = (await createProject(api, kwd.id, { hourly_rate: null })).id;
    const owners = [{ project_id: ids.web }, { project_id: ids.rush }, { project_id: ids.yen }, { project_id: unpriced }, { client_id: ids.usd }, { client_id: ids.kwd, billable_rate: 0.0123 }];
    const next = random(26);
    const instants: number[] = [];
    for (const zone of ZONES) for (const date of KEY_DATES.filter((_, i) => i % 2 === ZONES.indexOf(zone) % 2)) {
      const midnight = localMidnight(date, zone);
      instants.push(midnight, midnight - 60_000, midnight + 60_000);
    }
    for (let i = 0; i < 60; i++) instants.push(Date.parse(`${KEY_DATES[Math.floor(next() * KEY_DATES.length)]}T00:00:00Z`) + Math.floor((next() - 0.5) * 28 * 60) * 60_000);
    await logAll(
      api,
      instants.map((t, i) => ({
        ...owners[i % owners.length],
        started_at: new Date(t).toISOString(),
        duration_minutes: 1 + Math.floor(next() * 600),
        billable: next() < 0.8,
      })),
    );
    entries = await allEntries(api);
    expect(entries.length).toBe(instants.length);
  });

  it.each(ZONES)('matches the reference in %s, for every group_by and period, page by page', async (timezone) => {
    for (const group_by of ['client', 'project'] as const) {
      for (const period of ['none', 'day', 'week', 'month'] as const) {
        const q: SummaryQuery = { from: '2026-01-01', to: '2027-01-01', timezone, group_by, period };
        // Short pages where rows are few, full ones where they are many: every page boundary kind, in few requests.
        const limit = period === 'day' || period === 'week' ? 100 : 7;
        expect(await summaryRows(api, { ...q, limit }), `${group_by} ${period}`).toEqual(referenceSummary(entries, q, currencyOf));
      }
    }
  });

  it('filters by client, by project, by both, and cuts periods at the range', async () => {
    const cases: SummaryQuery[] = [
      { from: '2026-03-15', to: '2026-10-26', timezone: 'Europe/Paris', period: 'month', client_id: ids.usd },
      { from: '2026-03-15', to: '2026-10-26', timezone: 'Pacific/Chatham', period: 'week', group_by: 'project', client_id: ids.usd },
      { from: '2026-01-01', to: '2027-01-01', timezone: 'Asia/Kathmandu', period: 'day', project_id: ids.web },
      { from: '2026-01-01', to: '2027-01-01', timezone: 'America/St_Johns', group_by: 'project', project_id: ids.yen, client_id: ids.jpy },
      { from: '2026-03-29', to: '2026-03-30', timezone: 'Europe/Paris', group_by: 'project' },
    ];
    // Short pages where the rows are few (paging under each filter), longer ones over a year of days (the same pages, fewer requests).
    for (const q of cases) expect(await summaryRows(api, { ...q, limit: q.period === 'day' ? 25 : 3 }), JSON.stringify(q)).toEqual(referenceSummary(entries, q, currencyOf));
  });

  it('is empty for a project of another client, and for ids of another workspace', async () => {
    const other = await workspace('sum-other');
    const base = 'from=2026-01-01&to=2027-01-01';
    for (const path of [`/time_summaries?${base}&project_id=${ids.web}&client_id=${ids.jpy}`]) {
      expect((await api.get(path)).body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    }
    for (const filter of [`client_id=${ids.usd}`, `project_id=${ids.web}`]) {
      expect((await other.api.get(`/time_summaries?${base}&${filter}`)).body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    }
  });

  it('binds a cursor to every parameter', async () => {
    const first = await api.get('/time_summaries?from=2026-01-01&to=2027-01-01&period=day&limit=2');
    expect(first.body.has_more).toBe(true);
    const base = { from: '2026-01-01', to: '2027-01-01', period: 'day', limit: '2', cursor: first.body.next_cursor as string };
    const changes: Record<string, string>[] = [{ timezone: 'Europe/Paris' }, { group_by: 'project' }, { period: 'week' }, { client_id: ids.usd }, { to: '2026-12-31' }, { from: '2026-01-02' }];
    for (const changed of changes) {
      const r = await api.get(`/time_summaries?${new URLSearchParams({ ...base, ...changed })}`);
      expect(r.status, JSON.stringify(changed)).toBe(400);
      expect(r.body.error.param).toBe('cursor');
    }
    // The page size is not bound: it may change between pages.
    expect((await api.get(`/time_summaries?${new URLSearchParams({ ...base, limit: '5' })}`)).status).toBe(200);
  });
});

describe('a historic offset that is not a whole number of quarter-hours', () => {
  it('reads the entries of the partial quarter-hours at the edges, and only those', async () => {
    const { api } = await workspace('sum-monrovia');
    const c = await createClient(api);
    const p = await createProject(api, c.id, { hourly_rate: 60 });
    // Monrovia was UTC-00:44:30 until 1972: its days start at 00:44:30Z.
    const instants = ['1950-06-01T00:44:29Z', '1950-06-01T00:44:30Z', '1950-06-01T00:30:00Z', '1950-06-01T00:59:59Z', '1950-06-02T00:45:00Z', '1950-06-02T00:44:00Z', '1950-06-03T12:00:00Z'];
    await logAll(api, instants.map((started_at, i) => ({ project_id: p.id, started_at, duration_minutes: 10 + i })));
    const entries = await allEntries(api);
    for (const period of ['day', 'none'] as const) {
      const q: SummaryQuery = { from: '1950-06-01', to: '1950-06-03', timezone: 'Africa/Monrovia', period, group_by: 'project' };
      const rows = await summaryRows(api, q);
      expect(rows).toEqual(referenceSummary(entries, q, () => 'USD'));
      expect(rows.length).toBeGreaterThan(0);
    }
  });

  it('answers ten years of days at once: it reads the entries of an edge only where the totals count time in its quarter-hour', async () => {
    const { api } = await workspace('sum-kathmandu-decade');
    const c = await createClient(api);
    const p = await createProject(api, c.id, { hourly_rate: 60 });
    // Kathmandu was UTC+05:41:16 until 1920: each of its days starts at 18:18:44Z, inside a quarter-hour.
    // It read two edges of every period, even empty ones: 7,300 queries, past the request's deadline (a 503).
    await logAll(api, [
      { project_id: p.id, started_at: '1905-03-01T18:18:00Z', duration_minutes: 11 },
      { project_id: p.id, started_at: '1905-03-01T18:20:00Z', duration_minutes: 13 },
      { project_id: p.id, started_at: '1909-12-31T06:00:00Z', duration_minutes: 17 },
    ]);
    const q: SummaryQuery = { from: '1900-01-01', to: '1910-01-01', timezone: 'Asia/Kathmandu', period: 'day', group_by: 'project' };
    const rows = await summaryRows(api, { ...q, limit: 100 });
    expect(rows).toEqual(referenceSummary(await allEntries(api), q, () => 'USD'));
    expect(rows).toHaveLength(3);
  });
});

describe('exact under change', () => {
  it('counts every log, correction, move, delete and keyed replay once, at once', async () => {
    const { api, token } = await workspace('sum-change');
    const a = await createClient(api, { company_name: 'A' });
    const b = await createClient(api, { company_name: 'B', currency: 'EUR' });
    const pa = await createProject(api, a.id, { hourly_rate: 150 });
    const pb = await createProject(api, b.id, { hourly_rate: 80.5 });
    const logged = [];
    for (let i = 0; i < 12; i++) {
      const r = await api.post('/time_entries', { project_id: i % 2 ? pa.id : pb.id, started_at: `2026-06-${String(10 + i).padStart(2, '0')}T23:50:00Z`, duration_minutes: 30 + i });
      expect(r.status).toBe(201);
      logged.push(r.body);
    }
    const currencyOf = (id: string) => (id === a.id ? 'USD' : 'EUR');
    const q: SummaryQuery = { from: '2026-06-01', to: '2026-07-01', timezone: 'Asia/Kathmandu', group_by: 'project', period: 'day' };
    const check = async () => expect(await summaryRows(api, { ...q, limit: 100 })).toEqual(referenceSummary(await allEntries(api), q, currencyOf));

    // A log takes the project's rate; a later change of the project's rate changes no entry.
    expect(logged[1]!.billable_rate).toBe(150);
    expect((await api.patch(`/projects/${pa.id}`, { hourly_rate: 200 })).status).toBe(200);
    await check();
    // Corrections of every counted field.
    expect((await api.patch(`/time_entries/${logged[0]!.id}`, { duration_minutes: 500 })).status).toBe(200);
    expect((await api.patch(`/time_entries/${logged[2]!.id}`, { started_at: '2026-06-30T18:15:00Z' })).status).toBe(200);
    expect((await api.patch(`/time_entries/${logged[3]!.id}`, { billable: false })).status).toBe(200);
    expect((await api.patch(`/time_entries/${logged[4]!.id}`, { billable_rate: null })).status).toBe(200);
    expect((await api.patch(`/time_entries/${logged[5]!.id}`, { billable_rate: 12.3456, description: 'rate' })).status).toBe(200);
    await check();
    // Moves: to a project of another client (taking its rate), to the client alone (no rate), between clients.
    const moved = await api.patch(`/time_entries/${logged[6]!.id}`, { project_id: pa.id });
    expect(moved.body).toMatchObject({ client_id: a.id, billable_rate: 200 });
    const alone = await api.patch(`/time_entries/${logged[7]!.id}`, { project_id: null });
    expect(alone.body).toMatchObject({ project_id: null, billable_rate: null });
    expect((await api.patch(`/time_entries/${logged[7]!.id}`, { client_id: b.id })).status).toBe(200);
    expect((await api.patch(`/time_entries/${logged[8]!.id}`, { project_id: pb.id, billable_rate: 1 })).body.billable_rate).toBe(1);
    await check();
    // Deletes, and keyed replays of a log, a correction and a delete.
    expect((await api.delete(`/time_entries/${logged[9]!.id}`)).status).toBe(200);
    const keyed = async (method: string, path: string, body?: unknown) => {
      const options = { token, headers: { 'Idempotency-Key': `k-${method}-${path}` }, ...(body === undefined ? {} : { body }) };
      const first = await call(method, `/api/v1${path}`, options);
      const again = await call(method, `/api/v1${path}`, options);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      return first;
    };
    expect((await keyed('POST', '/time_entries', { project_id: pa.id, started_at: '2026-06-20T10:00:00Z', duration_minutes: 45 })).status).toBe(201);
    expect((await keyed('PATCH', `/time_entries/${logged[10]!.id}`, { duration_minutes: 7 })).status).toBe(200);
    expect((await keyed('DELETE', `/time_entries/${logged[11]!.id}`)).status).toBe(200);
    await check();
  });

  it('stays exact under 20 parallel moves and corrections of the same entries', async () => {
    const { api } = await workspace('sum-race');
    const a = await createClient(api, { company_name: 'A' });
    const b = await createClient(api, { company_name: 'B' });
    const projects = [await createProject(api, a.id, { hourly_rate: 10 }), await createProject(api, b.id, { hourly_rate: 20 }), await createProject(api, a.id, { hourly_rate: 30 })];
    const entry = (await api.post('/time_entries', { project_id: projects[0]!.id, started_at: '2026-02-01T00:00:00Z', duration_minutes: 60 })).body;
    const other = (await api.post('/time_entries', { project_id: projects[1]!.id, started_at: '2026-02-01T00:05:00Z', duration_minutes: 30 })).body;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 4 === 3
          ? api.patch(`/time_entries/${other.id}`, { duration_minutes: 10 + i })
          : api.patch(`/time_entries/${entry.id}`, { project_id: projects[i % 3]!.id, duration_minutes: 60 + i }),
      ),
    );
    for (const r of results) expect([200, 503], JSON.stringify(r.body)).toContain(r.status);
    const q: SummaryQuery = { from: '2026-01-01', to: '2026-03-01', group_by: 'project', period: 'month' };
    expect(await summaryRows(api, q)).toEqual(referenceSummary(await allEntries(api), q, () => 'USD'));
  });
});

describe('money', () => {
  it('rounds each row once, half to even, in the currency\'s minor unit, beyond 2^53 minor units', async () => {
    const { api } = await workspace('sum-money');
    const usd = await createClient(api, { company_name: 'Cents' });
    const jpy = await createClient(api, { company_name: 'Yen', currency: 'JPY' });
    const kwd = await createClient(api, { company_name: 'Fils', currency: 'KWD' });
    const log = (client_id: string, minutes: number, rate: number, day = '2026-05-04') =>
      api.post('/time_entries', { client_id, started_at: `${day}T09:00:00Z`, duration_minutes: minutes, billable_rate: rate });
    await log(usd.id, 27, 0.1); // 0.045 → 0.04
    await log(jpy.id, 30, 1); // 0.5 → 0
    await log(jpy.id, 90, 1, '2026-05-05'); // 1.5 → 2
    await log(kwd.id, 9, 0.01); // 0.0015 → 0.002
    const amounts = async (q: string) => (await api.get(`/time_summaries?from=2026-05-01&to=2026-06-01${q}`)).body.data.map((r: any) => [r.currency, r.billable_amount]);
    expect(await amounts('&period=day')).toEqual([['USD', '0.04'], ['JPY', '0'], ['KWD', '0.002'], ['JPY', '2']]);
    // Rounded once per row: 0.5 + 1.5 yen is 2, not 0 + 2.
    expect(await amounts(`&client_id=${jpy.id}`)).toEqual([['JPY', '2']]);

    const big = await createClient(api, { company_name: 'Big', currency: 'KWD' });
    const bodies = Array.from({ length: 55 }, (_, i) => ({ client_id: big.id, started_at: `2027-01-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z`, duration_minutes: 10_080, billable_rate: 1_000_000_000 }));
    await logAll(api, bodies);
    const row = (await api.get(`/time_summaries?from=2027-01-01&to=2027-02-01&client_id=${big.id}`)).body.data[0];
    // 55 × 10,080 min × 1e9 /h / 60 = 9,240,000,000,000 KWD: 9.24e15 fils, past 2^53.
    expect(row).toMatchObject({ minutes: 554_400, billable_amount: '9240000000000.000' });
  });

  it('gives clients a currency fixed at create, and entries the project\'s rate unless sent', async () => {
    const { api } = await workspace('sum-fields');
    const c = await createClient(api);
    expect(c.currency).toBe('USD');
    for (const currency of ['usd', 'ABC', 'US', 12, null]) {
      const r = await api.post('/clients', { company_name: 'X', company_email: 'x@x.test', currency });
      expect(r.status, String(currency)).toBe(400);
      expect(r.body.error.param).toBe('currency');
    }
    const patched = await api.patch(`/clients/${c.id}`, { currency: 'EUR' });
    expect(patched.status).toBe(400);
    expect(patched.body.error.param).toBe('currency');
    const p = await createProject(api, c.id, { hourly_rate: 42.5 });
    expect((await api.post('/time_entries', { project_id: p.id, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5 })).body.billable_rate).toBe(42.5);
    expect((await api.post('/time_entries', { project_id: p.id, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5, billable_rate: null })).body.billable_rate).toBeNull();
    expect((await api.post('/time_entries', { client_id: c.id, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5 })).body.billable_rate).toBeNull();
    for (const billable_rate of [-1, 1_000_000_000.5, 0.00001, '12']) {
      const r = await api.post('/time_entries', { client_id: c.id, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5, billable_rate });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('billable_rate');
    }
  });
});

describe('hostile parameters', () => {
  it('answers 400 naming the parameter, for every out-of-range value', async () => {
    const { api } = await workspace('sum-hostile');
    const cases: [string, string][] = [
      ['to=2026-02-01', 'from'],
      ['from=2026-01-01', 'to'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=2026-1-01&to=2026-03-01', 'from'],
      ['from=1899-12-31&to=1900-01-02', 'from'],
      ['from=2026-01-01&to=2026-01-01', 'to'],
      ['from=2026-01-02&to=2026-01-01', 'to'],
      ['from=2000-01-01&to=2010-01-09', 'to'],
      ['from=2026-01-01&to=2026-02-01&timezone=Mars/Olympus', 'timezone'],
      ['from=2026-01-01&to=2026-02-01&timezone=europe/paris', 'timezone'],
      ['from=2026-01-01&to=2026-02-01&timezone=', 'timezone'],
      ['from=2026-01-01&to=2026-02-01&group_by=week', 'group_by'],
      ['from=2026-01-01&to=2026-02-01&period=year', 'period'],
      ['from=2026-01-01&to=2026-02-01&limit=0', 'limit'],
      ['from=2026-01-01&to=2026-02-01&limit=101', 'limit'],
      ['from=2026-01-01&to=2026-02-01&cursor=abc.def', 'cursor'],
      ['from=2026-01-01&to=2026-02-01&search=x', 'search'],
    ];
    for (const [query, param] of cases) {
      const r = await api.get(`/time_summaries?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.param, query).toBe(param);
    }
    // The range's rule is listed beside the other failing parameters.
    const both = await api.get('/time_summaries?from=2026-02-01&to=2026-01-01&timezone=Mars/Olympus');
    expect(both.body.error.errors.map((e: { param: string }) => e.param).sort()).toEqual(['timezone', 'to']);
    // 3,660 days is the most.
    expect((await api.get('/time_summaries?from=2000-01-01&to=2010-01-08')).status).toBe(200);
  });
});
