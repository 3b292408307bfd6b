/**
 * Payments over HTTP (contract, "Invoice items, taxes and payments"): instalments against a TPS
 * and TVQ invoice, every refusal (and that it changes nothing), reopening by delete, void refused
 * with payments, an invoice finalized at zero, keyed retries, and races: 20 payments that together
 * exceed the total, and deletes racing records, leaving amount_paid equal to the payments listed.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createClient, expectError, workspace, type Api } from '../support/api.ts';
import { eventsWhen } from '../support/events.ts';

let api: Api;
let token: string;
beforeAll(async () => {
  ({ api, token } = await workspace('payments'));
});

const TPS_TVQ = [
  { name: 'TPS', rate: 5 },
  { name: 'TVQ', rate: 9.975 },
];

/** A finalized invoice of items alone (issue date 2026-11-30 in Montréal), in `currency`. */
async function openInvoice(items: { description: string; quantity: number; unit_price: number; taxable?: boolean }[], currency = 'CAD', taxes = TPS_TVQ) {
  const client = await createClient(api, { currency });
  const draft = await api.post('/invoices', { client_id: client.id, items, taxes, timezone: 'America/Montreal' });
  expect(draft.status, JSON.stringify(draft.body)).toBe(201);
  const open = await api.post(`/invoices/${draft.body.id}/finalize`, { issue_date: '2026-11-30' });
  expect(open.status, JSON.stringify(open.body)).toBe(200);
  return open.body;
}

const pay = (invoiceId: string, body: unknown, headers: Record<string, string> = {}) => call('POST', `/api/v1/invoices/${invoiceId}/payments`, { token, body, headers });
const payments = async (invoiceId: string) => {
  const page = await api.get(`/invoices/${invoiceId}/payments?limit=100`);
  expect(page.status).toBe(200);
  return page.body.data as { id: string; amount: string }[];
};
const minor = (amount: string) => BigInt(amount.replace('.', ''));

