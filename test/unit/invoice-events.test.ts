/**
 * An invoice's stream records and the events they make (shared/events/build.ts, decisions 0023
 * and 0025), from synthetic images: no event while it is built or released, `invoice.created` at
 * its seal, one event per transition, internal attributes in none, each change naming the one
 * before it.
 */
import { describe, expect, it } from 'vitest';
import { draftOf } from '../../shared/events/build.ts';
import { changePlace } from '../../shared/events/store.ts';
import { objectOfType, readScopeOf } from '../../shared/events/visibility.ts';
import { at as T, invoiceHistory, work } from '../support/invoice-items.ts';
import { streamRecord } from '../support/stream.ts';


const { key: KEYS, lines, inserted, batched, sealed, patched, finalized, paid, voided, releasing, released, deleteStarted, emptied } = invoiceHistory('acme', 'inv_01JD000000000000000000000A');
const draftData = inserted.data;
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

  it('makes invoice.voided for the write that starts the release, and none for the release', () => {
    const draft = draftOf(record('MODIFY', finalized, voided))!;
    expect(draft.type).toBe('invoice.voided');
    expect(draft.previousAttributes).toEqual({ status: 'open', voided_at: null, updated_at: T(3) });
    expect(draft.object).not.toHaveProperty('work');
    expect(typeOf('MODIFY', voided, releasing)).toBeUndefined();
    expect(typeOf('MODIFY', releasing, released)).toBeUndefined();
    // A void of the void invoice resumes its release: still none.
    expect(typeOf('MODIFY', releasing, { ...releasing, work: work('release', { owner: 'req-6', then: 'void' }) })).toBeUndefined();
  });

  it('makes no event of its internal attributes alone', () => {
    expect(typeOf('MODIFY', paid, { ...paid, locked_count: 1 })).toBeUndefined();
  });

  it('makes invoice.deleted when a draft is removed after its release, after its last event', () => {
    // The delete starts its release and takes the entries out of its lines (no event, no new version), then removes it.
    expect(typeOf('MODIFY', patched, deleteStarted)).toBeUndefined();
    expect(typeOf('MODIFY', deleteStarted, emptied)).toBeUndefined();
    const deleted = draftOf(record('REMOVE', emptied, undefined))!;
    expect(deleted).toMatchObject({ type: 'invoice.deleted', requestId: undefined, createdAt: undefined });
    expect(deleted.object).toMatchObject({ id: draftData.id, status: 'draft', memo: 'November' });
    expect(deleted.object).not.toHaveProperty('work');
    expect(deleted.changeKey).toBe(`${KEYS.SK}#deleted#v4#after#v4`);
    expect(changePlace(deleted.changeKey)).toEqual({ position: '0000000004#2', prev: '0000000004#0' });
  });

  it('is read with invoices:read', () => {
    for (const type of ['invoice.created', 'invoice.updated', 'invoice.deleted', 'invoice.finalized', 'invoice.paid', 'invoice.voided'] as const) {
      expect(readScopeOf(objectOfType(type)), type).toBe('invoices:read');
    }
  });
});
