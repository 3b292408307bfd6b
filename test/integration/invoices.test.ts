/**
 * Invoices over HTTP (contract, "Invoices"): lines and totals against a reference computed here in
 * integers, zones where 00:30 local is the previous UTC day, refusals that change nothing, locks,
 * every transition and every refused one, gapless numbers under parallel finalizes, release by
 * delete and by void then invoiced again with current values, and races with edits and creates.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, logTime, logTimes, workspace, type Api } from '../support/api.ts';

/** Decimal spelling → integer of 1/10^places, never through a binary float's arithmetic. */
const units = (value: number, places: number) => {
  const [whole, fraction = ''] = String(value).split('.');
  return BigInt(whole!) * 10n ** BigInt(places) + BigInt(fraction.padEnd(places, '0'));
};
const halfEven = (n: bigint, d: bigint) => {
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return q;
};
/** A tax's rounding: half a minor unit or more rounds up (contract, "Taxes"). */
const halfUp = (n: bigint, d: bigint) => (n * 2n + d) / (d * 2n);
const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, KWD: 3 };
const text = (minor: bigint, currency: string) => {
  const digits = DIGITS[currency]!;
  const s = minor.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
};
/** A line's amount in minor units: minutes × rate / 60, rounded once, half to even. */
const lineMinor = (minutes: number, rate: number, currency: string) => halfEven(BigInt(minutes) * units(rate, 4) * 10n ** BigInt(DIGITS[currency]!), 60n * 10_000n);

interface Logged {
  id: string;
  project_id: string | null;
  billable_rate: number | null;
  duration_minutes: number;
  billable: boolean;
}

/** The invoice the reference expects for these entries. */
function expected(entries: Logged[], currency: string, discountRate: number, taxRate: number) {
  const groups = new Map<string, { project_id: string | null; billable_rate: number; minutes: number; time_entry_count: number }>();
  for (const e of entries.filter((x) => x.billable)) {
    const key = `${e.project_id}|${e.billable_rate}`;
    const g = groups.get(key) ?? { project_id: e.project_id, billable_rate: e.billable_rate!, minutes: 0, time_entry_count: 0 };
    g.minutes += e.duration_minutes;
    g.time_entry_count += 1;
    groups.set(key, g);
  }
  const lines = [...groups.values()].sort((a, b) =>
    a.project_id === b.project_id ? a.billable_rate - b.billable_rate : a.project_id === null ? -1 : b.project_id === null ? 1 : a.project_id < b.project_id ? -1 : 1,
  );
  const subtotal = lines.reduce((sum, l) => sum + lineMinor(l.minutes, l.billable_rate, currency), 0n);
  const discount = halfEven(subtotal * units(discountRate, 3), 100_000n);
  const tax = halfUp((subtotal - discount) * units(taxRate, 3), 100_000n);
  return {
    lines: lines.map((l) => ({ ...l, amount: text(lineMinor(l.minutes, l.billable_rate, currency), currency) })),
    subtotal: text(subtotal, currency),
    discount_amount: text(discount, currency),
    tax_amount: text(tax, currency),
    total: text(subtotal - discount + tax, currency),
  };
}

async function log(api: Api, body: Record<string, unknown>): Promise<Logged> {
  const e = await logTime(api, body);
  return { id: e.id, project_id: e.project_id, billable_rate: e.billable_rate, duration_minutes: e.duration_minutes, billable: e.billable };
}

const post = (api: Api, path: string, body?: unknown) => (body === undefined ? callRaw(api, 'POST', path) : api.post(path, body));
let tokenOf: (api: Api) => string;
const callRaw = (api: Api, method: string, path: string, headers: Record<string, string> = {}) => call(method, `/api/v1${path}`, { token: tokenOf(api), headers });

