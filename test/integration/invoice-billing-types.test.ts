/**
 * What each project's billing type charges on an invoice, over HTTP (contract, "Billing types";
 * docs/decisions/0029-billing-types.md): a ProjectBased project's fixed price once (not again on a
 * second invoice; again after a void, or once a draft charging it is deleted), a Retainer project's
 * amount for each period starting in the range (clamped months, `end_date`, two months on two
 * invoices), the time they cover on time lines of amount zero, the statuses that charge fees
 * (ACTIVE; COMPLETED for a fixed price), `unpriced_project` for each field a type needs, with
 * nothing changed, `nothing_to_invoice` when covered time alone is left, and 10 concurrent creates
 * over one retainer's range charging each period once. The fees' marks are read from the table:
 * each names an invoice whose lines charge it.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createClient, createProject, logTime, logTimes, workspace, type Api } from '../support/api.ts';

type Obj = Record<string, any>;

let db: DynamoDBDocumentClient;
beforeAll(() => {
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
});
afterAll(() => db?.destroy());

/** A project's fee marks as stored (its fees partition, decision 0029): sort key → the invoice it names. */
async function marksOf(workspaceId: string, projectId: string): Promise<Record<string, string>> {
  const out = await db.send(
    new QueryCommand({ TableName: inject('tableName'), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#FEES#${projectId}` }, ConsistentRead: true }),
  );
  return Object.fromEntries((out.Items ?? []).map((item) => [String(item.SK), String(item.invoice_id)]));
}

interface Ws {
  id: string;
  token: string;
  api: Api;
}
const fresh = (): Promise<Ws> => workspace('fees');

const created = async (api: Api, body: Obj) => {
  const response = await api.post('/invoices', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Obj;
};
const refused = async (api: Api, body: Obj, type: string) => {
  const response = await api.post('/invoices', body);
  expect([response.status, response.body.error?.type], JSON.stringify(response.body)).toEqual([409, type]);
  return response.body.error as { message: string };
};
const step = async (api: Api, id: string, action: string) => {
  const response = await api.post(`/invoices/${id}/${action}`, {});
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as Obj;
};
const feeLines = (invoice: Obj) => (invoice.lines as Obj[]).filter((line) => line.kind !== 'time');
const invoicesOf = async (api: Api) => (await api.get('/invoices?limit=100')).body.data as Obj[];
const time = (project_id: string, description: string, minutes: number, count: number, amount: string, billable_rate: number | null = null) => ({
  kind: 'time', project_id, description, billable_rate, minutes, time_entry_count: count, amount, taxable: true,
});

describe('lines', () => {
  it('carry kind and taxable on a plain time invoice: time lines, as before', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Plain Co' });
    const p = await createProject(api, client.id, { name: 'Hours', hourly_rate: 90 });
    await logTimes(api, [
      { project_id: p.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 40 },
      { client_id: client.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 30, billable_rate: 0 },
    ]);
    const invoice = await created(api, { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect(invoice.lines).toEqual([
      { kind: 'time', project_id: null, description: 'Plain Co', billable_rate: 0, minutes: 30, time_entry_count: 1, amount: '0.00', taxable: true },
      { kind: 'time', project_id: p.id, description: 'Hours', billable_rate: 90, minutes: 40, time_entry_count: 1, amount: '60.00', taxable: true },
    ]);
    expect(invoice).toMatchObject({ time_entry_count: 2, subtotal: '60.00', total: '60.00' });
    expect((await api.get(`/invoices/${invoice.id}`)).body.lines).toEqual(invoice.lines);
  });

  it('stored before kinds, read as time lines, taxable, without being rewritten; such a draft is changed and deleted as any', async () => {
    const { id: ws, api } = await fresh();
    const client = await createClient(api, { company_name: 'Legacy Co' });
    const p = await createProject(api, client.id, { name: 'Old', hourly_rate: 30 });
    const entry = await logTime(api, { project_id: p.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 });
    const invoice = await created(api, { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    // The lines as an invoice created before billing types stored them.
    const key = { PK: `WS#${ws}`, SK: `INVOICE#${invoice.id}` };
    const old = [{ project_id: p.id, description: 'Old', billable_rate: 30, minutes: 60, time_entry_count: 1, amount: '30.00' }];
    await db.send(new UpdateCommand({ TableName: inject('tableName'), Key: key, UpdateExpression: 'SET #data.#lines = :old', ExpressionAttributeNames: { '#data': 'data', '#lines': 'lines' }, ExpressionAttributeValues: { ':old': old } }));
    const read = [{ kind: 'time', ...old[0], taxable: true }];
    expect((await api.get(`/invoices/${invoice.id}`)).body.lines).toEqual(read);
    expect((await api.get(`/invoices?client_id=${client.id}`)).body.data[0].lines).toEqual(read);
    expect((await db.send(new GetCommand({ TableName: inject('tableName'), Key: key }))).Item!.data.lines).toEqual(old);
    const patched = await api.patch(`/invoices/${invoice.id}`, { tax_rate: 10 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ lines: read, subtotal: '30.00', tax_amount: '3.00', total: '33.00' });
    expect((await api.delete(`/invoices/${invoice.id}`)).status).toBe(200);
    expect((await api.get(`/time_entries/${entry.id}`)).body.invoice_id).toBeNull();
  });
});

describe('ProjectBased: the fixed price, once', () => {
  it('is charged by one invoice; a second does not charge it; a void, then a deleted draft, release it', async () => {
    const { id: ws, api } = await fresh();
    const client = await createClient(api, { company_name: 'Fixed Co' });
    // 1234.565 rounds once, half to even, to 1234.56; its time has no rate (covered).
    const site = await createProject(api, client.id, { name: 'Site build', billing_type: 'ProjectBased', fixed_price: 1234.565 });
    const hours = await createProject(api, client.id, { name: 'Support', hourly_rate: 80 });
    const [e1, e2] = (await logTimes(api, [
      { project_id: site.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30 },
      { project_id: site.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 45 },
    ])) as [Obj, Obj];
    expect(e1.billable_rate).toBeNull();

    const first = await created(api, { client_id: client.id, from: '2026-11-01', to: '2026-12-01', tax_rate: 10 });
    expect(first.lines).toEqual([
      { kind: 'fixed_price', project_id: site.id, description: 'Site build', amount: '1234.56', taxable: true },
      time(site.id, 'Site build', 75, 2, '0.00'),
    ]);
    expect(first).toMatchObject({ time_entry_count: 2, subtotal: '1234.56', tax_amount: '123.46', total: '1358.02' });
    for (const e of [e1, e2]) expect((await api.get(`/time_entries/${e.id}`)).body.invoice_id).toBe(first.id);
    expect(await marksOf(ws, site.id)).toEqual({ FIXED: first.id });

    // A second invoice takes the project's new time, and charges no fixed price.
    await logTimes(api, [
      { project_id: site.id, started_at: '2026-12-02T09:00:00Z', duration_minutes: 20 },
      { project_id: hours.id, started_at: '2026-12-02T10:00:00Z', duration_minutes: 30 },
    ]);
    const second = await created(api, { client_id: client.id, from: '2026-12-01', to: '2027-01-01' });
    expect(second.lines).toEqual([time(site.id, 'Site build', 20, 1, '0.00'), time(hours.id, 'Support', 30, 1, '40.00', 80)]);
    // Covered time alone makes no invoice.
    const jan = await logTime(api, { project_id: site.id, started_at: '2027-01-05T09:00:00Z', duration_minutes: 15 });
    const range = { client_id: client.id, from: '2027-01-01', to: '2027-02-01' };
    await refused(api, range, 'nothing_to_invoice');
    expect((await api.get(`/time_entries/${jan.id}`)).body.invoice_id).toBeNull();

    // The first voided: the fixed price is released, and the next invoice charges it again.
    await step(api, first.id, 'finalize');
    const voided = await step(api, first.id, 'void');
    expect(feeLines(voided)).toEqual(feeLines(first));
    expect(await marksOf(ws, site.id)).toEqual({});
    const third = await created(api, range);
    expect(third.lines).toEqual([
      { kind: 'fixed_price', project_id: site.id, description: 'Site build', amount: '1234.56', taxable: true },
      time(site.id, 'Site build', 15, 1, '0.00'),
    ]);
    expect(await marksOf(ws, site.id)).toEqual({ FIXED: third.id });

    // A deleted draft releases it too (its time with it).
    expect((await api.delete(`/invoices/${third.id}`)).status).toBe(200);
    expect(await marksOf(ws, site.id)).toEqual({});
    expect((await api.get(`/time_entries/${jan.id}`)).body.invoice_id).toBeNull();
    const fourth = await created(api, range);
    expect(feeLines(fourth)).toEqual([{ kind: 'fixed_price', project_id: site.id, description: 'Site build', amount: '1234.56', taxable: true }]);
    expect(await marksOf(ws, site.id)).toEqual({ FIXED: fourth.id });
    // Over every invoice that is not void, the fixed price once.
    const live = (await invoicesOf(api)).filter((i) => i.status !== 'void');
    expect(live.flatMap(feeLines)).toHaveLength(1);
  });
});

describe('statuses', () => {
  it('ON_HOLD and CANCELLED projects charge no fee, their time is taken; once ACTIVE, the fixed price is charged', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Status Co' });
    const held = await createProject(api, client.id, { name: 'Held', billing_type: 'ProjectBased', fixed_price: 100, status: 'ON_HOLD' });
    const cancelled = await createProject(api, client.id, {
      name: 'Cancelled', billing_type: 'Retainer', amount: 50, interval_count: 1, interval_unit: 'Month', start_date: '2026-11-01T00:00:00Z', status: 'CANCELLED',
    });
    const hours = await createProject(api, client.id, { name: 'Hours', hourly_rate: 60 });
    await logTimes(api, [
      { project_id: held.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 60 },
      { project_id: cancelled.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 30, billable_rate: 200 },
      { project_id: hours.id, started_at: '2026-11-04T09:00:00Z', duration_minutes: 15 },
    ]);
    const november = await created(api, { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect(november.lines).toEqual([
      time(held.id, 'Held', 60, 1, '0.00'),
      time(cancelled.id, 'Cancelled', 30, 1, '0.00', 200),
      time(hours.id, 'Hours', 15, 1, '15.00', 60),
    ]);
    expect(november).toMatchObject({ time_entry_count: 3, subtotal: '15.00', total: '15.00' });

    expect((await api.patch(`/projects/${held.id}`, { status: 'ACTIVE' })).status).toBe(200);
    // Fees are charged with no time in the range.
    const december = await created(api, { client_id: client.id, from: '2026-12-01', to: '2027-01-01' });
    expect(december.lines).toEqual([{ kind: 'fixed_price', project_id: held.id, description: 'Held', amount: '100.00', taxable: true }]);
    expect(december).toMatchObject({ time_entry_count: 0, subtotal: '100.00', total: '100.00' });
  });

  it('a COMPLETED project charges its fixed price, and no retainer', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Done Co' });
    const done = await createProject(api, client.id, { name: 'Done', billing_type: 'ProjectBased', fixed_price: 300, status: 'COMPLETED' });
    const retained = await createProject(api, client.id, {
      name: 'Retained', billing_type: 'Retainer', amount: 75, interval_count: 1, interval_unit: 'Month', start_date: '2026-10-01T00:00:00Z', status: 'COMPLETED',
    });
    await logTimes(api, [
      { project_id: done.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 10 },
      { project_id: retained.id, started_at: '2026-11-02T10:00:00Z', duration_minutes: 20 },
    ]);
    const invoice = await created(api, { client_id: client.id, from: '2026-11-01', to: '2026-12-01' });
    expect(invoice.lines).toEqual([
      { kind: 'fixed_price', project_id: done.id, description: 'Done', amount: '300.00', taxable: true },
      time(done.id, 'Done', 10, 1, '0.00'),
      time(retained.id, 'Retained', 20, 1, '0.00'),
    ]);
    expect(invoice.total).toBe('300.00');
  });
});

describe('Retainer: each period that starts in the range', () => {
  it('bills two months of a monthly retainer by two invoices (months clamped from the anchor); covered time alone is nothing to invoice', async () => {
    const { id: ws, api } = await fresh();
    const client = await createClient(api, { company_name: 'Yen Co', currency: 'JPY' });
    // Anchored on January 31st: February's period starts on the 28th, March's on the 31st. 2500.5 rounds to 2500.
    const retainer = await createProject(api, client.id, {
      name: 'Care plan', billing_type: 'Retainer', amount: 2500.5, interval_count: 1, interval_unit: 'Month', start_date: '2026-01-31T10:00:00Z',
    });
    await logTime(api, { project_id: retainer.id, started_at: '2026-02-10T09:00:00Z', duration_minutes: 50 });
    const february = await created(api, { client_id: client.id, from: '2026-02-01', to: '2026-03-01' });
    expect(february.lines).toEqual([
      { kind: 'retainer', project_id: retainer.id, description: 'Care plan', period_start: '2026-02-28', period_end: '2026-03-31', amount: '2500', taxable: true },
      time(retainer.id, 'Care plan', 50, 1, '0'),
    ]);
    const march = await created(api, { client_id: client.id, from: '2026-03-01', to: '2026-04-01' });
    expect(march.lines).toEqual([
      { kind: 'retainer', project_id: retainer.id, description: 'Care plan', period_start: '2026-03-31', period_end: '2026-04-30', amount: '2500', taxable: true },
    ]);
    expect(await marksOf(ws, retainer.id)).toEqual({ 'RETAINER#2026-02-28': february.id, 'RETAINER#2026-03-31': march.id });
    // Both months again: both periods are charged already.
    await refused(api, { client_id: client.id, from: '2026-02-01', to: '2026-04-01' }, 'nothing_to_invoice');
    // A range where no period starts, with covered time alone: nothing to invoice, the time left as it was.
    const april = await logTime(api, { project_id: retainer.id, started_at: '2026-04-05T09:00:00Z', duration_minutes: 25 });
    await refused(api, { client_id: client.id, from: '2026-04-01', to: '2026-04-20' }, 'nothing_to_invoice');
    expect((await api.get(`/time_entries/${april.id}`)).body.invoice_id).toBeNull();
    // The whole of April: the period of the 30th, and the time.
    const whole = await created(api, { client_id: client.id, from: '2026-04-01', to: '2026-05-01' });
    expect(whole.lines.map((l: Obj) => [l.kind, l.period_start ?? l.minutes])).toEqual([['retainer', '2026-04-30'], ['time', 25]]);
  });

  it('charges whole each period that starts before end_date, and in the invoice\'s zone', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Fortnight Co' });
    const retainer = await createProject(api, client.id, {
      name: 'Fortnightly', billing_type: 'Retainer', amount: 0.005, interval_count: 2, interval_unit: 'Week', start_date: '2026-01-05T00:00:00Z', end_date: '2026-02-10T00:00:00Z',
    });
    const invoice = await created(api, { client_id: client.id, from: '2026-01-01', to: '2026-03-01', timezone: 'Pacific/Auckland' });
    // 0.005 is half a cent: a fee of zero (to the even cent) is still a fee.
    expect(invoice.lines).toEqual(
      [['2026-01-05', '2026-01-19'], ['2026-01-19', '2026-02-02'], ['2026-02-02', '2026-02-16']].map(([period_start, period_end]) => ({
        kind: 'retainer', project_id: retainer.id, description: 'Fortnightly', period_start, period_end, amount: '0.00', taxable: true,
      })),
    );
    await refused(api, { client_id: client.id, from: '2026-01-01', to: '2026-03-01' }, 'nothing_to_invoice');
  });
});

/** A CreditBased project's credit ledger as stored (its fees partition, decision 0029): the credit in minor units, and its version. */
async function ledgerOf(workspaceId: string, projectId: string) {
  const out = await db.send(new GetCommand({ TableName: inject('tableName'), Key: { PK: `WS#${workspaceId}#FEES#${projectId}`, SK: 'CREDIT' }, ConsistentRead: true }));
  return out.Item && { credit: out.Item.credit as string, version: out.Item.version as number };
}
const creditLine = (invoice: Obj) => (invoice.lines as Obj[]).find((line) => line.kind === 'credit');
/** `"12.50"` in cents. */
const cents = (amount: string) => Math.round(Number(amount) * 100);

describe('CreditBased: blocks of prepaid credit', () => {
  it('buys the fewest blocks that leave the credit above zero; a void gives its blocks and time back; credit used alone makes no invoice', async () => {
    const { id: ws, api } = await fresh();
    const client = await createClient(api, { company_name: 'Credit Co' });
    // Blocks of 500.00 (500.004 rounded once); its time at 100 an hour is what uses the credit.
    const support = await createProject(api, client.id, { name: 'Support hours', billing_type: 'CreditBased', amount: 500.004, hourly_rate: 100 });
    const hourly = await createProject(api, client.id, { name: 'Extras', hourly_rate: 10 });
    const credit = (fields: Obj) => ({ kind: 'credit', project_id: support.id, description: 'Support hours', block_amount: '500.00', taxable: true, ...fields });
    const month = (m: string, n: string) => ({ client_id: client.id, from: `2026-${m}-01`, to: `2026-${n}-01`, project_ids: [support.id] });

    // No credit and no time: one block.
    const first = await created(api, month('09', '10'));
    expect(first.lines).toEqual([credit({ blocks: 1, credit_used: '0.00', credit_balance: '500.00', amount: '500.00' })]);
    expect(first).toMatchObject({ time_entry_count: 0, subtotal: '500.00', total: '500.00' });
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: '50000', version: 1 });

    // Time worth exactly the credit leaves it at zero: one more block. Its time is on a line of amount zero.
    const october = await logTime(api, { project_id: support.id, started_at: '2026-10-05T09:00:00Z', duration_minutes: 300 });
    const second = await created(api, month('10', '11'));
    expect(second.lines).toEqual([credit({ blocks: 1, credit_used: '500.00', credit_balance: '500.00', amount: '500.00' }), time(support.id, 'Support hours', 300, 1, '0.00', 100)]);
    expect((await api.get(`/time_entries/${october.id}`)).body.invoice_id).toBe(second.id);

    // Time worth 1.5 blocks past the credit (1,250.00 against 500.00) buys 2.
    await logTimes(api, [
      { project_id: support.id, started_at: '2026-11-05T09:00:00Z', duration_minutes: 600 },
      { project_id: support.id, started_at: '2026-11-06T09:00:00Z', duration_minutes: 150 },
    ]);
    const third = await created(api, month('11', '12'));
    expect(creditLine(third)).toEqual(credit({ blocks: 2, credit_used: '1250.00', credit_balance: '250.00', amount: '1000.00' }));
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: '25000', version: 3 });

    // A void gives back its blocks and its time (the credit is 500.00 again); the next invoice starts from there.
    await step(api, third.id, 'finalize');
    const voided = await step(api, third.id, 'void');
    expect(creditLine(voided)).toEqual(creditLine(third));
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: '50000', version: 4 });
    const again = await created(api, month('11', '12'));
    expect(creditLine(again)).toEqual(creditLine(third));
    // A deleted draft gives it back too.
    expect((await api.delete(`/invoices/${again.id}`)).status).toBe(200);
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: '50000', version: 6 });
    const kept = await created(api, month('11', '12'));
    expect(creditLine(kept)).toMatchObject({ blocks: 2, credit_balance: '250.00' });

    // Credit left above zero: time alone uses it and buys nothing, which makes no invoice.
    await logTime(api, { project_id: support.id, started_at: '2026-12-02T09:00:00Z', duration_minutes: 60 });
    await refused(api, { ...month('12', '01'), to: '2027-01-01' }, 'nothing_to_invoice');
    // Not ACTIVE: no block is bought, the time still uses the credit, below zero. Only with a line that charges.
    expect((await api.patch(`/projects/${support.id}`, { status: 'ON_HOLD' })).status).toBe(200);
    await logTime(api, { project_id: support.id, started_at: '2026-12-03T09:00:00Z', duration_minutes: 240 });
    const range = { client_id: client.id, from: '2026-12-01', to: '2027-01-01' };
    await refused(api, range, 'nothing_to_invoice');
    await logTime(api, { project_id: hourly.id, started_at: '2026-12-04T09:00:00Z', duration_minutes: 60 });
    const held = await created(api, range);
    expect(creditLine(held)).toEqual(credit({ blocks: 0, credit_used: '500.00', credit_balance: '-250.00', amount: '0.00' }));
    expect(held).toMatchObject({ time_entry_count: 3, subtotal: '10.00' });
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: '-25000', version: 8 });
    // Once ACTIVE again, the next invoice makes up what is owed: one block, 250.00 left.
    expect((await api.patch(`/projects/${support.id}`, { status: 'ACTIVE' })).status).toBe(200);
    expect(creditLine(await created(api, { client_id: client.id, from: '2027-01-01', to: '2027-02-01' }))).toEqual(credit({ blocks: 1, credit_used: '0.00', credit_balance: '250.00', amount: '500.00' }));
  });

  it('needs an amount above zero once rounded, and rates on its time', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Credit Rules Co', currency: 'JPY' });
    const tiny = await createProject(api, client.id, { name: 'Tiny blocks', billing_type: 'CreditBased', amount: 0.4 });
    const range = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    const refusal = await refused(api, range, 'unpriced_project');
    expect(refusal.message).toContain(`${tiny.id}, CreditBased, without amount (above 0 once rounded)`);
    // ON_HOLD, it may not be charged fees: refused only when the invoice takes its time.
    expect((await api.patch(`/projects/${tiny.id}`, { status: 'ON_HOLD' })).status).toBe(200);
    await refused(api, range, 'nothing_to_invoice');
    await logTime(api, { project_id: tiny.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30, billable_rate: 1000 });
    await refused(api, range, 'unpriced_project');
    // Priced blocks (0.5 yen rounds half to even to 0, 1.5 to 2), but time without a rate: unpriced_time.
    expect((await api.patch(`/projects/${tiny.id}`, { status: 'ACTIVE', amount: 1.5 })).status).toBe(200);
    const unrated = await logTime(api, { project_id: tiny.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 30 });
    expect((await refused(api, range, 'unpriced_time')).message).toContain(unrated.id);
    expect(await invoicesOf(api)).toEqual([]);
    expect((await api.patch(`/time_entries/${unrated.id}`, { billable_rate: 2 })).status).toBe(200);
    // 30 min at 1,000 and 30 at 2: 501 yen used, blocks of 2: 251 blocks leave 1.
    expect(creditLine(await created(api, range))).toMatchObject({ blocks: 251, block_amount: '2', credit_used: '501', credit_balance: '1', amount: '502' });
  });
});

