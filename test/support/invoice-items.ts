/**
 * An invoice's items as shared/domain/invoices/ writes them (decision 0023), version by version,
 * for the event tests: stream images without a stack.
 */
import { addToLines, invoiceAmounts } from '../../shared/domain/invoices/amounts.ts';

export type Item = Record<string, unknown> & { data: Record<string, unknown>; version: number };
/** The item without its unfinished work: the write that finishes it removes `work`. */
export const withoutWork = ({ work: _work, ...rest }: Item): Item => rest as Item;
export const work = (kind: 'build' | 'release', extra: object = {}) => ({ kind, owner: 'req-1', lease_until: 1_900_000_000_000, next: 0, ...extra });
export const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/**
 * One invoice's items: created (draft v1, a batch v2, the seal v3), then patched (v4); from there
 * finalized (v5) and paid (v6), or voided (v6) and released; or deleted: its release started and
 * its lines emptied. A release moves no version.
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
    project_ids: null, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, [{ name: 'Tax', rate: 20 }], 'USD'), discount_rate: 0, tax_rate: 20, memo: null, purchase_order: null,
    issue_date: null, due_date: null, finalized_at: null, paid_at: null, voided_at: null, workspace_id: workspaceId, created_at: at(0), updated_at: at(0),
  };
  const inserted: Item = { ...key, data, version: 1, request_id: 'req-1', work: work('build'), locked_count: 0 };
  const batched: Item = { ...inserted, data: { ...data, lines, time_entry_count: 2, ...invoiceAmounts(lines, 0, [{ name: 'Tax', rate: 20 }], 'USD'), updated_at: at(1) }, version: 2, work: work('build', { next: 2 }), locked_count: 2 };
  const sealed = withoutWork({ ...batched, version: 3 });
  const patched: Item = { ...sealed, data: { ...sealed.data, memo: 'November', updated_at: at(2) }, version: 4, request_id: 'req-2' };
  const finalized: Item = { ...patched, data: { ...patched.data, status: 'open', number: 'INV-000001', issue_date: '2026-12-01', due_date: '2026-12-31', finalized_at: at(3), updated_at: at(3) }, version: 5, request_id: 'req-3' };
  const paid: Item = { ...finalized, data: { ...finalized.data, status: 'paid', paid_at: at(4), updated_at: at(4) }, version: 6, request_id: 'req-4' };
  const voided: Item = { ...finalized, data: { ...finalized.data, status: 'void', voided_at: at(5), updated_at: at(5) }, version: 6, request_id: 'req-5', work: work('release', { then: 'void' }) };
  const releasing: Item = { ...voided, work: work('release', { next: 1 }), locked_count: 1 };
  const released = withoutWork({ ...releasing, locked_count: 0 });
  const deleteStarted: Item = { ...patched, request_id: 'req-7', work: work('release', { then: 'delete' }) };
  const emptied: Item = { ...deleteStarted, data: { ...deleteStarted.data, lines: [], time_entry_count: 0, ...invoiceAmounts([], 0, [{ name: 'Tax', rate: 20 }], 'USD') }, locked_count: 0 };
  return { key, lines, inserted, batched, sealed, patched, finalized, paid, voided, releasing, released, deleteStarted, emptied };
}
