/**
 * The business profile over HTTP (contract, "Business profile and the invoice document"; its
 * `default_taxes`: "Invoice items, taxes and payments"): one per workspace from the start, PATCH
 * with ETags and null clearing, refusals that change nothing, its event, and the taxes an invoice
 * created without `taxes` or `tax_rate` takes.
 */
import { describe, expect, it } from 'vitest';
import { call, createClient, expectError, token, workspace } from '../support/api.ts';
import { eventsWhen } from '../support/events.ts';

const TPS_TVQ = [
  { name: 'TPS', rate: 5 },
  { name: 'TVQ', rate: 9.975 },
];

describe('the business profile', () => {
  it('is there from the start, unset; PATCH sets and clears fields on If-Match; an empty PATCH changes nothing', async () => {
    const { id: ws, api } = await workspace('profile');
    const first = await api.get('/business_profile');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      object: 'business_profile', id: expect.stringMatching(/^bp_[0-9A-Z]{26}$/), company_name: null, company_email: null, company_address: null, website: null, phone: null,
      business_number: null, tps_number: null, tvq_number: null, invoice_footer: null, bilingual_invoices: false, default_taxes: [], auto_billing: false, billing_timezone: 'UTC', workspace_id: ws, updated_at: null,
    });
    expect((await api.get('/business_profile')).body.id).toBe(first.body.id);
    expect((await (await workspace('profile-other')).api.get('/business_profile')).body.id).not.toBe(first.body.id);

    const etag = first.headers.get('etag')!;
    const set = await call('PATCH', '/api/v1/business_profile', {
      token: await token(ws),
      body: { company_name: 'Studio Érable inc.', company_address: '123 rue Saint-Denis\nMontréal QC', phone: '+1 514 555 0100', tps_number: '123456789 RT0001', bilingual_invoices: true, default_taxes: TPS_TVQ },
      headers: { 'If-Match': etag },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ company_name: 'Studio Érable inc.', bilingual_invoices: true, default_taxes: TPS_TVQ, id: first.body.id });
    expect(Date.parse(set.body.updated_at)).toBeGreaterThan(0);
    // The ETag it was read with is stale now.
    expectError(await call('PATCH', '/api/v1/business_profile', { token: await token(ws), body: { phone: null }, headers: { 'If-Match': etag } }), 412, 'precondition_failed');
    const cleared = await api.patch('/business_profile', { phone: null, default_taxes: [] });
    expect([cleared.body.phone, cleared.body.default_taxes, cleared.body.company_name]).toEqual([null, [], 'Studio Érable inc.']);
    const unchanged = await api.patch('/business_profile', {});
    expect(unchanged.body).toEqual(cleared.body);
    expect(unchanged.headers.get('etag')).toBe(cleared.headers.get('etag'));
  });

  it('refuses what no field holds, naming it, and changes nothing', async () => {
    const { api } = await workspace('profile-refusals');
    await api.patch('/business_profile', { company_name: 'Kept', default_taxes: TPS_TVQ });
    const before = (await api.get('/business_profile')).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ bilingual_invoices: null }, 'bilingual_invoices'],
      [{ default_taxes: null }, 'default_taxes'],
      [{ default_taxes: [...TPS_TVQ, { name: 'HST', rate: 13 }] }, 'default_taxes'],
      [{ default_taxes: [{ name: 'TPS', rate: 5 }, { name: 'TPS', rate: 9.975 }] }, 'default_taxes[1].name'],
      [{ default_taxes: [{ name: 'TPS', rate: 101 }] }, 'default_taxes[0].rate'],
      [{ phone: 'x'.repeat(41) }, 'phone'],
      [{ phone: 'two\nlines' }, 'phone'],
      [{ invoice_footer: 'x'.repeat(2001) }, 'invoice_footer'],
      [{ company_email: 'not an email' }, 'company_email'],
      [{ auto_billing: 'yes' }, 'auto_billing'],
      [{ billing_timezone: 'Mars/Olympus' }, 'billing_timezone'],
      [{ id: before.id }, 'id'],
      [{ updated_at: before.updated_at }, 'updated_at'],
    ];
    for (const [body, param] of cases) expect(expectError(await api.patch('/business_profile', body), 400, 'invalid_request').param, JSON.stringify(body)).toBe(param);
    expect((await api.get('/business_profile')).body).toEqual(before);
  });

  it('gives an invoice created without taxes or tax_rate its default_taxes; tax_rate 0 or taxes given override them', async () => {
    const { api } = await workspace('profile-taxes');
    const client = await createClient(api, { currency: 'CAD' });
    const items = [{ description: 'Design', quantity: 1, unit_price: 100 }];
    const none = await api.post('/invoices', { client_id: client.id, items });
    expect([none.body.taxes, none.body.total]).toEqual([[], '100.00']);
    await api.patch('/business_profile', { default_taxes: TPS_TVQ });
    const defaulted = await api.post('/invoices', { client_id: client.id, items });
    expect(defaulted.body.taxes.map((t: { name: string; amount: string }) => [t.name, t.amount])).toEqual([['TPS', '5.00'], ['TVQ', '9.98']]);
    expect([defaulted.body.tax_rate, defaulted.body.total]).toEqual([14.975, '114.98']);
    expect((await api.post('/invoices', { client_id: client.id, items, tax_rate: 0 })).body.taxes).toEqual([]);
    expect((await api.post('/invoices', { client_id: client.id, items, taxes: [{ name: 'GST', rate: 5 }] })).body.taxes.map((t: { name: string }) => t.name)).toEqual(['GST']);
    // A PATCH of a draft without taxes keeps the draft's, whatever the profile says now.
    await api.patch('/business_profile', { default_taxes: [] });
    expect((await api.patch(`/invoices/${defaulted.body.id}`, { memo: 'x' })).body.total).toBe('114.98');
  });

  it('is frozen on an invoice at finalize with its client (issuer, recipient: exactly the fields its document shows); later changes change no finalized invoice', async () => {
    const { api } = await workspace('profile-freeze');
    await api.patch('/business_profile', { company_name: 'Studio Érable inc.', tvq_number: '1234567890 TQ0001', invoice_footer: 'Merci!', bilingual_invoices: true });
    const client = await createClient(api, { company_name: 'Clinique Dentaire Maple', language: 'FRENCH', currency: 'CAD' });
    const draft = (await api.post('/invoices', { client_id: client.id, items: [{ description: 'Audit', quantity: 1, unit_price: 100 }] })).body;
    expect([draft.issuer, draft.recipient]).toEqual([null, null]);
    const finalized = (await api.post(`/invoices/${draft.id}/finalize`, {})).body;
    expect(finalized.issuer).toEqual({
      company_name: 'Studio Érable inc.', company_email: null, company_address: null, website: null, phone: null, business_number: null,
      tps_number: null, tvq_number: '1234567890 TQ0001', invoice_footer: 'Merci!', bilingual_invoices: true,
    });
    expect(finalized.recipient).toEqual({
      company_name: 'Clinique Dentaire Maple', company_email: client.company_email, company_address: null, business_number: null, tps_number: null, tvq_number: null, language: 'FRENCH',
    });
    await api.patch('/business_profile', { company_name: 'Renamed', bilingual_invoices: false });
    await api.patch(`/clients/${client.id}`, { company_name: 'Renamed client', language: 'ENGLISH' });
    const later = (await api.get(`/invoices/${draft.id}`)).body;
    expect([later.issuer, later.recipient]).toEqual([finalized.issuer, finalized.recipient]);
  });

  it('makes business_profile.updated for each change (its first from the defaults), seen with business_profile:read alone', async () => {
    const { id: ws, api } = await workspace('profile-events');
    await api.patch('/business_profile', { company_name: 'First' });
    await api.patch('/business_profile', {});
    await api.patch('/business_profile', { company_name: 'Second', bilingual_invoices: true });
    const events = await eventsWhen(api, 2);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['business_profile.updated', 'business_profile.updated']);
    expect(events[0].data.previous_attributes).toEqual({ company_name: null, updated_at: null });
    expect(events[1].data.previous_attributes).toMatchObject({ company_name: 'First', bilingual_invoices: false });
    const readOnly = await token(ws, ['events:read', 'business_profile:read']);
    expect((await call('GET', '/api/v1/events?type=business_profile.updated', { token: readOnly })).body.data).toHaveLength(2);
    const without = await token(ws, ['events:read', 'clients:read']);
    expectError(await call('GET', '/api/v1/events?type=business_profile.updated', { token: without }), 403, 'insufficient_scope');
    expectError(await call('GET', '/api/v1/business_profile', { token: without }), 403, 'insufficient_scope');
  });
});
