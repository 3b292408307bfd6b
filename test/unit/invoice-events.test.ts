/**
 * An invoice's stream records and the events they make (shared/events/build.ts, decisions 0023
 * and 0025), from synthetic images: no event while it is built or released, `invoice.created` at
 * its seal, one event per transition, internal attributes in none, each change naming the one
 * before it.
 */
import { describe, expect, it, vi } from 'vitest';
import { draftOf } from '../../shared/events/build.ts';
import { changePlace } from '../../shared/events/store.ts';
import { objectOfType, readScopeOf } from '../../shared/events/visibility.ts';
import { addToLines, invoiceAmounts } from '../../shared/domain/invoices/amounts.ts';
import { streamRecord } from '../support/stream.ts';

// Until the registry declares `invoice` (issue 32's resource), a stand-in with the contract's
// fields, and `invoice` among the objects that make events; once it does, the real ones are used.
vi.mock('../../shared/model/resources.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../shared/model/resources.ts')>();
  const { declareResource } = await import('../../shared/model/declare.ts');
  const declared = real.RESOURCES as Record<string, unknown>;
  const invoice = declared.invoice ?? declareResource({
    kind: 'invoice',
    idPrefix: 'inv_',
    collection: 'invoices',
    tag: 'Invoices',
    fields: ['client_id', 'status', 'number', 'currency', 'timezone', 'period_start', 'period_end', 'project_ids', 'lines', 'time_entry_count', 'subtotal', 'discount_rate',
      'discount_amount', 'tax_rate', 'tax_amount', 'total', 'memo', 'purchase_order', 'issue_date', 'due_date', 'finalized_at', 'paid_at', 'voided_at'],
  });
  const RESOURCES = { ...declared, invoice };
  const resourceOf = (kind: string) => {
    const found = (RESOURCES as Record<string, unknown>)[kind];
    if (!found) throw new Error(`Unknown resource ${kind}`);
    return found;
  };
  return { ...real, RESOURCES, resourceOf };
});
vi.mock('../../shared/model/event-types.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../shared/model/event-types.ts')>();
  const objects: readonly string[] = real.EVENT_OBJECTS;
  return { ...real, EVENT_OBJECTS: objects.includes('invoice') ? objects : [...objects, 'invoice'] };
});

const KEYS = { PK: 'WS#acme', SK: 'INVOICE#inv_01JD000000000000000000000A' };
const T = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const entries = [
  { id: 'te_1', project_id: 'prj_1', billable_rate: 120, duration_minutes: 90 },
  { id: 'te_2', project_id: null, billable_rate: 80, duration_minutes: 45 },
];
const lines = addToLines([], entries, (p) => (p === null ? 'Acme' : 'Website'), 'USD');
const draftData = {
  id: 'inv_01JD000000000000000000000A', client_id: 'cli_1', status: 'draft', number: null, currency: 'USD', timezone: 'UTC', period_start: '2026-11-01', period_end: '2026-12-01',
  project_ids: null, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, [], 'USD'), discount_rate: 0, tax_rate: 20, memo: null, purchase_order: null,
  issue_date: null, due_date: null, finalized_at: null, paid_at: null, voided_at: null, workspace_id: 'acme', created_at: T(0), updated_at: T(0),
};
type Item = Record<string, unknown> & { data: typeof draftData | Record<string, unknown>; version: number };
/** The item without its unfinished work: the write that finishes it removes `work`. */
const withoutWork = ({ work: _work, ...rest }: Item): Item => rest as Item;
const work = (kind: 'build' | 'release', extra: object = {}) => ({ kind, owner: 'req-1', lease_until: 1_900_000_000_000, next: 0, ...extra });

// A create: the draft (v1), a batch (v2), the seal (v3).
const inserted: Item = { ...KEYS, data: draftData, version: 1, request_id: 'req-1', work: work('build'), locked_count: 0 };
const batched: Item = { ...inserted, data: { ...draftData, lines, time_entry_count: 2, ...invoiceAmounts(lines, 0, [{ name: 'Tax', rate: 20 }], 'USD'), updated_at: T(1) }, version: 2, work: work('build', { next: 2 }), locked_count: 2 };
const sealed = withoutWork({ ...batched, version: 3 });
// Then a PATCH (v4), a finalize (v5), a pay (v6).
const patched: Item = { ...sealed, data: { ...sealed.data, memo: 'November', updated_at: T(2) }, version: 4, request_id: 'req-2' };
const finalized: Item = { ...patched, data: { ...patched.data, status: 'open', number: 'INV-000001', issue_date: '2026-12-01', due_date: '2026-12-31', finalized_at: T(3), updated_at: T(3) }, version: 5, request_id: 'req-3' };
const paid: Item = { ...finalized, data: { ...finalized.data, status: 'paid', paid_at: T(4), updated_at: T(4) }, version: 6, request_id: 'req-4' };

