/**
 * Lists as CSV (contract, "CSV and bulk import"): an Accept that prefers text/csv gets the same
 * page as RFC 4180 CSV, read back here by Python's csv module: every cell equals the JSON list's
 * field (quotes, commas, line breaks and non-ASCII in text; formula prefixes; null, booleans,
 * numbers, nested values), the next page in Link while has_more and none on the last page, a
 * header row alone for an empty page, a nested list (payments) too.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createClient, createProject, workspace, type Api, type ApiResponse } from '../support/api.ts';
import { eventsWhen } from '../support/events.ts';

let api: Api;
let token: string;
beforeAll(async () => {
  ({ api, token } = await workspace('csv'));
});

/**
 * Python's csv module, as a spreadsheet would read RFC 4180: one python3 for the file rather than
 * one per text (a start through a pyenv shim costs about half a core-second), sent each text as a
 * JSON line and answering its rows as one.
 */
let python: ChildProcessWithoutNullStreams;
let pythonFailure: Error | undefined;
const waiting: { resolve: (rows: string[][]) => void; reject: (error: Error) => void }[] = [];
beforeAll(() => {
  python = spawn('python3', ['-c', 'import csv, io, json, sys\nfor line in sys.stdin.buffer:\n    print(json.dumps(list(csv.reader(io.StringIO(json.loads(line), newline="")))), flush=True)']);
  let stdout = '';
  let stderr = '';
  const fail = (error: Error) => {
    pythonFailure ??= error;
    for (const w of waiting.splice(0)) w.reject(pythonFailure);
  };
  python.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (let end = stdout.indexOf('\n'); end >= 0; end = stdout.indexOf('\n')) {
      waiting.shift()?.resolve(JSON.parse(stdout.slice(0, end)) as string[][]);
      stdout = stdout.slice(end + 1);
    }
  });
  python.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  python.on('error', (error) => fail(new Error(`python3 failed: ${error.message}`)));
  python.stdin.on('error', (error) => fail(new Error(`python3's input: ${error.message}`)));
  python.on('close', (code, signal) => fail(new Error(`python3 exited (${code ?? signal}): ${stderr}`)));
});
afterAll(() => {
  python.stdin.end();
});

/** The rows Python's csv module reads from `text`. */
const pythonRows = (text: string) =>
  new Promise<string[][]>((resolve, reject) => {
    if (pythonFailure) return reject(pythonFailure);
    waiting.push({ resolve, reject });
    python.stdin.write(`${JSON.stringify(text)}\n`);
  });

/** A JSON value as its CSV cell says it (formula-looking text with a leading '). */
const cellOf = (value: unknown) =>
  value === null ? '' : typeof value === 'string' ? (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value) : typeof value === 'object' ? JSON.stringify(value) : String(value);

const csv = (path: string, accept = 'text/csv') => call('GET', `/api/v1${path}`, { token, headers: { Accept: accept } });