describe('unpriced_project', () => {
  it('refuses, changing nothing, a project that may be charged fees without what its type needs; before unpriced_time', async () => {
    const { api } = await fresh();
    const client = await createClient(api, { company_name: 'Unpriced Co' });
    const make = (name: string, fields: Obj) => createProject(api, client.id, { name, start_date: '2026-01-01T00:00:00Z', ...fields });
    const noFixed = await make('No fixed price', { billing_type: 'ProjectBased' });
    const completedNoFixed = await make('Completed, no fixed price', { billing_type: 'ProjectBased', status: 'COMPLETED' });
    const noAmount = await make('No amount', { billing_type: 'Retainer', interval_count: 1, interval_unit: 'Month' });
    const noCount = await make('No count', { billing_type: 'Retainer', amount: 10, interval_unit: 'Month' });
    const noUnit = await make('No unit', { billing_type: 'Retainer', amount: 10, interval_count: 1 });
    // Not charged fees now: never refused for it.
    const held = await make('Held', { billing_type: 'ProjectBased', status: 'ON_HOLD' });
    const doneRetainer = await make('Done retainer', { billing_type: 'Retainer', status: 'COMPLETED' });
    const hours = await make('Hours', { billing_type: 'Monthly' });
    const [covered, unpricedEntry] = (await logTimes(api, [
      { project_id: held.id, started_at: '2026-11-02T09:00:00Z', duration_minutes: 30 },
      { project_id: hours.id, started_at: '2026-11-03T09:00:00Z', duration_minutes: 30 },
    ])) as [Obj, Obj];
    const range = { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };

    const all = await refused(api, range, 'unpriced_project');
    expect(all.message).toMatch(/^5 projects in scope/);
    expect(all.message).toMatch(/prj_[0-9A-Z]{26}/);
    for (const [project, field] of [[noFixed, 'fixed_price'], [completedNoFixed, 'fixed_price'], [noAmount, 'amount'], [noCount, 'interval_count'], [noUnit, 'interval_unit']] as const) {
      const one = await refused(api, { ...range, project_ids: [project.id, hours.id] }, 'unpriced_project');
      expect(one.message, field).toMatch(/^1 project in scope/);
      expect(one.message, field).toContain(project.id);
      expect(one.message, field).toContain(`without ${field}`);
    }
    // Nothing changed: no invoice, no entry locked, no fee marked.
    expect(await invoicesOf(api)).toEqual([]);
    for (const e of [covered, unpricedEntry]) expect((await api.get(`/time_entries/${e.id}`)).body.invoice_id).toBeNull();
    // Without them: the held project's time is covered (its null rate is no refusal), the hourly time is not.
    const time = await refused(api, { ...range, project_ids: [held.id, doneRetainer.id, hours.id] }, 'unpriced_time');
    expect(time.message).toMatch(/^1 billable time entry/);
    expect(time.message).toContain(unpricedEntry.id);
    await refused(api, { ...range, project_ids: [held.id, doneRetainer.id] }, 'nothing_to_invoice');
    // Priced, the project's fee goes through.
    expect((await api.patch(`/projects/${noFixed.id}`, { fixed_price: 99 })).status).toBe(200);
    const invoice = await created(api, { ...range, project_ids: [noFixed.id, held.id] });
    expect(invoice.lines.map((l: Obj) => [l.kind, l.project_id, l.amount])).toEqual([['fixed_price', noFixed.id, '99.00'], ['time', held.id, '0.00']]);
  });
});