const record = (eventName: string, oldItem?: object, newItem?: object) => streamRecord(eventName, KEYS, oldItem, newItem);
const typeOf = (eventName: string, oldItem?: object, newItem?: object) => draftOf(record(eventName, oldItem, newItem))?.type;

describe('an invoice being created', () => {
  it('makes no event for its draft or its batches, and invoice.created at its seal: the whole invoice, nothing internal', () => {
    expect(typeOf('INSERT', undefined, inserted)).toBeUndefined();
    expect(typeOf('MODIFY', inserted, batched)).toBeUndefined();
    // A take-over of the work past its lease: still no event.
    expect(typeOf('MODIFY', batched, { ...batched, version: 3, work: work('build', { owner: 'req-9' }) })).toBeUndefined();
    const created = draftOf(record('MODIFY', batched, sealed))!;
    expect(created).toMatchObject({ type: 'invoice.created', workspaceId: 'acme', objectId: draftData.id, requestId: 'req-1', createdAt: T(1) });
    expect(created.object).toMatchObject({ object: 'invoice', id: draftData.id, status: 'draft', lines, time_entry_count: 2, subtotal: '240.00', tax_amount: '48.00', total: '288.00' });
    expect(created.object).not.toHaveProperty('work');
    expect(created.object).not.toHaveProperty('locked_count');
    expect(created.previousAttributes).toBeUndefined();
    expect(created.changeKey).toBe(`${KEYS.SK}#created#v3#after#none`);
  });

  it('makes none when a never-sealed draft is removed', () => {
    expect(typeOf('REMOVE', batched, undefined)).toBeUndefined();
  });
});