describe('lists as CSV', () => {
  it('every cell is the JSON list\'s field, read back by a real CSV parser; the header row is the object\'s fields in order', async () => {
    const names = ['Comma, Inc.', 'Quote "The" Co', '=SUM(A1:A9)', '+1 Widgets', '-Minus', '@Handle', 'Érable Ωμέγα Москва ✓'];
    for (const company_name of names) await createClient(api, { company_name, company_address: 'Line one\r\nLine "two", end', website: null, tps_number: '123456789 RT0001' });
    const json = (await api.get('/clients?limit=100')).body;
    const response = await csv('/clients?limit=100');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('link')).toBeNull();
    const text = response.body as string;
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = await pythonRows(text);
    expect(header).toEqual(Object.keys(json.data[0]));
    expect(rows).toEqual(json.data.map((object: Record<string, unknown>) => header!.map((field) => cellOf(object[field]))));
    // Formula-looking names are prefixed; the others as they are.
    const byName = new Map(rows.map((row) => [row[header!.indexOf('company_name')], row]));
    for (const name of ['=SUM(A1:A9)', '+1 Widgets', '-Minus', '@Handle']) expect(byName.has(`'${name}`), name).toBe(true);
    expect(byName.has('Érable Ωμέγα Москва ✓')).toBe(true);
    // JSON stays the default: no Accept, */*, and a tie.
    for (const accept of ['*/*', 'text/csv, application/json', 'application/json;q=0.9, text/*;q=0.9']) {
      expect((await csv('/clients?limit=1', accept)).headers.get('content-type'), accept).toBe('application/json; charset=utf-8');
    }
    expect((await csv('/clients?limit=1', 'text/*')).headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
  });

  it('gives the next page in Link while has_more, on the request\'s own origin, and none on the last page; an empty page is the header row', async () => {
    const { api: own, token: ownToken } = await workspace('csv-pages');
    const client = await createClient(own, { company_name: 'Paged' });
    for (let i = 0; i < 3; i++) await createProject(own, client.id, { name: `Project ${i}`, hourly_rate: 100.5, status: 'ACTIVE' });
    const pages: string[][][] = [];
    let url: string | undefined = `/api/v1/projects?limit=2&client_id=${client.id}`;
    while (url) {
      const response: ApiResponse = await call('GET', url, { token: ownToken, headers: { Accept: 'text/csv' } });
      expect(response.status).toBe(200);
      pages.push(await pythonRows(response.body as string));
      const link: string | null = response.headers.get('link');
      const next: string | undefined = link === null ? undefined : /^<(.+)>; rel="next"$/.exec(link)?.[1];
      if (link !== null) expect(next, link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/projects\?/);
      url = next === undefined ? undefined : new URL(next).pathname + new URL(next).search;
    }
    expect(pages.map((page) => page.length - 1)).toEqual([2, 1]);
    const json = (await own.get(`/projects?limit=100&client_id=${client.id}`)).body.data;
    const header = pages[0]![0]!;
    expect(pages[1]![0]).toEqual(header);
    expect([...pages[0]!.slice(1), ...pages[1]!.slice(1)]).toEqual(json.map((p: Record<string, unknown>) => header.map((field) => cellOf(p[field]))));
    // A number as JSON writes it.
    expect(pages[0]![1]![header.indexOf('hourly_rate')]).toBe('100.5');
    const empty = await call('GET', '/api/v1/projects?status=CANCELLED', { token: ownToken, headers: { Accept: 'text/csv' } });
    expect(await pythonRows(empty.body as string)).toEqual([header]);
  });

  it('answers a nested list (an invoice\'s payments) as CSV too, amounts as the JSON writes them', async () => {
    const client = await createClient(api, { currency: 'CAD', company_name: 'Payer' });
    const invoice = (await api.post('/invoices', { client_id: client.id, items: [{ description: 'Audit', quantity: 1, unit_price: 100 }] })).body;
    await api.post(`/invoices/${invoice.id}/finalize`, {});
    await api.post(`/invoices/${invoice.id}/payments`, { amount: '40', method: 'cheque', reference: '-12 (formula-looking)' });
    const json = (await api.get(`/invoices/${invoice.id}/payments`)).body.data;
    const [header, ...rows] = await pythonRows((await csv(`/invoices/${invoice.id}/payments`)).body as string);
    expect(header).toEqual(['object', 'id', 'invoice_id', 'amount', 'paid_at', 'method', 'reference', 'workspace_id', 'created_at']);
    expect(rows).toEqual(json.map((p: Record<string, unknown>) => header!.map((field) => cellOf(p[field]))));
    expect(rows[0]![header!.indexOf('amount')]).toBe('40.00');
    expect(rows[0]![header!.indexOf('reference')]).toBe("'-12 (formula-looking)");
  });

  it('answers the billing runs and a run\'s results too: nested arrays and a result\'s error as JSON text', async () => {
    const { api: own, token: ownToken } = await workspace('csv-runs');
    const unpriced = await createClient(own, { company_name: 'Unpriced, "Inc"' });
    const project = await createProject(own, unpriced.id, { billing_type: 'Weekly', hourly_rate: null });
    await own.post('/time_entries', { project_id: project.id, started_at: '2026-10-05T10:00:00Z', duration_minutes: 30 });
    const idle = await createClient(own, { company_name: 'Idle' });
    const run = (await own.post('/billing_runs', { from: '2026-10-01', to: '2026-11-01', billing_types: ['Weekly', 'Monthly'] })).body;
    let done = run;
    for (let i = 0; i < 300 && done.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = (await own.get(`/billing_runs/${run.id}`)).body;
    }
    const ownCsv = (path: string) => call('GET', `/api/v1${path}`, { token: ownToken, headers: { Accept: 'text/csv' } });
    for (const path of ['/billing_runs', `/billing_runs/${run.id}/results`]) {
      const json = (await own.get(path)).body.data as Record<string, unknown>[];
      const [header, ...rows] = await pythonRows((await ownCsv(path)).body as string);
      expect(rows, path).toEqual(json.map((row) => header!.map((field) => cellOf(row[field]))));
      expect(rows.length, path).toBeGreaterThan(0);
    }
    const [header, ...rows] = await pythonRows((await ownCsv(`/billing_runs/${run.id}/results`)).body as string);
    expect(header).toEqual(['object', 'client_id', 'outcome', 'invoice_id', 'error', 'workspace_id']);
    const byClient = Object.fromEntries(rows.map((row) => [row[1], row]));
    expect(JSON.parse(byClient[unpriced.id]![4]!)).toMatchObject({ type: 'unpriced_time' });
    expect(byClient[idle.id]!.slice(2, 5)).toEqual(['nothing_to_invoice', '', '']);
    const [runHeader, runRow] = await pythonRows((await ownCsv('/billing_runs')).body as string);
    expect(JSON.parse(runRow![runHeader!.indexOf('billing_types')]!)).toEqual(['Weekly', 'Monthly']);
  });

  it('answers the feed and the summaries too: an event\'s data in two columns, always both; a summary\'s by its group_by and period, an empty page its header row', async () => {
    const { api: own, token: ownToken } = await workspace('csv-feed');
    const client = await createClient(own, { company_name: 'Fed' });
    await own.patch(`/clients/${client.id}`, { company_name: 'Fed, Renamed' });
    const project = await createProject(own, client.id, { name: 'Hours', hourly_rate: 80 });
    await own.post('/time_entries', { project_id: project.id, started_at: '2026-11-03T10:00:00Z', duration_minutes: 90 });
    const events = (await eventsWhen(own, 4)) as Record<string, any>[];
    const [header, ...rows] = await pythonRows((await call('GET', '/api/v1/events?limit=100', { token: ownToken, headers: { Accept: 'text/csv' } })).body as string);
    expect(header).toEqual(['object', 'id', 'type', 'created_at', 'workspace_id', 'request_id', 'data.object', 'data.previous_attributes']);
    const newestFirst = [...events].reverse();
    expect(rows).toEqual(newestFirst.map((e) => [e.object, e.id, e.type, e.created_at, e.workspace_id, e.request_id ?? '', JSON.stringify(e.data.object), e.data.previous_attributes ? JSON.stringify(e.data.previous_attributes) : '']));
    const summary = (query: string) => call('GET', `/api/v1/time_summaries?from=2026-11-01&to=2026-12-01&${query}`, { token: ownToken, headers: { Accept: 'text/csv' } });
    const [byProject, ...projectRows] = await pythonRows((await summary('group_by=project&period=week')).body as string);
    expect(byProject).toEqual(['object', 'client_id', 'project_id', 'period_start', 'currency', 'minutes', 'billable_minutes', 'billable_amount', 'unpriced_billable_minutes']);
    expect(projectRows).toEqual([['time_summary', client.id, project.id, '2026-11-02', 'USD', '90', '90', '120.00', '0']]);
    expect(await pythonRows((await summary('client_id=cli_01ARZ3NDEKTSV4RRFFQ69G5FAV')).body as string)).toEqual([
      ['object', 'client_id', 'currency', 'minutes', 'billable_minutes', 'billable_amount', 'unpriced_billable_minutes'],
    ]);
  });
});
