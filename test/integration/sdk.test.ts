/**
 * The SDK (sdk/) against the local stack, as an integrator uses it: create, every page of a list
 * fetched lazily, updates guarded by the ETag a result carries, a delete replayed by its
 * Idempotency-Key, failures as TimebillError, a time entry corrected and moved, a month
 * invoiced through its lifecycle and paid in instalments, the business profile and the taxes it
 * gives an invoice, a billing run waited for and its outcomes, and the events feed in both modes. The README's first lines run from the packed SDK (sdk-package.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Timebill, TimebillError, etagOf, responseOf, verifyWebhook, type Client, type Event } from '../../sdk/src/index.ts';
import { baseUrl, workspace } from '../support/api.ts';
import { startReceiver, waitFor } from '../support/events.ts';

let tb: Timebill;
let requests: string[];

beforeAll(async () => {
  const { token } = await workspace('sdk');
  requests = [];
  const counting: typeof fetch = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return fetch(input, init);
  };
  tb = new Timebill(token, { baseUrl: `${baseUrl()}/api/v1`, fetch: counting });
});

describe('the SDK against the local stack', () => {
  it('creates, retrieves and lists every page lazily, with the list\'s filters', async () => {
    const created: Client[] = [];
    for (let i = 0; i < 5; i++) created.push(await tb.clients.create({ company_name: `SDK ${i}`, company_email: `sdk${i}@acme.test`, status: 'ACTIVE' }));
    await tb.clients.create({ company_name: 'Lead', company_email: 'lead@acme.test', status: 'LEAD' });
    expect(created[0]).toMatchObject({ object: 'client', company_name: 'SDK 0', status: 'ACTIVE' });
    expect(etagOf(created[0]!)).toMatch(/^"\d+"$/);
    expect(await tb.clients.retrieve(created[0]!.id)).toEqual(created[0]);

    requests.length = 0;
    const seen: string[] = [];
    for await (const client of tb.clients.list({ status: 'ACTIVE', limit: 2 })) {
      seen.push(client.id);
      // Lazily: the second page is fetched only once the loop has used the first.
      if (seen.length === 2) expect(requests).toHaveLength(1);
    }
    expect(seen).toEqual(created.map((c) => c.id).reverse()); // newest first, the LEAD filtered out
    expect(requests).toHaveLength(3);
    expect(requests[1]).toContain('cursor=');
  });

  it('lists as CSV (format csv): a page of the filtered list, the next fetched through its Link, each with its header row', async () => {
    const tag = `csv${Date.now().toString(36)}`;
    const created = await Promise.all([1, 2].map((i) => tb.clients.create({ company_name: `${tag} ${i}`, company_email: `${tag}${i}@acme.test` })));
    requests.length = 0;
    const pages = [];
    for await (const page of tb.clients.list({ search: tag, limit: 1 }, { format: 'csv' }).pages()) pages.push(page);
    expect(pages).toHaveLength(2);
    expect(pages[0]!.next).toEqual(expect.stringMatching(/[?&]cursor=/));
    expect(pages[0]!.next!.startsWith(`${baseUrl()}/api/v1/clients?`)).toBe(true); // absolute, on the request's origin
    expect(pages[1]!.next).toBeNull();
    expect(requests).toEqual([`GET ${baseUrl()}/api/v1/clients?search=${tag}&limit=1`, `GET ${pages[0]!.next}`]);
    const [header, ...rows] = pages.map((p) => p.csv.split('\r\n'));
    expect(header![0]).toMatch(/^object,id,/);
    expect(rows.map((lines) => lines[0])).toEqual([header![0]]); // the second page has its header row too
    expect(pages.map((p) => p.csv.split('\r\n')[1]!.split(',')[1]).sort()).toEqual(created.map((c) => c.id).sort());
  });

  it('updates with ifMatch from a result, and refuses a stale one with 412', async () => {
    const client = await tb.clients.create({ company_name: 'Versioned', company_email: 'v@acme.test' });
    const renamed = await tb.clients.update(client.id, { company_name: 'Versioned 2' }, { ifMatch: client });
    expect(renamed.company_name).toBe('Versioned 2');
    expect(etagOf(renamed)).not.toBe(etagOf(client));
    const stale = await tb.clients.update(client.id, { company_name: 'Versioned 3' }, { ifMatch: client }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(TimebillError);
    expect(stale).toMatchObject({ status: 412, type: 'precondition_failed' });
    expect((await tb.clients.retrieve(client.id)).company_name).toBe('Versioned 2');
  });

  it('replays a delete sent again with its Idempotency-Key', async () => {
    const client = await tb.clients.create({ company_name: 'Doomed', company_email: 'd@acme.test' });
    const key = `sdk-del-${client.id}`;
    const first = await tb.clients.del(client.id, { idempotencyKey: key, ifMatch: client });
    const again = await tb.clients.del(client.id, { idempotencyKey: key, ifMatch: client });
    expect(first).toEqual({ object: 'client', id: client.id, deleted: true });
    expect(again).toEqual(first);
    expect(responseOf(first)?.idempotentReplayed).toBe(false);
    expect(responseOf(again)?.idempotentReplayed).toBe(true);
    await expect(tb.clients.retrieve(client.id)).rejects.toMatchObject({ status: 404, type: 'not_found' });
  });

  it('throws TimebillError with the status, type, message, param and request id of the API\'s error', async () => {
    const error = await tb.clients.create({ company_name: 'Bad', company_email: 'not-an-email' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimebillError);
    const e = error as TimebillError;
    expect(e).toMatchObject({ status: 400, type: 'invalid_request', param: 'company_email' });
    expect(e.message).toMatch(/email/i);
    expect(e.requestId).toEqual(expect.any(String));
    expect(e.requestId).not.toBe('');

    const missing = await tb.projects.retrieve('prj_01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((x: unknown) => x);
    expect(missing).toMatchObject({ name: 'TimebillError', status: 404, type: 'not_found', param: null });
  });

  it('logs a time entry, corrects it and moves it to another project, guarded by its ETag', async () => {
    const client = await tb.clients.create({ company_name: 'Hours', company_email: 'h@acme.test' });
    const [from, to] = await Promise.all(
      ['From', 'To'].map((name) => tb.projects.create({ name, billing_type: 'Monthly', client_id: client.id })),
    );
    const entry = await tb.timeEntries.create({ project_id: from!.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 });
    expect(entry).toMatchObject({ object: 'time_entry', project_id: from!.id, client_id: client.id, duration_minutes: 30 });
    const fixed = await tb.timeEntries.update(entry.id, { duration_minutes: 45, billable: false }, { ifMatch: entry });
    const moved = await tb.timeEntries.update(entry.id, { project_id: to!.id }, { ifMatch: fixed });
    expect(moved).toMatchObject({ id: entry.id, project_id: to!.id, client_id: client.id, duration_minutes: 45, billable: false });
    const onTarget = await tb.timeEntries.list({ project_id: to!.id }).toArray();
    expect(onTarget.map((e) => e.id)).toEqual([entry.id]);
    expect(await tb.timeEntries.list({ project_id: from!.id }).toArray()).toEqual([]);
  });

  it('logs a batch of time entries with createMany, in order, replayed by its key; a batch with one invalid entry is a 400 naming it, and makes nothing', async () => {
    const client = await tb.clients.create({ company_name: 'Migrated', company_email: 'm@acme.test' });
    const project = await tb.projects.create({ name: 'Imported', billing_type: 'Monthly', client_id: client.id });
    const bodies = ['2026-11-02T09:00:00Z', '2026-11-03T09:00:00Z', '2026-11-04T09:00:00Z'].map((started_at, i) => ({ project_id: project.id, started_at, duration_minutes: 30 + i }));
    const key = `sdk-batch-${project.id}`;
    const made = await tb.timeEntries.createMany(bodies, { idempotencyKey: key });
    expect(made).toEqual(
      bodies.map((body) => expect.objectContaining({ object: 'time_entry', id: expect.stringMatching(/^te_/), project_id: project.id, client_id: client.id, started_at: body.started_at.replace('Z', '.000Z'), duration_minutes: body.duration_minutes })),
    );
    expect(responseOf(made)).toMatchObject({ status: 201, etag: null, idempotentReplayed: false });
    const replayed = await tb.timeEntries.createMany(bodies, { idempotencyKey: key });
    expect([replayed, responseOf(replayed)?.idempotentReplayed]).toEqual([made, true]);
    const listed = await tb.timeEntries.list({ project_id: project.id }).toArray();
    expect(listed.map((e) => e.id)).toEqual(made.map((e) => e.id).reverse()); // newest first by started_at

    const invalid = await tb.timeEntries
      .createMany([{ ...bodies[0]!, started_at: '2026-11-05T09:00:00Z' }, { ...bodies[1]!, started_at: 'yesterday' }, { ...bodies[2]!, started_at: '2026-11-06T09:00:00Z' }])
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(TimebillError);
    expect(invalid).toMatchObject({ status: 400, type: 'invalid_request', param: 'entries[1].started_at' });
    expect(await tb.timeEntries.list({ project_id: project.id }).toArray()).toEqual(listed);
  });

  it('bills a month: an invoice created from the time, listed by its filters page by page, changed, finalized, paid in instalments (listed page by page, one deleted) and its balance; another voided, a draft deleted', async () => {
    const client = await tb.clients.create({ company_name: 'Billed', company_email: 'b@acme.test', currency: 'EUR' });
    const project = await tb.projects.create({ name: 'Retainer', billing_type: 'Monthly', client_id: client.id, hourly_rate: 100 });
    const log = (started_at: string) => tb.timeEntries.create({ project_id: project.id, started_at, duration_minutes: 90 });
    const [october, november] = [await log('2026-10-15T09:00:00Z'), await log('2026-11-20T09:00:00Z')];
    const month = (from: string, to: string) => tb.invoices.create({ client_id: client.id, from, to, timezone: 'Europe/Paris', tax_rate: 20 });

    const draft = await month('2026-11-01', '2026-12-01');
    expect(draft).toMatchObject({ object: 'invoice', status: 'draft', number: null, currency: 'EUR', time_entry_count: 1, subtotal: '150.00', tax_amount: '30.00', total: '180.00' });
    expect(draft.lines).toEqual([{ kind: 'time', project_id: project.id, description: 'Retainer', billable_rate: 100, minutes: 90, time_entry_count: 1, amount: '150.00', taxable: true }]);
    expect((await tb.timeEntries.retrieve(november.id)).invoice_id).toBe(draft.id);
    const locked = await tb.timeEntries.update(november.id, { duration_minutes: 10 }).catch((e: unknown) => e);
    expect(locked).toMatchObject({ name: 'TimebillError', status: 409, type: 'time_entry_invoiced' });
    const empty = await month('2026-11-01', '2026-12-01').catch((e: unknown) => e);
    expect(empty).toMatchObject({ status: 409, type: 'nothing_to_invoice' });

    const changed = await tb.invoices.update(draft.id, { memo: 'November', discount_rate: 10 }, { ifMatch: draft });
    expect(changed).toMatchObject({ memo: 'November', discount_amount: '15.00', tax_amount: '27.00', total: '162.00' });
    const stale = await tb.invoices.finalize(draft.id, undefined, { ifMatch: draft }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 412, type: 'precondition_failed' });
    // Issued on the 24th: payments may be dated from then on.
    const open = await tb.invoices.finalize(draft.id, { issue_date: '2026-11-24' }, { ifMatch: changed });
    expect(open).toMatchObject({ status: 'open', number: expect.stringMatching(/^INV-\d{6}$/), issue_date: '2026-11-24', due_date: expect.any(String), amount_paid: '0.00', amount_due: '162.00' });

    // Its PDF: the bytes, the same while it does not change (null to ifNoneMatch), new once paid.
    const pdf = await tb.invoices.retrievePdf(open.id);
    expect(Buffer.from(pdf).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(etagOf(pdf)).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(await tb.invoices.retrievePdf(open.id, { ifNoneMatch: pdf })).toBeNull();

    // Two instalments (the first's create replayed by its key), listed a page at a time, one deleted, the balance paid.
    const wire = { amount: '50', paid_at: '2026-11-25T10:00:00Z', method: 'bank_transfer', reference: 'WIRE-1' } as const;
    const first = await tb.invoices.payments.create(open.id, wire, { idempotencyKey: `sdk-pay-${open.id}` });
    expect(first).toMatchObject({ object: 'payment', id: expect.stringMatching(/^pay_/), invoice_id: open.id, amount: '50.00', paid_at: '2026-11-25T10:00:00.000Z', method: 'bank_transfer', reference: 'WIRE-1' });
    const replayed = await tb.invoices.payments.create(open.id, wire, { idempotencyKey: `sdk-pay-${open.id}` });
    expect([replayed, responseOf(replayed)?.idempotentReplayed]).toEqual([first, true]);
    const second = await tb.invoices.payments.create(open.id, { amount: '12.5', paid_at: '2026-11-28T10:00:00Z' });
    expect(second).toMatchObject({ amount: '12.50', method: 'other', reference: null });
    expect(await tb.invoices.retrieve(open.id)).toMatchObject({ status: 'open', amount_paid: '62.50', amount_due: '99.50', paid_at: null });
    expect(await tb.invoices.retrievePdf(open.id, { ifNoneMatch: pdf })).toBeInstanceOf(Uint8Array);
    requests.length = 0;
    expect((await tb.invoices.payments.list(open.id, { limit: 1 }).toArray()).map((p) => p.id)).toEqual([second.id, first.id]); // newest first
    expect(requests).toHaveLength(2);
    expect(requests[1]).toContain('cursor=');
    expect(await tb.invoices.payments.retrieve(open.id, first.id)).toEqual(first);
    expect(await tb.invoices.payments.del(open.id, second.id, { ifMatch: second })).toEqual({ object: 'payment', id: second.id, deleted: true });
    await expect(tb.invoices.payments.retrieve(open.id, second.id)).rejects.toMatchObject({ status: 404, type: 'not_found' });
    const paid = await tb.invoices.pay(open.id, { paid_at: '2026-11-30T10:00:00Z', method: 'card', reference: 'Card 4242' });
    expect(paid).toMatchObject({ status: 'paid', number: open.number, paid_at: '2026-11-30T10:00:00.000Z', amount_paid: '162.00', amount_due: '0.00' });
    const payments = await tb.invoices.payments.list(paid.id).toArray();
    expect(payments.map((p) => [p.id, p.amount, p.method, p.reference])).toEqual([
      [expect.stringMatching(/^pay_/), '112.00', 'card', 'Card 4242'], // the balance, recorded by pay
      [first.id, '50.00', 'bank_transfer', 'WIRE-1'],
    ]);
    expect(await tb.invoices.payments.create(paid.id, { amount: '1' }).catch((e: unknown) => e)).toMatchObject({ status: 409, type: 'invalid_state' });
    expect(await tb.invoices.void(paid.id).catch((e: unknown) => e)).toMatchObject({ status: 409, type: 'invalid_state' });

    const octoberDraft = await month('2026-10-01', '2026-11-01');
    const removed = await tb.invoices.del(octoberDraft.id);
    expect(removed).toEqual({ object: 'invoice', id: octoberDraft.id, deleted: true });
    expect((await tb.timeEntries.retrieve(october.id)).invoice_id).toBeNull();
    const voided = await tb.invoices.void((await tb.invoices.finalize((await month('2026-10-01', '2026-11-01')).id, {})).id, {});
    expect(voided).toMatchObject({ status: 'void', total: '180.00', voided_at: expect.any(String) });
    expect((await tb.timeEntries.retrieve(october.id)).invoice_id).toBeNull();

    requests.length = 0;
    const ofClient = await tb.invoices.list({ client_id: client.id, limit: 1 }).toArray();
    expect(ofClient.map((i) => [i.id, i.status])).toEqual([[voided.id, 'void'], [paid.id, 'paid']]); // newest first; the deleted draft is gone
    expect(requests.filter((r) => r.startsWith('GET ') && r.includes('/invoices?'))).toHaveLength(2);
    expect((await tb.invoices.list({ client_id: client.id, status: 'paid' }).toArray()).map((i) => i.id)).toEqual([paid.id]);
    expect(await tb.invoices.retrieve(paid.id)).toEqual(paid);
  });

  it('retrieves the business profile unset, updates it on its ETag (a stale one is a 412), and an invoice created without taxes takes its default_taxes', async () => {
    const unset = await tb.businessProfile.retrieve();
    expect(unset).toMatchObject({ object: 'business_profile', id: expect.stringMatching(/^bp_/), company_name: null, bilingual_invoices: false, default_taxes: [], updated_at: null });
    const taxes = [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }];
    const set = await tb.businessProfile.update({ company_name: 'Studio Érable inc.', bilingual_invoices: true, default_taxes: taxes }, { ifMatch: unset });
    expect(set).toMatchObject({ id: unset.id, company_name: 'Studio Érable inc.', bilingual_invoices: true, default_taxes: taxes, updated_at: expect.any(String) });
    expect(await tb.businessProfile.update({ phone: '+1 514 555 0100' }, { ifMatch: unset }).catch((e: unknown) => e)).toMatchObject({ status: 412, type: 'precondition_failed' });
    expect(await tb.businessProfile.retrieve()).toEqual(set);
    const client = await tb.clients.create({ company_name: 'Taxed', company_email: 't@acme.test', currency: 'CAD' });
    const invoice = await tb.invoices.create({ client_id: client.id, items: [{ description: 'Design', quantity: 1, unit_price: 100 }] });
    expect(invoice.taxes.map((t) => [t.name, t.rate, t.amount])).toEqual([['TPS', 5, '5.00'], ['TVQ', 9.975, '9.98']]);
    expect(invoice.total).toBe('114.98');
  });

  it('verifies a real delivery with verifyWebhook, and refuses it tampered or under another secret', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await tb.webhookEndpoints.create({ url: receiver.url, enabled_events: ['client.created'] });
      const client = await tb.clients.create({ company_name: 'Delivered', company_email: 'd@acme.test' });
      const delivery = await waitFor(async () => receiver.received.find((r) => r.body.includes(client.id)), 'the delivery of client.created');
      const headers = delivery.headers as Record<string, string>;
      // Typed as possibly absent (a replayed create of a deleted endpoint): a fresh create has it.
      const secret = endpoint.secret!;
      const event = verifyWebhook(delivery.body, headers, secret);
      expect(event).toMatchObject({ type: 'client.created', data: { object: { id: client.id } } });
      expect(() => verifyWebhook(delivery.body.replace('Delivered', 'Tampered'), headers, secret)).toThrow();
      const other = await tb.webhookEndpoints.create({ url: receiver.url, enabled_events: ['client.deleted'] });
      expect(() => verifyWebhook(delivery.body, headers, other.secret!)).toThrow();
      for (const id of [endpoint.id, other.id]) await tb.webhookEndpoints.del(id);
    } finally {
      await receiver.close();
    }
  });

  it('starts a billing run, waits for its completion and lists each client\'s outcome, as JSON and CSV, and the run among the runs', async () => {
    // A workspace of its own: a run bills every client of the workspace, and one run at a time.
    const runs = new Timebill((await workspace('sdk-billing-runs')).token, { baseUrl: `${baseUrl()}/api/v1` });
    const [billed, idle] = [await runs.clients.create({ company_name: 'Run billed', company_email: 'rb@acme.test' }), await runs.clients.create({ company_name: 'Run idle', company_email: 'ri@acme.test' })];
    const project = await runs.projects.create({ name: 'Monthly', billing_type: 'Monthly', client_id: billed.id, hourly_rate: 100 });
    await runs.timeEntries.create({ project_id: project.id, started_at: '2026-10-05T09:00:00Z', duration_minutes: 90 });
    const started = await runs.billingRuns.start({ from: '2026-10-01', to: '2026-11-01', timezone: 'Europe/Paris' }, { idempotencyKey: `sdk-run-${billed.id}` });
    expect(responseOf(started)?.status).toBe(202);
    expect(started).toMatchObject({ object: 'billing_run', id: expect.stringMatching(/^brun_/), status: expect.stringMatching(/^(queued|running)$/), clients_total: 2, completed_at: null });

    const done = await runs.billingRuns.waitForCompletion(started.id, { intervalMs: 100, timeoutMs: 60_000 });
    expect(done).toMatchObject({ id: started.id, status: 'completed', clients_total: 2, clients_done: 2, invoices_created: 1, completed_at: expect.any(String) });
    const results = await runs.billingRuns.results.list(started.id, { limit: 1 }).toArray(); // a page a row
    const invoiced = results.find((r) => r.client_id === billed.id);
    expect(results).toEqual(
      [
        { object: 'billing_run_result', client_id: billed.id, outcome: 'invoiced', invoice_id: expect.stringMatching(/^inv_/), error: null, workspace_id: done.workspace_id },
        { object: 'billing_run_result', client_id: idle.id, outcome: 'nothing_to_invoice', invoice_id: null, error: null, workspace_id: done.workspace_id },
      ].sort((a, b) => (a.client_id < b.client_id ? -1 : 1)),
    );
    expect(await runs.invoices.retrieve(invoiced!.invoice_id!)).toMatchObject({ client_id: billed.id, billing_run_id: started.id, total: '150.00' });
    const csv = await runs.billingRuns.results.list(started.id, { limit: 1 }, { format: 'csv' }).text();
    expect(csv.split('\r\n')).toEqual(['object,client_id,outcome,invoice_id,error,workspace_id', ...results.map((r) => `billing_run_result,${r.client_id},${r.outcome},${r.invoice_id ?? ''},,${r.workspace_id}`), '']);
    expect(await runs.billingRuns.list().toArray()).toEqual([expect.objectContaining({ id: started.id, status: 'completed' })]);
  });

  it('lists events newest first, syncs after one oldest first, and retrieves one', async () => {
    const client = await tb.clients.create({ company_name: 'Evented', company_email: 'e@acme.test' });
    await tb.clients.update(client.id, { company_name: 'Evented 2' });
    const ofClient = () => tb.events.list({ object_id: client.id }).toArray();
    const events = await waitFor(async () => {
      const found = await ofClient();
      return found.length >= 2 ? found : undefined;
    }, 'the client\'s two events');
    expect(events.map((e) => e.type)).toEqual(['client.updated', 'client.created']);
    const [updated, created] = events as [Event, Event];
    const synced = await tb.events.list({ after: created.id, object_id: client.id }).toArray();
    expect(synced.map((e) => e.id)).toEqual([updated.id]);
    // The object's view can show an event a moment before its feed item is written (decision 0018),
    // and GET /events/{id} reads the feed item: until then it is a 404.
    const retrieved = await waitFor(() => tb.events.retrieve(updated.id).catch((e: { status?: number }) => (e.status === 404 ? undefined : Promise.reject(e))), 'the feed item of client.updated');
    expect(retrieved).toEqual(updated);
  });
});