describe('a sealed invoice', () => {
  it('makes invoice.updated for a PATCH, after its created', () => {
    const updated = draftOf(record('MODIFY', sealed, patched))!;
    expect(updated).toMatchObject({ type: 'invoice.updated', requestId: 'req-2', createdAt: T(2), previousAttributes: { memo: null, updated_at: T(1) } });
    expect(changePlace(updated.changeKey).prev).toBe(changePlace(draftOf(record('MODIFY', batched, sealed))!.changeKey).position);
  });

  it('makes invoice.finalized and invoice.paid, each with previous_attributes, each after the change before it', () => {
    const finalize = draftOf(record('MODIFY', patched, finalized))!;
    expect(finalize.type).toBe('invoice.finalized');
    expect(finalize.previousAttributes).toEqual({ status: 'draft', number: null, issue_date: null, due_date: null, finalized_at: null, updated_at: T(2) });
    expect(finalize.changeKey).toBe(`${KEYS.SK}#finalized#v5#after#v4`);
    const pay = draftOf(record('MODIFY', finalized, paid))!;
    expect(pay).toMatchObject({ type: 'invoice.paid', requestId: 'req-4', createdAt: T(4), previousAttributes: { status: 'open', paid_at: null, updated_at: T(3) } });
    expect(changePlace(pay.changeKey).prev).toBe(changePlace(finalize.changeKey).position.replace(/#1$/, '#0'));
  });

  it('makes invoice.updated for a payment that moves amount_paid, and for a paid invoice reopened by a payment\'s delete (not invoice.finalized)', () => {
    const partly: Item = { ...finalized, data: { ...finalized.data, amount_paid: '10.00', amount_due: '90.00', updated_at: T(4) }, version: 6, payments: { pay_1: T(4) } };
    expect(draftOf(record('MODIFY', finalized, partly))).toMatchObject({ type: 'invoice.updated', previousAttributes: { amount_paid: '0.00', updated_at: T(3) } });
    const reopened: Item = { ...paid, data: { ...paid.data, status: 'open', paid_at: null, updated_at: T(5) }, version: 7 };
    expect(draftOf(record('MODIFY', paid, reopened))).toMatchObject({ type: 'invoice.updated', previousAttributes: { status: 'paid', paid_at: T(4) } });
  });

  it('makes payment.created and payment.deleted for a payment\'s item, seen with invoices:read', () => {
    const keys = { PK: 'WS#acme', SK: 'PAYMENT#pay_01JD000000000000000000000A' };
    const item = { ...keys, version: 1, request_id: 'req-8', data: { id: 'pay_01JD000000000000000000000A', invoice_id: KEYS.SK.slice(8), amount: '10.00', paid_at: T(4), method: 'card', reference: null, workspace_id: 'acme', created_at: T(4), updated_at: T(4) } };
    const created = draftOf(streamRecord('INSERT', keys, undefined, item))!;
    expect(created).toMatchObject({ type: 'payment.created', requestId: 'req-8', createdAt: T(4) });
    expect(created.object).toEqual({ object: 'payment', ...item.data, updated_at: undefined });
    expect(draftOf(streamRecord('REMOVE', keys, item, undefined))!.type).toBe('payment.deleted');
    expect(readScopeOf(objectOfType('payment.deleted'))).toBe('invoices:read');
  });

  it('makes invoice.voided for the write that starts the release, and none for the release', () => {
    const voided: Item = { ...finalized, data: { ...finalized.data, status: 'void', voided_at: T(5), updated_at: T(5) }, version: 6, request_id: 'req-5', work: work('release') };
    const draft = draftOf(record('MODIFY', finalized, voided))!;
    expect(draft.type).toBe('invoice.voided');
    expect(draft.previousAttributes).toEqual({ status: 'open', voided_at: null, updated_at: T(3) });
    expect(draft.object).not.toHaveProperty('work');
    const releasing: Item = { ...voided, version: 7, work: work('release', { next: 1 }), locked_count: 1 };
    const done = withoutWork({ ...releasing, version: 8, locked_count: 0 });
    expect(typeOf('MODIFY', voided, releasing)).toBeUndefined();
    expect(typeOf('MODIFY', releasing, done)).toBeUndefined();
    // A void of the void invoice resumes its release: still none.
    expect(typeOf('MODIFY', releasing, { ...releasing, version: 8, work: work('release', { owner: 'req-6' }) })).toBeUndefined();
  });

  it('makes no event of its internal attributes alone', () => {
    expect(typeOf('MODIFY', paid, { ...paid, locked_count: 1 })).toBeUndefined();
  });

  it('makes invoice.deleted when a draft is removed after its release, after its last event', () => {
    // The delete starts its release at v5 (recording v4, the draft's last event), takes the entries out of its lines at v6, then removes it.
    const starting: Item = { ...patched, version: 5, request_id: 'req-7', work: work('release', { announced: 4 }) };
    const emptied: Item = { ...starting, data: { ...starting.data, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, [{ name: 'Tax', rate: 20 }], 'USD') }, version: 6, locked_count: 0 };
    expect(typeOf('MODIFY', patched, starting)).toBeUndefined();
    expect(typeOf('MODIFY', starting, emptied)).toBeUndefined();
    const deleted = draftOf(record('REMOVE', emptied, undefined))!;
    expect(deleted).toMatchObject({ type: 'invoice.deleted', requestId: undefined, createdAt: undefined });
    expect(deleted.object).toMatchObject({ id: draftData.id, status: 'draft', memo: 'November' });
    expect(deleted.object).not.toHaveProperty('work');
    expect(deleted.changeKey).toBe(`${KEYS.SK}#deleted#v6#after#v4`);
    // Without the recorded version it names no predecessor.
    expect(draftOf(record('REMOVE', { ...emptied, work: work('release') }, undefined))!.changeKey).toBe(`${KEYS.SK}#deleted#v6#after#none`);
  });

  it('makes none when a DELETE removes a draft whose build was abandoned (never announced)', () => {
    const abandoned: Item = { ...batched, work: work('build', { next: 2 }) };
    const taken: Item = { ...abandoned, work: work('release', { owner: 'req-9', then: 'delete', unannounced: true }) };
    expect(typeOf('MODIFY', abandoned, taken)).toBeUndefined();
    expect(typeOf('REMOVE', taken, undefined)).toBeUndefined();
  });

  it('is read with invoices:read', () => {
    for (const type of ['invoice.created', 'invoice.updated', 'invoice.deleted', 'invoice.finalized', 'invoice.paid', 'invoice.voided'] as const) {
      expect(readScopeOf(objectOfType(type)), type).toBe('invoices:read');
    }
  });
});
