/**
 * Billing runs over HTTP on the local stack (contract, "Billing runs"; decision 0033): a run over
 * 30 clients of mixed billing types ends with each client's outcome as `POST /invoices` would have
 * answered it for that client alone (an identical twin workspace asks it client by client), a
 * second run over the same period invoices nobody, runs started together in one workspace run one
 * at a time in order, and a start's refusals change nothing.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { apiFor, createClient, createProject, logTimes, token, workspace, type Api } from '../support/api.ts';

type Obj = Record<string, any>;

const MONTH = { from: '2026-10-01', to: '2026-11-01' };

/** Polls the run until it is completed (the local queue works it in the background). */
async function completed(api: Api, runId: string): Promise<Obj> {
  for (let i = 0; i < 600; i++) {
    const run = await api.get(`/billing_runs/${runId}`);
    expect(run.status).toBe(200);
    if (run.body.status === 'completed') return run.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`billing run ${runId} did not complete`);
}

/** Every row of a run's results, following the cursor. */
async function resultsOf(api: Api, runId: string, limit = 100): Promise<Obj[]> {
  const rows: Obj[] = [];
  let cursor: string | null = null;
  do {
    const page: Obj = await api.get(`/billing_runs/${runId}/results?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    rows.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return rows;
}

/**
 * The kth client's setup (k = 0..29), the same in any workspace: time and materials with rates,
 * a Retainer, a ProjectBased project, time without a rate (unpriced), time outside the month,
 * a client with nothing, time without a project.
 */
async function clientOf(api: Api, k: number): Promise<string> {
  const client = await createClient(api, { company_name: `Client ${String(k).padStart(2, '0')}` });
  const entries: Obj[] = [];
  const at = (day: number) => `2026-10-${String(day).padStart(2, '0')}T10:00:00Z`;
  switch (k % 6) {
    case 0: {
      const p = await createProject(api, client.id, { billing_type: 'Monthly', hourly_rate: 100 + k });
      entries.push({ project_id: p.id, started_at: at(3), duration_minutes: 60 + k });
      break;
    }
    case 1: {
      await createProject(api, client.id, { billing_type: 'Retainer', amount: 500, interval_count: 1, interval_unit: 'Month', start_date: '2026-01-01T00:00:00Z' });
      break;
    }
    case 2: {
      const p = await createProject(api, client.id, { billing_type: 'Weekly', hourly_rate: null });
      entries.push({ project_id: p.id, started_at: at(5), duration_minutes: 30 }); // no rate: unpriced_time
      break;
    }
    case 3: {
      const p = await createProject(api, client.id, { billing_type: 'Monthly', hourly_rate: 80 });
      entries.push({ project_id: p.id, started_at: '2026-11-03T10:00:00Z', duration_minutes: 45 }); // outside the month
      break;
    }
    case 4:
      break; // nothing at all
    case 5:
      entries.push({ client_id: client.id, started_at: at(7), duration_minutes: 90, billable_rate: 120 }); // time without a project
      break;
  }
  if (entries.length > 0) await logTimes(api, entries);
  return client.id;
}

describe('a billing run over 30 clients of mixed billing types', () => {
  it("gives each client the outcome POST /invoices gives it alone, makes each invoice once, and a second run invoices nobody", async () => {
    const [run, twin] = await Promise.all([workspace('brun'), workspace('brun-twin')]);
    const runClients: string[] = [];
    const twinClients: string[] = [];
    for (let k = 0; k < 30; k += 6) {
      const batch = Array.from({ length: 6 }, (_, i) => k + i);
      runClients.push(...(await Promise.all(batch.map((i) => clientOf(run.api, i)))));
      twinClients.push(...(await Promise.all(batch.map((i) => clientOf(twin.api, i)))));
    }
    const started = await run.api.post('/billing_runs', { ...MONTH, timezone: 'America/Toronto' });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/api/v1/billing_runs/${started.body.id}`);
    expect(started.body).toMatchObject({ object: 'billing_run', clients_total: 30, billing_types: null, client_ids: null, timezone: 'America/Toronto', ...MONTH });
    expect(['queued', 'running']).toContain(started.body.status);

    // The reference: each client of the twin invoiced alone.
    const expected = await Promise.all(
      twinClients.map(async (clientId) => {
        const made = await twin.api.post('/invoices', { client_id: clientId, ...MONTH, timezone: 'America/Toronto' });
        return made.status === 201 ? { outcome: 'invoiced', total: made.body.total, lines: made.body.lines.length } : { outcome: made.body.error.type === 'nothing_to_invoice' ? 'nothing_to_invoice' : 'failed', type: made.body.error.type };
      }),
    );

    const done = await completed(run.api, started.body.id);
    const invoiced = expected.filter((e) => e.outcome === 'invoiced').length;
    expect(done).toMatchObject({ clients_total: 30, clients_done: 30, invoices_created: invoiced });
    expect(done.completed_at).toEqual(expect.any(String));
    const rows = await resultsOf(run.api, started.body.id, 7);
    expect(rows.map((r) => r.client_id)).toEqual([...runClients].sort());
    for (const row of rows) {
      const k = runClients.indexOf(row.client_id);
      const want = expected[k]!;
      expect(row.outcome, `client ${k}`).toBe(want.outcome);
      if (want.outcome === 'invoiced') {
        const invoice = await run.api.get(`/invoices/${row.invoice_id}`);
        expect(invoice.body).toMatchObject({ client_id: row.client_id, status: 'draft', billing_run_id: started.body.id, total: want.total });
        expect(invoice.body.lines).toHaveLength(want.lines!);
        expect(row.error).toBeNull();
      } else if (want.outcome === 'failed') {
        expect(row.error.type).toBe(want.type);
        expect(row.invoice_id).toBeNull();
      } else expect(row).toMatchObject({ invoice_id: null, error: null });
    }
    expect(new Set(expected.filter((e) => e.outcome === 'failed').map((e) => e.type))).toEqual(new Set(['unpriced_time']));
    // A run's invoices: listed by its id, each made once.
    const listed = await run.api.get(`/invoices?billing_run_id=${started.body.id}&limit=100`);
    expect(listed.body.data.map((i: Obj) => i.id).sort()).toEqual(rows.filter((r) => r.outcome === 'invoiced').map((r) => r.invoice_id).sort());

    // The same period again: that time is locked and those fees charged.
    const again = await run.api.post('/billing_runs', MONTH.from ? { ...MONTH, timezone: 'America/Toronto' } : {});
    const second = await completed(run.api, again.body.id);
    expect(second).toMatchObject({ clients_done: 30, invoices_created: 0 });
    const secondRows = await resultsOf(run.api, again.body.id);
    expect(secondRows.filter((r) => r.outcome === 'invoiced')).toEqual([]);
  });
});

