/**
 * Invoice events end to end (contract, "Invoices"; docs/events.md): the invoice handlers run in
 * process over the shared table with small batches (INVOICE_BATCH_ENTRIES=4), so a create takes
 * several transactions; the shared stack's stream consumer turns the items' real stream records
 * into events, read here from the feed. A create makes one `invoice.created` (after its seal,
 * with every line) and one `time_entry.updated` per entry it locks; each transition its one
 * event with previous_attributes; a void's or a delete's release a `time_entry.updated` per
 * entry and no invoice event of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { createClient, createProject, logTime, workspace, type Api } from '../support/api.ts';
import { allEvents, waitFor } from '../support/events.ts';
import { handlerCalls, importHandler, proxyEvent as event, useSharedTable, type ProxyHandler } from '../support/in-process.ts';

const OPERATIONS = ['createInvoice', 'updateInvoice', 'deleteInvoice', 'finalizeInvoice', 'payInvoice', 'voidInvoice', 'retrieveInvoice'] as const satisfies readonly Operation[];
const handlers: Partial<Record<Operation, ProxyHandler>> = {};
const { ok } = handlerCalls(handlers);

beforeAll(async () => {
  useSharedTable('invoice-events-test-cursor-signing-key-0123456789', { AWS_LAMBDA_LOG_LEVEL: 'WARN', INVOICE_BATCH_ENTRIES: '4' });
  for (const name of OPERATIONS) handlers[name] = await importHandler(routeByOperation(name).entry);
});

/** A workspace whose client has `n` billable entries in April 2026, on two projects (two lines). */
async function withTime(n: number) {
  const ws = await workspace('invev');
  const client = await createClient(ws.api, { company_name: 'Events Co' });
  const projects = [await createProject(ws.api, client.id, { name: 'P', hourly_rate: 50 }), await createProject(ws.api, client.id, { name: 'Q', hourly_rate: 70 })];
  const entries: string[] = [];
  for (let i = 0; i < n; i++) {
    entries.push((await logTime(ws.api, { project_id: projects[i % 2]!.id, started_at: `2026-04-${String(2 + i).padStart(2, '0')}T09:00:00Z`, duration_minutes: 10 + i })).id);
  }
  return { ...ws, client: client.id as string, entries };
}

const invoicePath = '/api/v1/invoices/{id}';
const create = (ws: string, client: string) => ok('createInvoice', event(ws, 'POST', '/api/v1/invoices', { body: { client_id: client, from: '2026-04-01', to: '2026-05-01' } }));
const step = (ws: string, id: string, name: 'finalize' | 'pay' | 'void') =>
  ok(`${name}Invoice` as Operation, event(ws, 'POST', `${invoicePath}/${name}`, { id }));

/** The workspace's feed once `done` holds for it (oldest first). */
const feedWhen = (api: Api, done: (events: any[]) => boolean) =>
  waitFor(async () => {
    const events = await allEvents(api);
    return done(events) ? events : undefined;
  }, 'the events');

const ofType = (events: any[], type: string) => events.filter((e) => e.type === type);
const count = (type: string, n: number) => (events: any[]) => ofType(events, type).length >= n;
const types = (events: any[], prefix: string) => events.map((e) => e.type as string).filter((t) => t.startsWith(prefix));

/** One `time_entry.updated` per entry, whose invoice_id went from `from` to `to`. */
function expectEntryEvents(events: any[], entries: string[], from: string | null, to: string | null) {
  const moved = ofType(events, 'time_entry.updated').filter((e) => e.data.previous_attributes.invoice_id === from && e.data.object.invoice_id === to);
  expect(moved.map((e) => e.data.object.id).sort()).toEqual([...entries].sort());
}

describe('invoice events', () => {
  it('a create of several batches: one invoice.created with every line after the seal, one time_entry.updated per locked entry; finalize and pay one each', async () => {
    const { id: ws, api, client, entries } = await withTime(10);
    const invoice = await create(ws, client);
    expect(invoice.time_entry_count).toBe(10);
    const finalized = await step(ws, invoice.id, 'finalize');
    const paid = await step(ws, invoice.id, 'pay');
    const events = await feedWhen(api, (all) => count('invoice.paid', 1)(all) && count('time_entry.updated', 10)(all));
    expect(types(events, 'invoice.')).toEqual(['invoice.created', 'invoice.finalized', 'invoice.paid']);
    const [created, finalizedEvent, paidEvent] = ofType(events, 'invoice.created').concat(ofType(events, 'invoice.finalized'), ofType(events, 'invoice.paid'));
    // The sealed draft, as the create answered it: all three batches' lines.
    expect(created.data.object).toEqual(invoice);
    expect(created.data.previous_attributes).toBeUndefined();
    expectEntryEvents(events, entries, null, invoice.id);
    expect(ofType(events, 'time_entry.updated')).toHaveLength(10);
    expect(finalizedEvent.data.object).toEqual(finalized);
    expect(finalizedEvent.data.previous_attributes).toMatchObject({ status: 'draft', number: null, finalized_at: null, issue_date: null });
    expect(paidEvent.data.object).toEqual(paid);
    expect(paidEvent.data.previous_attributes).toMatchObject({ status: 'open', paid_at: null });
  });

  it('a void: invoice.voided, then a time_entry.updated per released entry, and no invoice.updated', async () => {
    const { id: ws, api, client, entries } = await withTime(6);
    const invoice = await create(ws, client);
    await step(ws, invoice.id, 'finalize');
    const voided = await step(ws, invoice.id, 'void');
    const events = await feedWhen(api, (all) => count('invoice.voided', 1)(all) && count('time_entry.updated', 12)(all));
    expect(types(events, 'invoice.')).toEqual(['invoice.created', 'invoice.finalized', 'invoice.voided']);
    const [voidedEvent] = ofType(events, 'invoice.voided');
    expect(voidedEvent.data.object).toMatchObject({ ...voided, updated_at: voidedEvent.data.object.updated_at });
    expect(voidedEvent.data.previous_attributes).toMatchObject({ status: 'open', voided_at: null });
    expectEntryEvents(events, entries, null, invoice.id);
    expectEntryEvents(events, entries, invoice.id, null);
    expect(ofType(events, 'time_entry.updated')).toHaveLength(12);
  });

  it('a draft: PATCH makes invoice.updated; DELETE invoice.deleted and a time_entry.updated per released entry', async () => {
    const { id: ws, api, client, entries } = await withTime(6);
    const invoice = await create(ws, client);
    const patched = await ok('updateInvoice', event(ws, 'PATCH', invoicePath, { id: invoice.id, body: { memo: 'April', tax_rate: 10 } }));
    await ok('deleteInvoice', event(ws, 'DELETE', invoicePath, { id: invoice.id }));
    const events = await feedWhen(api, (all) => count('invoice.deleted', 1)(all) && count('time_entry.updated', 12)(all));
    expect(types(events, 'invoice.')).toEqual(['invoice.created', 'invoice.updated', 'invoice.deleted']);
    const [updated] = ofType(events, 'invoice.updated');
    expect(updated.data.object).toEqual(patched);
    expect(updated.data.previous_attributes).toMatchObject({ memo: null, tax_rate: 0, tax_amount: invoice.tax_amount, total: invoice.total });
    const [deleted] = ofType(events, 'invoice.deleted');
    expect(deleted.data.object).toMatchObject({ id: invoice.id, status: 'draft' });
    expect(deleted.data.previous_attributes).toBeUndefined();
    expectEntryEvents(events, entries, invoice.id, null);
  });
});
