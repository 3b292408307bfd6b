/**
 * An invoice's fee lines (shared/domain/invoices/fee-marks.ts, amounts.ts; contract, "Billing
 * types"): which projects a create refuses (`unpriced_project`) and what each charges over a
 * range, the lines' order (by project, then fixed price, retainer periods by start, time by rate
 * with null first), covered time at zero, and the subtotal as the exact sum of every line.
 */
import { describe, expect, it } from 'vitest';
import { addFees, addToLines, invoiceAmounts, removeFees, removeFromLines, type FeeLine } from '../../shared/domain/invoices/amounts.ts';
import { covers, feesDue, lacking, type ScopedProject } from '../../shared/domain/invoices/fee-marks.ts';

const base: ScopedProject = {
  id: 'prj_B', name: 'Care', status: 'ACTIVE', billing_type: 'Retainer', fixed_price: null, amount: 12.345, interval_count: 1, interval_unit: 'Month',
  start_date: '2026-01-31T23:30:00.000Z', end_date: null,
};
const range = { from: '2026-02-01', to: '2026-05-01' };

describe('what a project charges', () => {
  it('refuses a project that may be charged fees without what its type needs, and no other', () => {
    expect(lacking(base)).toBeUndefined();
    expect(lacking({ ...base, amount: null, interval_unit: null })).toEqual(['amount', 'interval_unit']);
    expect(lacking({ ...base, interval_count: null })).toEqual(['interval_count']);
    expect(lacking({ ...base, billing_type: 'ProjectBased' })).toEqual(['fixed_price']);
    expect(lacking({ ...base, billing_type: 'ProjectBased', status: 'COMPLETED' })).toEqual(['fixed_price']);
    // Not charged fees now (a Retainer COMPLETED, anything ON_HOLD or CANCELLED), or not by fees at all.
    for (const p of [{ ...base, amount: null, status: 'COMPLETED' }, { ...base, amount: null, status: 'ON_HOLD' }, { ...base, billing_type: 'ProjectBased', status: 'CANCELLED' }, { ...base, amount: null, billing_type: 'CreditBased' }] as const) {
      expect(lacking(p), JSON.stringify(p)).toBeUndefined();
    }
    expect([covers(base), covers({ billing_type: 'ProjectBased' }), covers({ billing_type: 'CreditBased' }), covers({ billing_type: 'Monthly' })]).toEqual([true, true, false, false]);
  });

  it('charges each period that starts in the range (from the start date\'s UTC date), the amount rounded once, half to even', () => {
    expect(feesDue(base, range, 'USD')).toEqual(
      [['2026-02-28', '2026-03-31'], ['2026-03-31', '2026-04-30'], ['2026-04-30', '2026-05-31']].map(([period_start, period_end]) => ({
        kind: 'retainer', project_id: 'prj_B', description: 'Care', taxable: true, period_start, period_end, amount: '12.34',
      })),
    );
    expect(feesDue(base, range, 'KWD').map((l) => l.amount)).toEqual(['12.345', '12.345', '12.345']);
    expect(feesDue({ ...base, status: 'COMPLETED' }, range, 'USD')).toEqual([]);
    expect(feesDue({ ...base, end_date: '2026-03-31T00:00:00.000Z' }, range, 'USD').map((l) => (l.kind === 'retainer' ? l.period_end : ''))).toEqual(['2026-03-31']);
  });

  it('charges a fixed price whatever the range, while ACTIVE or COMPLETED', () => {
    const site = { ...base, id: 'prj_A', name: 'Site', billing_type: 'ProjectBased', fixed_price: 1234.565 } as const;
    const fixed = { kind: 'fixed_price', project_id: 'prj_A', description: 'Site', taxable: true, amount: '1234.56' };
    expect(feesDue(site, range, 'USD')).toEqual([fixed]);
    expect(feesDue({ ...site, status: 'COMPLETED' }, range, 'USD')).toEqual([fixed]);
    expect(feesDue({ ...site, status: 'ON_HOLD' }, range, 'USD')).toEqual([]);
    expect(feesDue({ ...site, fixed_price: 2.5 }, range, 'JPY')[0]!.amount).toBe('2');
  });
});

describe('lines of every kind', () => {
  const fees: FeeLine[] = [
    { kind: 'retainer', project_id: 'prj_B', description: 'Care', period_start: '2026-03-31', period_end: '2026-04-30', amount: '10.00', taxable: true },
    { kind: 'fixed_price', project_id: 'prj_B', description: 'Care', amount: '100.00', taxable: true },
    { kind: 'retainer', project_id: 'prj_B', description: 'Care', period_start: '2026-02-28', period_end: '2026-03-31', amount: '10.00', taxable: true },
  ];
  const describe_ = (p: string | null) => p ?? 'Acme';
  const time = addToLines(
    [],
    [
      { id: 'te_1', project_id: 'prj_B', billable_rate: 50, duration_minutes: 60, covered: true },
      { id: 'te_2', project_id: 'prj_B', billable_rate: null, duration_minutes: 30, covered: true },
      { id: 'te_3', project_id: null, billable_rate: 60, duration_minutes: 30 },
      { id: 'te_4', project_id: 'prj_A', billable_rate: 0, duration_minutes: 10 },
    ],
    describe_,
    'USD',
  );

  it('are ordered by project (null first), then fixed price, retainer periods by start, time by rate (null first)', () => {
    const lines = addFees(time, fees);
    expect(lines.map((l) => [l.project_id, l.kind, l.kind === 'retainer' ? l.period_start : l.kind === 'time' ? l.billable_rate : l.amount])).toEqual([
      [null, 'time', 60],
      ['prj_A', 'time', 0],
      ['prj_B', 'fixed_price', '100.00'],
      ['prj_B', 'retainer', '2026-02-28'],
      ['prj_B', 'retainer', '2026-03-31'],
      ['prj_B', 'time', null],
      ['prj_B', 'time', 50],
    ]);
    // Covered time is priced at zero, its rate kept; time and materials at rate 0 is zero too.
    expect(lines.filter((l) => l.kind === 'time').map((l) => l.amount)).toEqual(['30.00', '0.00', '0.00', '0.00']);
    expect(invoiceAmounts(lines, 10, 0, 'USD')).toEqual({ subtotal: '150.00', discount_amount: '15.00', tax_amount: '0.00', total: '135.00' });
  });

  it('lose their fees and entries as a draft\'s delete releases them', () => {
    const lines = addFees(time, fees);
    const withoutFees = removeFees(lines, [fees[0]!, fees[1]!]);
    expect(withoutFees.filter((l) => l.kind !== 'time')).toEqual([fees[2]]);
    expect(removeFromLines(withoutFees, [{ id: 'te_2', project_id: 'prj_B', billable_rate: null, duration_minutes: 30, covered: true }], 'USD').map((l) => l.kind === 'time' && l.billable_rate)).toEqual([60, 0, false, 50]);
  });
});