describe('instalments', () => {
  it('a TPS and TVQ invoice paid in two instalments: amount_paid, amount_due, paid at the second, reopened by a delete', async () => {
    const invoice = await openInvoice([{ description: 'Site redesign', quantity: 1, unit_price: 100 }]);
    // Revenu Québec's example: 5.00 and 9.98 on 100.00.
    expect(invoice.taxes.map((t: { amount: string }) => t.amount)).toEqual(['5.00', '9.98']);
    expect([invoice.total, invoice.amount_paid, invoice.amount_due]).toEqual(['114.98', '0.00', '114.98']);

    const first = await pay(invoice.id, { amount: '50', paid_at: '2026-12-01T10:00:00-05:00', method: 'cheque', reference: 'Cheque 1042' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ object: 'payment', invoice_id: invoice.id, amount: '50.00', paid_at: '2026-12-01T15:00:00.000Z', method: 'cheque', reference: 'Cheque 1042' });
    expect(first.body.id).toMatch(/^pay_[0-9A-Z]{26}$/);
    expect(first.body).not.toHaveProperty('updated_at');
    expect(first.headers.get('location')).toBe(`/api/v1/invoices/${invoice.id}/payments/${first.body.id}`);
    expect((await api.get(`/invoices/${invoice.id}/payments/${first.body.id}`)).body).toEqual(first.body);
    let read = (await api.get(`/invoices/${invoice.id}`)).body;
    expect([read.status, read.amount_paid, read.amount_due, read.paid_at]).toEqual(['open', '50.00', '64.98', null]);

    const second = await pay(invoice.id, { amount: '64.98', paid_at: '2026-12-01T09:00:00Z', method: 'bank_transfer' });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body).toMatchObject({ reference: null, method: 'bank_transfer' });
    read = (await api.get(`/invoices/${invoice.id}`)).body;
    // Paid at the latest paid_at of its payments, not the last recorded.
    expect([read.status, read.amount_paid, read.amount_due, read.paid_at]).toEqual(['paid', '114.98', '0.00', '2026-12-01T15:00:00.000Z']);
    expect((await payments(invoice.id)).map((p) => p.id)).toEqual([second.body.id, first.body.id]);

    // Paid: no more payments, whatever the body.
    expectError(await pay(invoice.id, { amount: 'not even a number' }), 409, 'invalid_state');

    const deleted = await api.delete(`/invoices/${invoice.id}/payments/${first.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'payment', id: first.body.id, deleted: true });
    read = (await api.get(`/invoices/${invoice.id}`)).body;
    expect([read.status, read.amount_paid, read.amount_due, read.paid_at]).toEqual(['open', '64.98', '50.00', null]);
    expectError(await api.get(`/invoices/${invoice.id}/payments/${first.body.id}`), 404, 'not_found');
    expectError(await api.delete(`/invoices/${invoice.id}/payments/${first.body.id}`), 404, 'not_found');
    // Void only without payments.
    const refused = expectError(await api.post(`/invoices/${invoice.id}/void`, {}), 409, 'invalid_state');
    expect(refused.message).toContain('payments');
    expect((await api.delete(`/invoices/${invoice.id}/payments/${second.body.id}`)).status).toBe(200);
    expect((await api.post(`/invoices/${invoice.id}/void`, {})).body.status).toBe('void');
    expectError(await pay(invoice.id, { amount: '1.00' }), 409, 'invalid_state');
  });

  it('pay records one payment of the whole balance, on the terms given', async () => {
    const invoice = await openInvoice([{ description: 'Licence', quantity: 3, unit_price: 33.33, taxable: false }]);
    expect((await pay(invoice.id, { amount: '0.99' })).status).toBe(201);
    const paid = await api.post(`/invoices/${invoice.id}/pay`, { method: 'card', reference: 'ch_123' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect([paid.body.status, paid.body.amount_paid, paid.body.amount_due]).toEqual(['paid', '99.99', '0.00']);
    const list = await payments(invoice.id);
    expect(list.map((p) => p.amount)).toEqual(['99.00', '0.99']);
    expect(list[0]).toMatchObject({ method: 'card', reference: 'ch_123' });
  });

  it('a draft, and an invoice finalized at a total of zero, take no payment; the latter is paid at finalize', async () => {
    const client = await createClient(api, { currency: 'CAD' });
    const draft = await api.post('/invoices', { client_id: client.id, items: [{ description: 'Goodwill', quantity: 1, unit_price: 0 }] });
    expectError(await pay(draft.body.id, { amount: '1.00' }), 409, 'invalid_state');
    const finalized = await api.post(`/invoices/${draft.body.id}/finalize`, {});
    expect([finalized.body.status, finalized.body.total, finalized.body.amount_paid, finalized.body.amount_due]).toEqual(['paid', '0.00', '0.00', '0.00']);
    expect(finalized.body.paid_at).toBe(finalized.body.finalized_at);
    expect(finalized.body.number).toMatch(/^INV-/);
    expectError(await pay(draft.body.id, { amount: '1.00' }), 409, 'invalid_state');
    // Such an invoice may still be voided.
    expect((await api.post(`/invoices/${draft.body.id}/void`, {})).body.status).toBe('void');
  });

  it('amounts in the currency\'s minor unit: JPY whole, KWD to the fils', async () => {
    const yen = await openInvoice([{ description: 'Consulting', quantity: 1, unit_price: 10000 }], 'JPY', []);
    expect((await pay(yen.id, { amount: '1500' })).body.amount).toBe('1500');
    expect(expectError(await pay(yen.id, { amount: '1500.5' }), 400, 'invalid_request').param).toBe('amount');
    const dinar = await openInvoice([{ description: 'Consulting', quantity: 1, unit_price: 100 }], 'KWD', []);
    expect((await pay(dinar.id, { amount: '12.345' })).body.amount).toBe('12.345');
    expect((await pay(dinar.id, { amount: '1.5' })).body.amount).toBe('1.500');
    expect((await api.get(`/invoices/${dinar.id}`)).body.amount_due).toBe('86.155');
  });
});

describe('refusals change nothing', () => {
  it('hostile amounts, paid_at outside the invoice\'s life, other fields: 400 naming the field', async () => {
    const invoice = await openInvoice([{ description: 'Audit', quantity: 1, unit_price: 100 }]);
    const before = (await api.get(`/invoices/${invoice.id}`)).body;
    const cases: [unknown, string][] = [
      [{ amount: 100 }, 'amount'],
      [{ amount: '1e3' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: '+5' }, 'amount'],
      [{ amount: ' 5' }, 'amount'],
      [{ amount: '5.' }, 'amount'],
      [{ amount: '.5' }, 'amount'],
      [{ amount: '5.001' }, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '0.00' }, 'amount'],
      [{ amount: '114.99' }, 'amount'],
      [{ amount: '9'.repeat(40) }, 'amount'],
      [{ amount: 'NaN' }, 'amount'],
      [{}, 'amount'],
      [{ amount: '1.00', paid_at: '2099-01-01T00:00:00Z' }, 'paid_at'],
      // Before the start of its issue date in Montréal (2026-11-30T05:00:00Z) and its finalize.
      [{ amount: '1.00', paid_at: '2026-11-30T04:59:59Z' }, 'paid_at'],
      [{ amount: '1.00', method: 'bitcoin' }, 'method'],
      [{ amount: '1.00', reference: '' }, 'reference'],
      [{ amount: '1.00', reference: 'two\nlines' }, 'reference'],
      [{ amount: '1.00', reference: 'x'.repeat(201) }, 'reference'],
      [{ amount: '1.00', invoice_id: invoice.id }, 'invoice_id'],
      [{ amount: '1.00', colour: 'blue' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await pay(invoice.id, body), 400, 'invalid_request');
      expect(error.param, JSON.stringify(body)).toBe(param);
    }
    expect(await payments(invoice.id)).toEqual([]);
    expect((await api.get(`/invoices/${invoice.id}`)).body).toEqual(before);
    // The start of the issue date is allowed: it is before the finalize.
    expect((await pay(invoice.id, { amount: '114.98', paid_at: '2026-11-30T05:00:00Z' })).status).toBe(201);
  });

  it('paths that name nothing, or another invoice\'s payment, or another workspace\'s: 404', async () => {
    const [a, b] = [await openInvoice([{ description: 'A', quantity: 1, unit_price: 10 }]), await openInvoice([{ description: 'B', quantity: 1, unit_price: 10 }])];
    const paid = (await pay(a.id, { amount: '1.00' })).body;
    expectError(await api.get(`/invoices/${b.id}/payments/${paid.id}`), 404, 'not_found');
    expectError(await api.delete(`/invoices/${b.id}/payments/${paid.id}`), 404, 'not_found');
    expectError(await api.get('/invoices/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV/payments'), 404, 'not_found');
    expectError(await pay('inv_01ARZ3NDEKTSV4RRFFQ69G5FAV', { amount: '1.00' }), 404, 'not_found');
    const other = await workspace('payments-other');
    expectError(await other.api.get(`/invoices/${a.id}/payments/${paid.id}`), 404, 'not_found');
    expectError(await other.api.get(`/invoices/${a.id}/payments`), 404, 'not_found');
    expectError(await other.api.post(`/invoices/${a.id}/payments`, { amount: '1.00' }), 404, 'not_found');
    expectError(await other.api.delete(`/invoices/${a.id}/payments/${paid.id}`), 404, 'not_found');
    expect(await payments(a.id)).toHaveLength(1);
    expect((await api.get(`/invoices/${a.id}`)).body.amount_paid).toBe('1.00');
  });

  it('an invoice holds at most 100 payments: the 101st is a 409 naming the limit', async () => {
    const { id: ws, api: own } = await workspace('payments-limit');
    const client = await createClient(own, { currency: 'CAD' });
    const draft = (await own.post('/invoices', { client_id: client.id, items: [{ description: 'Build', quantity: 1, unit_price: 100 }] })).body;
    await own.post(`/invoices/${draft.id}/finalize`, {});
    const first = (await own.post(`/invoices/${draft.id}/payments`, { amount: '1.00' })).body;
    // 99 more in the invoice's own count of its payments (its map of paid_at by id), written straight to the table.
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const more = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`pay_01JD0000000000000000000${String(i).padStart(3, '0')}`, first.paid_at]));
    await db.send(new UpdateCommand({ TableName: inject('tableName'), Key: { PK: `WS#${ws}`, SK: `INVOICE#${draft.id}` }, UpdateExpression: 'SET payments = :p', ExpressionAttributeValues: { ':p': { [first.id]: first.paid_at, ...more } } }));
    db.destroy();
    const refused = expectError(await own.post(`/invoices/${draft.id}/payments`, { amount: '1.00' }), 409, 'invalid_state');
    expect(refused.message).toContain('100 payments');
    expect((await own.get(`/invoices/${draft.id}`)).body.amount_paid).toBe('1.00');
    // One deleted, there is room again.
    expect((await own.delete(`/invoices/${draft.id}/payments/${first.id}`)).status).toBe(200);
    expect((await own.post(`/invoices/${draft.id}/payments`, { amount: '1.00' })).status).toBe(201);
  });

  it('a keyed retry answers the same payment; the key with another body is a 422', async () => {
    const invoice = await openInvoice([{ description: 'Retainer', quantity: 1, unit_price: 100 }]);
    const key = randomUUID();
    const first = await pay(invoice.id, { amount: '10.00' }, { 'Idempotency-Key': key });
    const again = await pay(invoice.id, { amount: '10.00' }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectError(await pay(invoice.id, { amount: '11.00' }, { 'Idempotency-Key': key }), 422, 'idempotency_key_reused');
    const deleteKey = randomUUID();
    const path = `/api/v1/invoices/${invoice.id}/payments/${first.body.id}`;
    expect((await call('DELETE', path, { token, headers: { 'Idempotency-Key': deleteKey } })).status).toBe(200);
    const replayed = await call('DELETE', path, { token, headers: { 'Idempotency-Key': deleteKey } });
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(await payments(invoice.id)).toEqual([]);
    expect((await api.get(`/invoices/${invoice.id}`)).body.amount_paid).toBe('0.00');
  });
});

describe('races', () => {
  it('20 concurrent payments that together exceed the total never overpay; amount_paid is the sum of those listed', async () => {
    const invoice = await openInvoice([{ description: 'Build', quantity: 1, unit_price: 100 }], 'CAD', []);
    // 20 × 7.00 = 140.00 against 100.00: at most 14 fit; the rest are 400s naming amount, or 409s once paid.
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(invoice.id, { amount: '7.00' })));
    const made = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect([400, 409], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 400) expect(r.body.error.param).toBe('amount');
    }
    expect(made).toHaveLength(14);
    const listed = await payments(invoice.id);
    const sum = listed.reduce((s, p) => s + minor(p.amount), 0n);
    const read = (await api.get(`/invoices/${invoice.id}`)).body;
    expect(sum).toBe(9800n);
    expect([read.amount_paid, read.amount_due, read.status]).toEqual(['98.00', '2.00', 'open']);
  });

  it('deletes racing records leave amount_paid equal to the payments listed', async () => {
    const invoice = await openInvoice([{ description: 'Build', quantity: 1, unit_price: 100 }], 'CAD', []);
    const early = await Promise.all(Array.from({ length: 5 }, () => pay(invoice.id, { amount: '10.00' })));
    const results = await Promise.all([
      ...early.map((r) => api.delete(`/invoices/${invoice.id}/payments/${r.body.id}`)),
      ...Array.from({ length: 8 }, () => pay(invoice.id, { amount: '9.00' })),
    ]);
    expect(results.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const listed = await payments(invoice.id);
    const read = (await api.get(`/invoices/${invoice.id}`)).body;
    expect(listed.length).toBe(results.slice(5).filter((r) => r.status === 201).length);
    expect(BigInt(listed.reduce((s, p) => s + minor(p.amount), 0n))).toBe(minor(read.amount_paid));
    expect(minor(read.amount_paid) + minor(read.amount_due)).toBe(10000n);
  });
});