describe('invoices', () => {
  let api: Api;
  const tokens = new Map<Api, string>();

  beforeAll(async () => {
    const ws = await workspace('inv');
    api = ws.api;
    tokens.set(api, ws.token);
    tokenOf = (a) => tokens.get(a)!;
  });

  async function fresh() {
    const ws = await workspace('inv');
    tokens.set(ws.api, ws.token);
    return ws.api;
  }

  it('makes lines and totals exactly: projects and rates, time without a project, discount then tax, each rounded once half to even', async () => {
    const client = await createClient(api, { company_name: 'Lines Co' });
    const web = await createProject(api, client.id, { name: 'Web', hourly_rate: 99.9999 });
    const app = await createProject(api, client.id, { name: 'App', hourly_rate: 0.1 });
    const entries = [
      await log(api, { project_id: web.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 7 }),
      await log(api, { project_id: web.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 53, billable_rate: 120 }),
      await log(api, { project_id: web.id, started_at: '2026-11-04T09:00:00Z', duration_minutes: 61 }),
      await log(api, { project_id: app.id, started_at: '2026-11-05T09:00:00Z', duration_minutes: 3 }), // 0.005: half of a cent
      await log(api, { client_id: client.id, started_at: '2026-11-06T09:00:00Z', duration_minutes: 45, billable_rate: 80.0001 }),
      await log(api, { project_id: web.id, started_at: '2026-11-07T09:00:00Z', duration_minutes: 30, billable: false }),
    ];
    const outside = await log(api, { project_id: web.id, started_at: '2026-12-01T00:00:00Z', duration_minutes: 30 });
    const created = await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', discount_rate: 12.5, tax_rate: 19.625, memo: 'November' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const inv = created.body;
    const want = expected(entries, 'USD', 12.5, 19.625);
    expect(inv).toMatchObject({ object: 'invoice', status: 'draft', number: null, currency: 'USD', timezone: 'UTC', period_start: '2026-11-01', period_end: '2026-12-01', project_ids: null, time_entry_count: 5, memo: 'November', ...want });
    expect(inv.lines.map((l: { description: string }) => l.description)).toEqual(
      want.lines.map((l) => (l.project_id === null ? 'Lines Co' : l.project_id === web.id ? 'Web' : 'App')),
    );
    expect(created.headers.get('location')).toBe(`/api/v1/invoices/${inv.id}`);
    expect((await api.get(`/invoices/${inv.id}`)).body).toEqual(inv);
    // Locked: the entries name it; the non-billable one and the one outside do not.
    for (const e of entries) expect((await api.get(`/time_entries/${e.id}`)).body.invoice_id).toBe(e.billable ? inv.id : null);
    expect((await api.get(`/time_entries/${outside.id}`)).body.invoice_id).toBeNull();
    // Nothing left to invoice in that range.
    const again = await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('nothing_to_invoice');
  });

  it('rounds in the minor unit of the client: JPY and KWD', async () => {
    for (const [currency, rate, minutes] of [['JPY', 1.5, 21], ['KWD', 0.0123, 7]] as const) {
      const client = await createClient(api, { company_name: `${currency} Co`, currency });
      const p = await createProject(api, client.id, { hourly_rate: rate });
      const entries = [await log(api, { project_id: p.id, started_at: '2026-10-10T10:00:00Z', duration_minutes: minutes }), await log(api, { project_id: p.id, started_at: '2026-10-11T10:00:00Z', duration_minutes: 1 })];
      const created = await api.post('/invoices', { client_id: client.id, from: '2026-10-01', to: '2026-11-01', tax_rate: 7.5 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ currency, ...expected(entries, currency, 0, 7.5) });
    }
  });

  it('counts an entry in the day of the zone it starts in: 00:30 in Paris is the previous UTC day', async () => {
    const client = await createClient(api, { company_name: 'Zone Co' });
    const p = await createProject(api, client.id, { hourly_rate: 60 });
    // 2026-11-01T00:30 in Paris (UTC+1) is 2026-10-31T23:30Z.
    const early = await log(api, { project_id: p.id, started_at: '2026-10-31T23:30:00Z', duration_minutes: 10 });
    const utcOnly = await log(api, { project_id: p.id, started_at: '2026-11-30T23:30:00Z', duration_minutes: 20 }); // Dec 1st in Paris
    const paris = await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris' });
    expect(paris.status, JSON.stringify(paris.body)).toBe(201);
    expect(paris.body).toMatchObject({ time_entry_count: 1, timezone: 'Europe/Paris', lines: [{ minutes: 10 }] });
    expect((await api.get(`/time_entries/${early.id}`)).body.invoice_id).toBe(paris.body.id);
    const utc = await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect(utc.status).toBe(201);
    expect(utc.body).toMatchObject({ time_entry_count: 1, lines: [{ minutes: 20 }] });
    expect((await api.get(`/time_entries/${utcOnly.id}`)).body.invoice_id).toBe(utc.body.id);
  });

  it('refuses, changing nothing: no time, unpriced time, ranges, foreign and unknown ids, fields out of range', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Refused Co' });
    const other = await createClient(a, { company_name: 'Other Co' });
    const otherProject = await createProject(a, other.id, { hourly_rate: 10 });
    const unpricedProject = await createProject(a, client.id, { hourly_rate: null });
    const nothing = await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect([nothing.status, nothing.body.error.type]).toEqual([409, 'nothing_to_invoice']);
    const u1 = await log(a, { project_id: unpricedProject.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30 });
    await log(a, { project_id: unpricedProject.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 30 });
    const unpriced = await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect([unpriced.status, unpriced.body.error.type]).toEqual([409, 'unpriced_time']);
    expect(unpriced.body.error.message).toContain('2 billable time entries');
    expect(unpriced.body.error.message).toMatch(/te_/);
    expect((await a.get(`/time_entries/${u1.id}`)).body.invoice_id).toBeNull();
    const refusals: [Record<string, unknown>, string][] = [
      [{ client_id: client.id, from: '2026-12-01', to: '2026-11-01' }, 'to'],
      [{ client_id: client.id, from: '2026-01-01', to: '2036-12-01' }, 'to'],
      [{ client_id: client.id, from: '2026-02-30', to: '2026-03-01' }, 'from'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', timezone: 'Mars/Olympus' }, 'timezone'],
      // The runtime would take it; an invoice keeps its zone, and Java's or Python's zone database would not know it.
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', timezone: 'europe/paris' }, 'timezone'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', project_ids: [otherProject.id] }, 'project_ids'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', project_ids: [] }, 'project_ids'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', discount_rate: 100.5 }, 'discount_rate'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', tax_rate: 1.2345 }, 'tax_rate'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', memo: 'x'.repeat(2001) }, 'memo'],
      [{ client_id: client.id, from: '2026-11-01', to: '2026-12-01', number: 'INV-000001' }, 'number'],
      [{ client_id: 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', from: '2026-11-01', to: '2026-12-01' }, 'client_id'],
    ];
    for (const [body, param] of refusals) {
      const r = await a.post('/invoices', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.errors.map((e: { param: string }) => e.param)).toContain(param);
    }
    // Another workspace's client is unknown here.
    const b = await fresh();
    const foreign = await b.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect([foreign.status, foreign.body.error.param]).toEqual([400, 'client_id']);
    expect((await a.get('/invoices')).body.data).toEqual([]);
    expect((await a.get(`/clients/${client.id}`)).status).toBe(200);
    // No invoice was counted on the client the refused creates named.
    expect((await a.delete(`/projects/${otherProject.id}`)).status).toBe(200);
    expect((await a.delete(`/clients/${other.id}`)).status).toBe(200);
  });

  it('takes only the projects named, and locks what it takes: an invoiced entry cannot change or go', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Lock Co' });
    const p1 = await createProject(a, client.id, { hourly_rate: 50 });
    const p2 = await createProject(a, client.id, { hourly_rate: 70 });
    const e1 = await log(a, { project_id: p1.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30 });
    const e2 = await log(a, { project_id: p2.id, started_at: '2026-11-02T10:00:00Z', duration_minutes: 30 });
    const inv = (await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', project_ids: [p1.id] })).body;
    expect(inv).toMatchObject({ project_ids: [p1.id], time_entry_count: 1, lines: [{ project_id: p1.id, minutes: 30 }] });
    expect((await a.get(`/time_entries/${e2.id}`)).body.invoice_id).toBeNull();
    const patch = await a.patch(`/time_entries/${e1.id}`, { duration_minutes: 45 });
    expect([patch.status, patch.body.error.type]).toEqual([409, 'time_entry_invoiced']);
    const move = await a.patch(`/time_entries/${e1.id}`, { project_id: p2.id });
    expect(move.status).toBe(409);
    const del = await a.delete(`/time_entries/${e1.id}`);
    expect([del.status, del.body.error.type]).toEqual([409, 'time_entry_invoiced']);
    expect((await a.get(`/time_entries/${e1.id}`)).body).toMatchObject({ duration_minutes: 30, project_id: p1.id, invoice_id: inv.id });
    // The client has an invoice: it cannot be deleted.
    expect((await a.delete(`/clients/${client.id}`)).status).toBe(409);
  });

  it('walks the lifecycle: every transition, every refused one, with bodies optional', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Life Co' });
    const p = await createProject(a, client.id, { hourly_rate: 100 });
    const entry = await log(a, { project_id: p.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 90 });
    const draft = (await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', timezone: 'Asia/Kathmandu' })).body;
    expect(draft.total).toBe('150.00');
    // Draft: pay and void refused; PATCH changes terms and totals follow.
    for (const step of ['pay', 'void']) {
      const r = await post(a, `/invoices/${draft.id}/${step}`);
      expect([r.status, r.body.error.type], step).toEqual([409, 'invalid_state']);
      expect(r.body.error.message).toContain('draft');
    }
    const patched = await a.patch(`/invoices/${draft.id}`, { discount_rate: 10, tax_rate: 20, purchase_order: 'PO-7' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ subtotal: '150.00', discount_amount: '15.00', tax_amount: '27.00', total: '162.00', purchase_order: 'PO-7' });
    expect((await a.patch(`/invoices/${draft.id}`, { lines: [] })).status).toBe(400);
    expect((await a.patch(`/invoices/${draft.id}`, { status: 'paid' })).body.error.param).toBe('status');
    // Finalize with no body, no Content-Type: today in the zone, due 30 days later, the first number.
    const finalized = await post(a, `/invoices/${draft.id}/finalize`);
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kathmandu' }).format(new Date());
    expect(finalized.body).toMatchObject({ status: 'open', number: 'INV-000001', issue_date: today });
    expect(Date.parse(finalized.body.due_date) - Date.parse(today)).toBe(30 * 86_400_000);
    expect(finalized.headers.get('etag')).toBeTruthy();
    // An empty PATCH too: only a draft takes one.
    for (const [method, path, body] of [['PATCH', '', { memo: 'x' }], ['PATCH', '', {}], ['DELETE', '', undefined], ['POST', '/finalize', {}]] as const) {
      const r = method === 'PATCH' ? await a.patch(`/invoices/${draft.id}${path}`, body) : method === 'DELETE' ? await a.delete(`/invoices/${draft.id}`) : await a.post(`/invoices/${draft.id}${path}`, body);
      expect([r.status, r.body.error.type], `${method} ${path}`).toEqual([409, 'invalid_state']);
      expect(r.body.error.message).toContain('open');
    }
    expect((await a.post(`/invoices/${draft.id}/pay`, { paid_at: '2999-01-01T00:00:00Z' })).body.error.param).toBe('paid_at');
    expect((await a.post(`/invoices/${draft.id}/pay`, { amount: 1 })).status).toBe(400);
    // Not before it was finalized (nor the start of its issue date): its finalized_at, as a time at +01:00.
    const finalizedAt = Date.parse(finalized.body.finalized_at);
    const paid = await a.post(`/invoices/${draft.id}/pay`, { paid_at: new Date(finalizedAt + 3_600_000).toISOString().replace('Z', '+01:00') });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', paid_at: finalized.body.finalized_at, amount_paid: paid.body.total, amount_due: '0.00' });
    for (const step of ['finalize', 'pay', 'void']) expect((await post(a, `/invoices/${draft.id}/${step}`)).body.error.type).toBe('invalid_state');
    // The entry stays locked on a paid invoice.
    expect((await a.get(`/time_entries/${entry.id}`)).body.invoice_id).toBe(draft.id);
    // Lists by status and client; unknown action paths are 404.
    expect((await a.get(`/invoices?status=paid&client_id=${client.id}`)).body.data.map((i: { id: string }) => i.id)).toEqual([draft.id]);
    expect((await a.get('/invoices?status=draft')).body.data).toEqual([]);
    expect((await post(a, `/invoices/${draft.id}/refund`)).status).toBe(404);
    expect((await a.get('/invoices?status=unknown')).status).toBe(400);
  });

  it('releases by delete and by void; released time is invoiced again with its current values', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Release Co' });
    const p = await createProject(a, client.id, { hourly_rate: 40 });
    const e = await log(a, { project_id: p.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 });
    const range = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    const first = (await a.post('/invoices', range)).body;
    const deleted = await a.delete(`/invoices/${first.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'invoice', id: first.id, deleted: true });
    expect((await a.get(`/invoices/${first.id}`)).status).toBe(404);
    expect((await a.get(`/time_entries/${e.id}`)).body.invoice_id).toBeNull();
    // Changed while free, then invoiced with the new values.
    expect((await a.patch(`/time_entries/${e.id}`, { duration_minutes: 90, billable_rate: 50 })).status).toBe(200);
    const second = (await a.post('/invoices', range)).body;
    expect(second).toMatchObject({ time_entry_count: 1, total: '75.00', lines: [{ minutes: 90, billable_rate: 50 }] });
    expect((await post(a, `/invoices/${second.id}/finalize`)).body.number).toBe('INV-000001');
    const voided = await post(a, `/invoices/${second.id}/void`);
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body).toMatchObject({ status: 'void', total: '75.00', lines: [{ minutes: 90 }] });
    expect(voided.body.voided_at).toBeTruthy();
    expect((await a.get(`/time_entries/${e.id}`)).body.invoice_id).toBeNull();
    expect((await a.patch(`/time_entries/${e.id}`, { duration_minutes: 30 })).status).toBe(200);
    const third = (await a.post('/invoices', range)).body;
    expect(third).toMatchObject({ time_entry_count: 1, total: '25.00' });
    // The deleted draft took no number: the next finalize is the second.
    expect((await post(a, `/invoices/${third.id}/finalize`)).body.number).toBe('INV-000002');
    // A void invoice still blocks its client's delete, and the 409 does not tell to delete it.
    const blocked = await a.delete(`/clients/${client.id}`);
    expect([blocked.status, blocked.body.error.type]).toEqual([409, 'conflict']);
    expect(blocked.body.error.message).toContain('2 invoices and cannot be deleted. Delete those first (an invoice only while it is a draft');
  });

  it('finalizes on the last dates a date holds: a default due date stops at 9999-12-31', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Far Future Co' });
    await log(a, { client_id: client.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30, billable_rate: 10 });
    const draft = (await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' })).body;
    expect(draft.due_date).toBeNull();
    const finalized = await a.post(`/invoices/${draft.id}/finalize`, { issue_date: '9999-12-15' });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body).toMatchObject({ issue_date: '9999-12-15', due_date: '9999-12-31' });
  });

  it('numbers 10 parallel finalizes uniquely, gaplessly', async () => {
    const a = await fresh();
    const drafts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const client = await createClient(a, { company_name: `Parallel ${i}` });
      await log(a, { client_id: client.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30, billable_rate: 10 });
      drafts.push((await a.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01' })).body.id);
    }
    const results = await Promise.all(drafts.map((id) => post(a, `/invoices/${id}/finalize`)));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const numbers = results.map((r) => Number(String(r.body.number).slice(4))).sort((x, y) => x - y);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('replays a keyed create, and refuses its key for another request', async () => {
    const a = await fresh();
    const client = await createClient(a, { company_name: 'Key Co' });
    await log(a, { client_id: client.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30, billable_rate: 10 });
    const key = randomUUID();
    const body = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    const send = (b: unknown) => call('POST', '/api/v1/invoices', { token: tokenOf(a), body: b, headers: { 'Idempotency-Key': key } });
    const first = await send(body);
    expect(first.status).toBe(201);
    const replay = await send(body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await send({ ...body, memo: 'other' })).status).toBe(422);
    expect((await a.get('/invoices')).body.data).toHaveLength(1);
  });

  describe('races', () => {
    /** Every invoice's lines total exactly the entries that name it, as they are now. */
    async function checkInvariant(a: Api, entryIds: string[]) {
      const entries = await Promise.all(entryIds.map(async (id) => (await a.get(`/time_entries/${id}`)).body));
      const invoices = (await a.get('/invoices?limit=100')).body.data as { id: string; lines: { minutes: number; time_entry_count: number }[]; time_entry_count: number }[];
      for (const inv of invoices) {
        const named = entries.filter((e) => e.invoice_id === inv.id);
        expect(inv.time_entry_count).toBe(named.length);
        expect(inv.lines.reduce((m, l) => m + l.minutes, 0)).toBe(named.reduce((m, e) => m + e.duration_minutes, 0));
      }
      for (const e of entries) if (e.invoice_id !== null) expect(invoices.map((i) => i.id)).toContain(e.invoice_id);
      return { entries, invoices };
    }

    it('splits the same time between two concurrent creates, without overlap', async () => {
      const a = await fresh();
      const client = await createClient(a, { company_name: 'Split Co' });
      const ids: string[] = [];
      const bodies = Array.from({ length: 24 }, (_, i) => ({ client_id: client.id, started_at: `2026-11-${String(2 + (i % 20)).padStart(2, '0')}T09:${String(i).padStart(2, '0')}:00Z`, duration_minutes: 10 + i, billable_rate: 60 }));
      ids.push(...(await logTimes(a, bodies)).map((e) => e.id as string));
      const body = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
      const [x, y] = await Promise.all([a.post('/invoices', body), a.post('/invoices', body)]);
      for (const r of [x, y]) expect([201, 409], JSON.stringify(r.body)).toContain(r.status);
      const { entries, invoices } = await checkInvariant(a, ids);
      expect(entries.every((e) => e.invoice_id !== null)).toBe(true);
      expect(invoices.reduce((n, i) => n + i.time_entry_count, 0)).toBe(24);
    });

    it('keeps 20 edits and 20 moves racing a create exact: each entry on it with the values it shows, or not on it', async () => {
      const a = await fresh();
      const client = await createClient(a, { company_name: 'Race Co' });
      const p1 = await createProject(a, client.id, { hourly_rate: 30 });
      const p2 = await createProject(a, client.id, { hourly_rate: 45 });
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await log(a, { project_id: p1.id, started_at: `2026-11-${String(2 + (i % 25)).padStart(2, '0')}T10:${String(i).padStart(2, '0')}:00Z`, duration_minutes: 15 })).id);
      const edits = ids.slice(0, 20).map((id, i) => a.patch(`/time_entries/${id}`, { duration_minutes: 16 + i }));
      const moves = ids.slice(20).map((id) => a.patch(`/time_entries/${id}`, { project_id: p2.id }));
      // Contention may answer 503 with Retry-After (never a wrong answer): the create is retried with its key until it lands.
      const key = randomUUID();
      const create = () => call('POST', '/api/v1/invoices', { token: tokenOf(a), body: { client_id: client.id, from: '2026-11-01', to: '2026-12-01' }, headers: { 'Idempotency-Key': key } });
      let [created, ...changes] = await Promise.all([create(), ...edits, ...moves]);
      for (let retry = 0; created!.status !== 201 && retry < 10; retry++) {
        expect([503, 409], JSON.stringify(created!.body)).toContain(created!.status);
        expect(created!.headers.get('retry-after')).toMatch(/^\d+$/);
        await new Promise((r) => setTimeout(r, 1000 * Number(created!.headers.get('retry-after'))));
        created = await create();
      }
      expect(created!.status, JSON.stringify(created!.body)).toBe(201);
      for (const c of changes) expect([200, 409, 503], JSON.stringify(c.body)).toContain(c.status);
      const { entries } = await checkInvariant(a, ids);
      // A change refused by the lock left its entry on the invoice as it was; one that landed shows its values.
      for (const [i, c] of changes.entries()) {
        const e = entries[i]!;
        if (c.status === 409) expect(c.body.error.type).toBe('time_entry_invoiced');
        if (c.status === 200) expect(e.version ?? e.updated_at).toBeDefined();
      }
      const inv = (await a.get(`/invoices/${created.body.id}`)).body;
      const byProject = (pid: string) => entries.filter((e) => e.invoice_id === inv.id && e.project_id === pid).reduce((m, e) => m + e.duration_minutes, 0);
      for (const line of inv.lines) expect(line.minutes).toBe(byProject(line.project_id));
    });
  });
});

describe('taxes', () => {
  it('charges TPS and TVQ on the taxable amount, each half up; tax_rate is their sum, or shorthand for one; PATCH replaces or keeps them', async () => {
    const { api } = await workspace('tax');
    const client = await createClient(api, { company_name: 'Québec Co', currency: 'CAD' });
    const project = await createProject(api, client.id, { name: 'Site', hourly_rate: 100 });
    await logTime(api, { project_id: project.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 });
    const range = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    const TPS_TVQ = [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }];
    // Refused, each naming its field, and nothing made.
    const refusals: [Record<string, unknown>, string][] = [
      [{ tax_rate: 5, taxes: [] }, 'tax_rate'],
      [{ taxes: [...TPS_TVQ, { name: 'Other', rate: 1 }] }, 'taxes'],
      [{ taxes: [TPS_TVQ[0], { name: 'TPS', rate: 9.975 }] }, 'taxes[1].name'],
      [{ taxes: ['TPS'] }, 'taxes[0]'],
      [{ taxes: [{ name: ' ', rate: 5 }] }, 'taxes[0].name'],
      [{ taxes: [{ name: 'x'.repeat(41), rate: 5 }] }, 'taxes[0].name'],
      [{ taxes: [{ name: 'TPS', rate: 100.5 }] }, 'taxes[0].rate'],
      [{ taxes: [{ name: 'TPS' }] }, 'taxes[0].rate'],
      [{ taxes: [{ name: 'TPS', rate: 5, country: 'CA' }] }, 'taxes[0].country'],
      [{ taxes: { name: 'TPS', rate: 5 } }, 'taxes'],
    ];
    for (const [body, param] of refusals) {
      const refused = expectError(await api.post('/invoices', { ...range, ...body }), 400, 'invalid_request');
      expect(refused.errors!.map((e) => e.param), JSON.stringify(body)).toEqual([param]);
    }
    expect((await api.get('/invoices')).body.data).toEqual([]);

    // Revenu Québec's example: 100.00, TPS 5.00 and TVQ 9.975 % = 9.975 -> 9.98.
    const invoice = (await api.post('/invoices', { ...range, taxes: TPS_TVQ })).body;
    expect(invoice).toMatchObject({
      subtotal: '100.00', discount_amount: '0.00', tax_rate: 14.975, tax_amount: '14.98', total: '114.98',
      taxes: [{ name: 'TPS', rate: 5, taxable_amount: '100.00', amount: '5.00' }, { name: 'TVQ', rate: 9.975, taxable_amount: '100.00', amount: '9.98' }],
    });
    const patch = async (body: Record<string, unknown>) => {
      const response = await api.patch(`/invoices/${invoice.id}`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    // Neither field: the taxes are kept, on what the discount leaves (TVQ 8.9775 -> 8.98).
    expect(await patch({ discount_rate: 10 })).toMatchObject({ tax_rate: 14.975, taxes: [{ taxable_amount: '90.00', amount: '4.50' }, { amount: '8.98' }], total: '103.48' });
    expect(await patch({ tax_rate: 20 })).toMatchObject({ tax_rate: 20, taxes: [{ name: 'Tax', rate: 20, taxable_amount: '90.00', amount: '18.00' }], total: '108.00' });
    expect(await patch({ tax_rate: 0 })).toMatchObject({ tax_rate: 0, taxes: [], tax_amount: '0.00', total: '90.00' });
    expect(await patch({ taxes: [{ name: 'GST', rate: 5 }] })).toMatchObject({ tax_rate: 5, taxes: [{ name: 'GST', amount: '4.50' }] });
    expectError(await api.patch(`/invoices/${invoice.id}`, { taxes: [{ name: 'GST', rate: 5 }], tax_rate: 5 }), 400, 'invalid_request');
    expect((await api.get(`/invoices/${invoice.id}`)).body).toMatchObject({ tax_rate: 5, taxes: [{ name: 'GST', rate: 5, taxable_amount: '90.00', amount: '4.50' }] });
  });

  it('reads an invoice stored before named taxes as one tax named "Tax", and a create without taxes as none', async () => {
    const { id: ws, api } = await workspace('tax');
    const client = await createClient(api, { company_name: 'Old Tax Co' });
    const project = await createProject(api, client.id, { name: 'Old', hourly_rate: 30 });
    await logTime(api, { project_id: project.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 });
    await logTime(api, { project_id: project.id, started_at: '2026-12-02T09:00:00Z', duration_minutes: 60 });
    const untaxed = (await api.post('/invoices', { client_id: client.id, from: '2026-12-01', to: '2027-01-01' })).body;
    expect(untaxed).toMatchObject({ tax_rate: 0, taxes: [], tax_amount: '0.00', total: '30.00' });
    const invoice = (await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', tax_rate: 20, discount_rate: 10 })).body;
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { inject } = await import('vitest');
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
    await db.send(new UpdateCommand({ TableName: inject('tableName'), Key: { PK: `WS#${ws}`, SK: `INVOICE#${invoice.id}` }, UpdateExpression: 'REMOVE #data.#taxes', ExpressionAttributeNames: { '#data': 'data', '#taxes': 'taxes' } }));
    db.destroy();
    const read = (await api.get(`/invoices/${invoice.id}`)).body;
    expect(read).toMatchObject({ subtotal: '30.00', discount_amount: '3.00', tax_rate: 20, tax_amount: '5.40', taxes: [{ name: 'Tax', rate: 20, taxable_amount: '27.00', amount: '5.40' }] });
    // Changed as any draft: its one tax kept.
    expect((await api.patch(`/invoices/${invoice.id}`, { discount_rate: 0 })).body).toMatchObject({ taxes: [{ name: 'Tax', rate: 20, taxable_amount: '30.00', amount: '6.00' }], total: '36.00' });
  });
});

