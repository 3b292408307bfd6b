/**
 * Invoice items as decision 0023 writes them, for the event tests, and (until the registry declares
 * `invoice`, issue 32) a stand-in declaration with the contract's fields and `invoice` among the
 * objects that make events. Once the registry declares it, the real declaration is used.
 *
 *   vi.mock('../../shared/resources/registry.ts', async (real) => (await import('../support/invoice-stand-in.ts')).withInvoiceResource(await real()));
 *   vi.mock('../../shared/events/types.ts', async (real) => (await import('../support/invoice-stand-in.ts')).withInvoiceEvents(await real()));
 */
import { declareResource } from '../../shared/resources/declare.ts';
import type * as Registry from '../../shared/resources/registry.ts';
import type * as EventTypes from '../../shared/events/types.ts';
import { addToLines, invoiceAmounts } from '../../shared/invoices/amounts.ts';

export function withInvoiceResource(real: typeof Registry) {
  const declared = real.RESOURCES as Record<string, unknown>;
  const invoice =
    declared.invoice ??
    declareResource({
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
}

export function withInvoiceEvents(real: typeof EventTypes) {
  const objects: readonly string[] = real.EVENT_OBJECTS;
  return { ...real, EVENT_OBJECTS: objects.includes('invoice') ? objects : [...objects, 'invoice'] };
}

export type Item = Record<string, unknown> & { data: Record<string, unknown>; version: number };
/** The item without its unfinished work: the write that finishes it removes `work`. */
export const withoutWork = ({ work: _work, ...rest }: Item): Item => rest as Item;
export const work = (kind: 'build' | 'release', extra: object = {}) => ({ kind, owner: 'req-1', lease_until: 1_900_000_000_000, next: 0, ...extra });
export const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/**
 * One invoice's items, version by version: created (draft v1, a batch v2, the seal v3), then
 * patched (v4); from there finalized (v5) and paid (v6) or voided (v6) and released (v7, v8); or
 * deleted: its release started at v5 (recording v4, its last event), its lines emptied at v6.
 */
export function invoiceHistory(workspaceId: string, id: string) {
  const key = { PK: `WS#${workspaceId}`, SK: `INVOICE#${id}` };
  const entries = [
    { id: 'te_1', project_id: 'prj_1', billable_rate: 120, duration_minutes: 90 },
    { id: 'te_2', project_id: null, billable_rate: 80, duration_minutes: 45 },
  ];
  const lines = addToLines([], entries, (p) => (p === null ? 'Acme' : 'Website'), 'USD');
  const data = {
    id, client_id: 'cli_1', status: 'draft', number: null, currency: 'USD', timezone: 'UTC', period_start: '2026-11-01', period_end: '2026-12-01',
    project_ids: null, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, 20, 'USD'), discount_rate: 0, tax_rate: 20, memo: null, purchase_order: null,
    issue_date: null, due_date: null, finalized_at: null, paid_at: null, voided_at: null, workspace_id: workspaceId, created_at: at(0), updated_at: at(0),
  };
  const inserted: Item = { ...key, data, version: 1, request_id: 'req-1', work: work('build'), locked_count: 0 };
  const batched: Item = { ...inserted, data: { ...data, lines, time_entry_count: 2, ...invoiceAmounts(lines, 0, 20, 'USD'), updated_at: at(1) }, version: 2, work: work('build', { next: 2 }), locked_count: 2 };
  const sealed = withoutWork({ ...batched, version: 3 });
  const patched: Item = { ...sealed, data: { ...sealed.data, memo: 'November', updated_at: at(2) }, version: 4, request_id: 'req-2' };
  const finalized: Item = { ...patched, data: { ...patched.data, status: 'open', number: 'INV-000001', issue_date: '2026-12-01', due_date: '2026-12-31', finalized_at: at(3), updated_at: at(3) }, version: 5, request_id: 'req-3' };
  const paid: Item = { ...finalized, data: { ...finalized.data, status: 'paid', paid_at: at(4), updated_at: at(4) }, version: 6, request_id: 'req-4' };
  const voided: Item = { ...finalized, data: { ...finalized.data, status: 'void', voided_at: at(5), updated_at: at(5) }, version: 6, request_id: 'req-5', work: work('release') };
  const releasing: Item = { ...voided, version: 7, work: work('release', { next: 1 }), locked_count: 1 };
  const released = withoutWork({ ...releasing, version: 8, locked_count: 0 });
  const deleteStarted: Item = { ...patched, version: 5, request_id: 'req-7', work: work('release', { announced: 4 }) };
  const emptied: Item = { ...deleteStarted, data: { ...deleteStarted.data, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, 20, 'USD') }, version: 6, locked_count: 0 };
  return { key, lines, inserted, batched, sealed, patched, finalized, paid, voided, releasing, released, deleteStarted, emptied };
}