describe('events', () => {
  it('each payment makes payment.created or .deleted and its invoice invoice.updated, or invoice.paid; a finalize at zero, finalized then paid', async () => {
    const own = await workspace('payments-events');
    const client = await createClient(own.api, { currency: 'CAD' });
    const draft = (await own.api.post('/invoices', { client_id: client.id, items: [{ description: 'Setup', quantity: 1, unit_price: 20 }] })).body;
    await own.api.post(`/invoices/${draft.id}/finalize`, {});
    const first = (await own.api.post(`/invoices/${draft.id}/payments`, { amount: '5.00' })).body;
    await own.api.post(`/invoices/${draft.id}/payments`, { amount: '15.00' });
    await own.api.delete(`/invoices/${draft.id}/payments/${first.id}`);
    const zero = (await own.api.post('/invoices', { client_id: client.id, items: [{ description: 'Goodwill', quantity: 1, unit_price: 0 }] })).body;
    await own.api.post(`/invoices/${zero.id}/finalize`, {});
    const events = (await eventsWhen(own.api, 12)).filter((e: { type: string }) => !e.type.startsWith('client.'));
    const of = (id: string) => events.filter((e: { data: { object: { id: string } } }) => e.data.object.id === id).map((e: { type: string }) => e.type);
    expect(of(draft.id)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.updated', 'invoice.paid', 'invoice.updated']);
    expect(of(first.id)).toEqual(['payment.created', 'payment.deleted']);
    expect(of(zero.id)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.paid']);
    const reopened = events.filter((e: { data: { object: { id: string } } }) => e.data.object.id === draft.id).at(-1);
    expect(reopened.data.previous_attributes).toMatchObject({ status: 'paid', amount_paid: '20.00', amount_due: '0.00' });
  });
});