describe('items', () => {
  it('are lines of their own after the time, each quantity × unit_price rounded once; taxed only when taxable; refused naming items[i].field', async () => {
    const { api } = await workspace('items');
    const client = await createClient(api, { company_name: 'Items Co', currency: 'CAD' });
    const other = await createClient(api, { company_name: 'Other Co' });
    const project = await createProject(api, client.id, { name: 'Site', hourly_rate: 100 });
    const foreign = await createProject(api, other.id, { name: 'Elsewhere' });
    await logTime(api, { project_id: project.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 });
    const range = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    const good = { description: 'Licence', quantity: 1, unit_price: 10 };
    const refusals: [Record<string, unknown>, string][] = [
      [{ items: [{ ...good, quantity: 0 }] }, 'items[0].quantity'],
      [{ items: [good, { ...good, quantity: 1.00001 }] }, 'items[1].quantity'],
      [{ items: [{ ...good, unit_price: -1 }] }, 'items[0].unit_price'],
      [{ items: [{ ...good, description: 'two\nlines' }] }, 'items[0].description'],
      [{ items: [{ quantity: 1, unit_price: 1 }] }, 'items[0].description'],
      [{ items: ['Licence'] }, 'items[0]'],
      [{ items: Array.from({ length: 51 }, () => good) }, 'items'],
      [{ items: [{ ...good, project_id: foreign.id }] }, 'items[0].project_id'],
      [{ from: undefined }, 'from'],
      [{ to: undefined }, 'to'],
      [{ from: undefined, to: undefined }, 'items'],
    ];
    for (const [body, param] of refusals) {
      const refused = expectError(await api.post('/invoices', { ...range, ...body }), 400, 'invalid_request');
      expect(refused.errors!.map((e) => e.param), JSON.stringify(body)).toEqual([param]);
    }
    expect((await api.get('/invoices')).body.data).toEqual([]);

    // 2.5 × 19.99 = 49.975: half to even, 49.98; 3 × 0.3333 = 0.9999: 1.00. The setup is not taxed.
    const items = [
      { description: 'Setup', quantity: 2.5, unit_price: 19.99, project_id: project.id, taxable: false },
      { description: 'Domain', quantity: 3, unit_price: 0.3333 },
    ];
    const invoice = (await api.post('/invoices', { ...range, items, taxes: [{ name: 'TPS', rate: 5 }] })).body;
    expect(invoice.lines).toEqual([
      { kind: 'time', project_id: project.id, description: 'Site', billable_rate: 100, minutes: 60, time_entry_count: 1, amount: '100.00', taxable: true },
      { kind: 'item', project_id: project.id, description: 'Setup', quantity: 2.5, unit_price: 19.99, amount: '49.98', taxable: false },
      { kind: 'item', project_id: null, description: 'Domain', quantity: 3, unit_price: 0.3333, amount: '1.00', taxable: true },
    ]);
    expect(invoice).toMatchObject({ subtotal: '150.98', taxes: [{ taxable_amount: '101.00', amount: '5.05' }], total: '156.03', time_entry_count: 1 });
    // PATCH replaces the list, after the time; the other lines stay.
    const patched = (await api.patch(`/invoices/${invoice.id}`, { items: [{ description: 'Hosting', quantity: 12, unit_price: 5 }] })).body;
    expect(patched.lines.map((l: any) => [l.kind, l.description, l.amount])).toEqual([['time', 'Site', '100.00'], ['item', 'Hosting', '60.00']]);
    expect(patched).toMatchObject({ subtotal: '160.00', tax_amount: '8.00', total: '168.00' });
    expect((await api.patch(`/invoices/${invoice.id}`, { items: [] })).body.lines).toHaveLength(1);
  });

  it('make an invoice of their own without a period (no time, no fees), which keeps at least one; and a range with nothing else', async () => {
    const { api } = await workspace('items');
    const client = await createClient(api, { company_name: 'Items Only Co' });
    await createProject(api, client.id, { name: 'Care', billing_type: 'Retainer', amount: 100, interval_count: 1, interval_unit: 'Month', start_date: '2026-01-01T00:00:00Z' });
    const entry = await logTime(api, { client_id: client.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60, billable_rate: 50 });
    const alone = await api.post('/invoices', { client_id: client.id, items: [{ description: 'Training day', quantity: 1, unit_price: 800 }] });
    expect(alone.status, JSON.stringify(alone.body)).toBe(201);
    expect(alone.body).toMatchObject({ period_start: null, period_end: null, time_entry_count: 0, subtotal: '800.00', total: '800.00' });
    expect(alone.body.lines.map((l: any) => l.kind)).toEqual(['item']);
    // It took neither the time nor the retainer's periods.
    expect((await api.get(`/time_entries/${entry.id}`)).body.invoice_id).toBeNull();
    expectError(await api.patch(`/invoices/${alone.body.id}`, { items: [] }), 400, 'invalid_request');
    expect((await api.post(`/invoices/${alone.body.id}/finalize`, {})).body).toMatchObject({ status: 'open', total: '800.00' });
    // A range with no time and no fee, but items: a draft of its items, not nothing_to_invoice.
    const december = await api.post('/invoices', { client_id: client.id, from: '2025-12-01', to: '2026-01-01', items: [{ description: 'Audit', quantity: 1, unit_price: 1 }] });
    expect(december.status, JSON.stringify(december.body)).toBe(201);
    expect(december.body.lines.map((l: any) => l.kind)).toEqual(['item']);
  });
});