/**
 * A create sent with a key of its own and retried with it, honouring Retry-After, while contention
 * answers 503 or 409 idempotency_key_in_use (never a wrong answer); its first other answer.
 */
async function createRetried(token: string, body: Obj) {
  const key = randomUUID();
  for (let attempt = 0; ; attempt++) {
    const response = await call('POST', '/api/v1/invoices', { token, body, headers: { 'Idempotency-Key': key } });
    if (![503, 409].includes(response.status) || response.body.error?.type === 'nothing_to_invoice' || attempt >= 10) return response;
    await new Promise((r) => setTimeout(r, 1000 * Number(response.headers.get('retry-after') ?? 1)));
  }
}

describe('concurrent creates', () => {
  it('10 creates over one credit project state balances that follow one order, and the ledger holds the last', async () => {
    const { id: ws, token, api } = await fresh();
    const client = await createClient(api, { company_name: 'Credit Race Co' });
    // Blocks of 100.00; at 60 an hour each minute uses 1.00. Each create takes one day's entry, worth 101 to 250: every one buys.
    const support = await createProject(api, client.id, { name: 'Prepaid', billing_type: 'CreditBased', amount: 100, hourly_rate: 60 });
    const used = Array.from({ length: 10 }, (_, i) => 101 + ((i * 37) % 150));
    await logTimes(api, used.map((minutes, i) => ({ project_id: support.id, started_at: `2026-11-${String(i + 1).padStart(2, '0')}T09:00:00Z`, duration_minutes: minutes })));
    const create = (_: unknown, i: number) => createRetried(token, { client_id: client.id, from: `2026-11-${String(i + 1).padStart(2, '0')}`, to: `2026-11-${String(i + 2).padStart(2, '0')}` });
    const results = await Promise.all(Array.from({ length: 10 }, create));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);

    // Each line's credit before it (balance − blocks bought + used), and its blocks the fewest that leave it above zero from there.
    const lines = results.map((r) => creditLine(r.body)!);
    const before = (l: Obj) => cents(l.credit_balance) - cents(l.amount) + cents(l.credit_used);
    for (const l of lines) expect(l.blocks, JSON.stringify(l)).toBe(cents(l.credit_used) < before(l) ? 0 : Math.floor((cents(l.credit_used) - before(l)) / 10_000) + 1);
    // One order chains them: the first starts at zero, each next where another ended (a balance may recur, so it is searched).
    const chained = (credit: number, left: Obj[]): boolean =>
      left.length === 0 || left.some((l, i) => before(l) === credit && chained(cents(l.credit_balance), [...left.slice(0, i), ...left.slice(i + 1)]));
    expect(chained(0, lines), JSON.stringify(lines.map((l) => [before(l), cents(l.credit_balance)]))).toBe(true);
    const last = lines.reduce((sum, l) => sum + cents(l.amount) - cents(l.credit_used), 0);
    expect(await ledgerOf(ws, support.id)).toEqual({ credit: String(last), version: 10 });
    expect(lines.map((l) => cents(l.credit_used)).sort()).toEqual(used.map((m) => m * 100).sort());
  });

  it('10 creates over one retainer\'s range charge each period once; covered time lands only on invoices that charge', async () => {
    const { id: ws, token, api } = await fresh();
    const client = await createClient(api, { company_name: 'Race Co' });
    const retainer = await createProject(api, client.id, {
      name: 'Monthly care', billing_type: 'Retainer', amount: 100, interval_count: 1, interval_unit: 'Month', start_date: '2026-01-01T00:00:00Z',
    });
    const entries: string[] = [];
    const months = [1, 2, 3, 4, 5, 6];
    entries.push(...(await logTimes(api, months.map((month) => ({ project_id: retainer.id, started_at: `2026-0${month}-10T09:00:00Z`, duration_minutes: 10 * month })))).map((e) => e.id as string));
    // Two over the whole range, the others over parts of it that overlap: the periods split among those that commit first.
    const ranges = [['01', '07'], ['01', '04'], ['03', '07'], ['02', '05'], ['04', '06']];
    const create = (_: unknown, i: number) => {
      const [from, to] = ranges[i % ranges.length]!;
      return createRetried(token, { client_id: client.id, from: `2026-${from}-01`, to: `2026-${to}-01` });
    };
    const results = await Promise.all(Array.from({ length: 10 }, create));
    for (const r of results) expect([[201, undefined], [409, 'nothing_to_invoice']], JSON.stringify(r.body)).toContainEqual([r.status, r.body.error?.type]);
    expect(results.filter((r) => r.status === 201).length).toBeGreaterThan(0);

    const invoices = await invoicesOf(api);
    expect(invoices.map((i) => i.id).sort()).toEqual(results.filter((r) => r.status === 201).map((r) => r.body.id).sort());
    // Each period on exactly one invoice; its mark names that invoice.
    const periods = invoices.flatMap((i) => feeLines(i).map((l) => [l.period_start as string, i.id as string] as const));
    expect(periods.map(([start]) => start).sort()).toEqual(['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01']);
    expect(await marksOf(ws, retainer.id)).toEqual(Object.fromEntries(periods.map(([start, id]) => [`RETAINER#${start}`, id])));
    // Every entry on exactly one invoice, which charges something; the lines total the entries naming it.
    const named = await Promise.all(entries.map(async (id) => (await api.get(`/time_entries/${id}`)).body as Obj));
    for (const e of named) expect(invoices.map((i) => i.id)).toContain(e.invoice_id);
    for (const invoice of invoices) {
      const mine = named.filter((e) => e.invoice_id === invoice.id);
      expect(invoice.time_entry_count).toBe(mine.length);
      expect((invoice.lines as Obj[]).filter((l) => l.kind === 'time').reduce((m, l) => m + l.minutes, 0)).toBe(mine.reduce((m, e) => m + e.duration_minutes, 0));
      expect(feeLines(invoice).length).toBeGreaterThan(0);
      expect(invoice.total).toBe(`${feeLines(invoice).length * 100}.00`);
    }
  });
});