describe('one run at a time in a workspace', () => {
  it('runs started together are queued and complete in the order they were created; billing_types and client_ids select', async () => {
    const { api } = await workspace('brun-lane');
    const weekly = await createClient(api);
    const monthly = await createClient(api);
    const [w, m] = await Promise.all([
      createProject(api, weekly.id, { billing_type: 'Weekly', hourly_rate: 50 }),
      createProject(api, monthly.id, { billing_type: 'Monthly', hourly_rate: 70 }),
    ]);
    await logTimes(api, [
      { project_id: w.id, started_at: '2026-10-02T09:00:00Z', duration_minutes: 60 },
      { project_id: m.id, started_at: '2026-10-02T09:00:00Z', duration_minutes: 60 },
    ]);
    const first = await api.post('/billing_runs', { ...MONTH, billing_types: ['Weekly'] });
    const second = await api.post('/billing_runs', { ...MONTH, client_ids: [monthly.id, weekly.id] });
    expect(second.body.status).toBe('queued');
    expect(second.body).toMatchObject({ clients_total: 2, client_ids: [monthly.id, weekly.id] });
    const [a, b] = [await completed(api, first.body.id), await completed(api, second.body.id)];
    expect(a.completed_at <= b.completed_at).toBe(true);
    const byClient = async (id: string) => Object.fromEntries((await resultsOf(api, id)).map((r) => [r.client_id, r.outcome]));
    expect(await byClient(first.body.id)).toEqual({ [weekly.id]: 'invoiced', [monthly.id]: 'nothing_to_invoice' });
    // The Weekly client's time is on the first run's invoice: the second finds only the Monthly client's.
    expect(await byClient(second.body.id)).toEqual({ [weekly.id]: 'nothing_to_invoice', [monthly.id]: 'invoiced' });
    const runs = await api.get('/billing_runs');
    expect(runs.body.data.map((r: Obj) => r.id)).toEqual([second.body.id, first.body.id]);
  });

  it('refuses a start that names a client the workspace does not have, or breaks a field rule, starting nothing', async () => {
    const { api } = await workspace('brun-refused');
    const client = await createClient(api);
    const unknown = await api.post('/billing_runs', { ...MONTH, client_ids: [client.id, 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('client_ids');
    const bad = await api.post('/billing_runs', { from: '2026-11-01', to: '2026-10-01', billing_types: ['Weekly', 'Weekly'], client_ids: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors.map((e: Obj) => e.param).sort()).toEqual(['billing_types', 'client_ids', 'to']);
    expect((await api.get('/billing_runs')).body.data).toEqual([]);
  });
});

/** A sweep of the billing schedules at `at`, as the local stack runs it (`npm run billing-schedule` posts the same). */
async function sweep(at: string): Promise<Obj[]> {
  const response = await fetch(`${inject('baseUrl')}/_local/billing-schedule`, { method: 'POST', body: JSON.stringify({ at }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { started: Obj[] }).started;
}

describe('scheduled runs (auto_billing)', () => {
  it('need invoices:write to turn on; start the runs due on the local day, once per type and day, even swept twice', async () => {
    const { id, api } = await workspace('brun-auto');
    const profileOnly = apiFor(await token(id, ['business_profile:read', 'business_profile:write']));
    const refused = await profileOnly.patch('/business_profile', { auto_billing: true, company_name: 'Acme' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'insufficient_scope' });
    expect((await api.get('/business_profile')).body).toMatchObject({ auto_billing: false, billing_timezone: 'UTC', company_name: null });
    const on = await api.patch('/business_profile', { auto_billing: true, billing_timezone: 'America/Toronto' });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ auto_billing: true, billing_timezone: 'America/Toronto' });
    const mine = (runs: Obj[]) => runs.filter((r) => r.workspace_id === id).map((r) => `${r.billing_types.join()} ${r.from}..${r.to}`);

    // 03:30 UTC on June 1st is still Sunday May 31st in Toronto: the Retainer run of the day before.
    expect(mine(await sweep('2026-06-01T03:30:00Z'))).toEqual(['Retainer 2026-05-30..2026-05-31']);
    // An hour later it is Monday June 1st there: the week, the half month, the month and the day before.
    const monday = '2026-06-01T04:30:00Z';
    expect(mine(await sweep(monday))).toEqual([
      'Weekly 2026-05-25..2026-06-01',
      'BiMonthly 2026-05-16..2026-06-01',
      'Monthly 2026-05-01..2026-06-01',
      'Retainer 2026-05-31..2026-06-01',
    ]);
    // The same instant twice, and later that day: nothing more.
    const [again, later] = await Promise.all([sweep(monday), sweep('2026-06-01T22:00:00Z')]);
    expect([...mine(again), ...mine(later)]).toEqual([]);
    // The 16th (a Tuesday), through the command a developer runs.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/billing-schedule.ts', '--at', '2026-06-16T12:00:00Z'], {
      env: { ...process.env, PORT: new URL(inject('baseUrl')).port },
    });
    expect(stdout.split('\n').filter((line) => line.startsWith(id)).map((line) => line.split(' ').slice(1, 3).join(' '))).toEqual([
      'BiMonthly 2026-06-01..2026-06-16',
      'Retainer 2026-06-15..2026-06-16',
    ]);
    const runs = (await api.get('/billing_runs?limit=100')).body.data as Obj[];
    expect(runs).toHaveLength(7);
    expect(runs.every((r) => r.timezone === 'America/Toronto' && r.client_ids === null)).toBe(true);
    // Off: no more runs.
    await api.patch('/business_profile', { auto_billing: false });
    expect(mine(await sweep('2026-06-17T12:00:00Z'))).toEqual([]);
    for (const run of runs) await completed(api, run.id);
  });
});
