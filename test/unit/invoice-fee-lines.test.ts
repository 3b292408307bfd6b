/**
 * An invoice's fee lines (shared/domain/invoices/fees.ts, amounts.ts; contract, "Billing
 * types"): which projects a create refuses (`unpriced_project`) and what each charges over a
 * range, the lines' order (by project, then fixed price, retainer periods by start, time by rate
 * with null first), covered time at zero, credit lines, and the subtotal as the exact sum of every line.
 */
import { describe, expect, it } from 'vitest';
import { addFees, addToLines, invoiceAmounts, removeFees, removeFromLines, type CreditLine, type FeeLine } from '../../shared/domain/invoices/amounts.ts';
import { covers, creditLineOf, creditReturned, creditTermsOf, feesDue, lacking, type CreditTerms, type ScopedProject } from '../../shared/domain/invoices/fees.ts';

const base: ScopedProject = {
  id: 'prj_B', name: 'Care', status: 'ACTIVE', billing_type: 'Retainer', fixed_price: null, amount: 12.345, interval_count: 1, interval_unit: 'Month',
  start_date: '2026-01-31T23:30:00.000Z', end_date: null,
};
const range = { from: '2026-02-01', to: '2026-05-01' };

describe('what a project charges', () => {
  it('refuses a project that may be charged fees without what its type needs, and no other', () => {
    const lacks = (p: ScopedProject, takesTime = false, currency = 'USD') => lacking(p, takesTime, currency);
    expect(lacks(base)).toBeUndefined();
    expect(lacks({ ...base, amount: null, interval_unit: null })).toEqual(['amount', 'interval_unit']);
    expect(lacks({ ...base, interval_count: null })).toEqual(['interval_count']);
    expect(lacks({ ...base, billing_type: 'ProjectBased' })).toEqual(['fixed_price']);
    expect(lacks({ ...base, billing_type: 'ProjectBased', status: 'COMPLETED' })).toEqual(['fixed_price']);
    // A CreditBased project needs an amount above 0 once rounded: while ACTIVE, or when the invoice takes its time.
    const credit = { ...base, billing_type: 'CreditBased', amount: 0.004 } as const;
    expect(lacks(credit)).toEqual(['amount (above 0 once rounded)']);
    expect(lacks({ ...credit, amount: null, status: 'ON_HOLD' }, true)).toEqual(['amount (above 0 once rounded)']);
    expect(lacks({ ...credit, amount: 0.4 }, true, 'JPY')).toEqual(['amount (above 0 once rounded)']);
    // Half to even: 0.005 rounds to 0.00, 0.006 to 0.01.
    expect(lacks({ ...credit, amount: 0.005 }, true)).toEqual(['amount (above 0 once rounded)']);
    expect(lacks({ ...credit, amount: 0.006 }, true)).toBeUndefined();
    // Not charged fees now (a Retainer COMPLETED, anything ON_HOLD or CANCELLED, credit without its time taken), or not by fees at all.
    for (const p of [
      { ...base, amount: null, status: 'COMPLETED' }, { ...base, amount: null, status: 'ON_HOLD' }, { ...base, billing_type: 'ProjectBased', status: 'CANCELLED' },
      { ...credit, status: 'COMPLETED' }, { ...base, amount: null, billing_type: 'Monthly' },
    ] as const) {
      expect(lacks(p), JSON.stringify(p)).toBeUndefined();
    }
    expect([covers(base), covers({ billing_type: 'ProjectBased' }), covers({ billing_type: 'CreditBased' }), covers({ billing_type: 'Monthly' })]).toEqual([true, true, true, false]);
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

  it('marks no fee of a CreditBased project (its credit is stated at the seal), and fixes its block and fees at creation', () => {
    const credit = { ...base, billing_type: 'CreditBased', amount: 500.005 } as const;
    expect(feesDue(credit, range, 'USD')).toEqual([]);
    expect(creditTermsOf(credit, 'USD')).toEqual({ project_id: 'prj_B', description: 'Care', block_amount: '500.00', fees: true });
    expect(creditTermsOf({ ...credit, status: 'COMPLETED' }, 'KWD')).toEqual({ project_id: 'prj_B', description: 'Care', block_amount: '500.005', fees: false });
  });
});

describe('credit lines', () => {
  const terms: CreditTerms = { project_id: 'prj_C', description: 'Support', block_amount: '500.00', fees: true };
  const hours = (entries: [number, number][]) =>
    addToLines([], entries.map(([rate, minutes], i) => ({ id: `te_${i}`, project_id: 'prj_C', billable_rate: rate, duration_minutes: minutes, covered: true })), () => 'Support', 'USD');

  it('state the blocks bought, the credit used (summed exactly, rounded once) and the balance after', () => {
    // 90 min at 500.01 (750.015) and 1 min at 0.01 (0.000166…): 750.015166… used, rounded once to 750.02.
    const time = hours([[500.01, 90], [0.01, 1]]);
    expect(time.map((l) => l.amount)).toEqual(['0.00', '0.00']);
    expect(creditLineOf(terms, 0n, time, 'USD')).toEqual({
      line: { kind: 'credit', project_id: 'prj_C', description: 'Support', blocks: 2, block_amount: '500.00', credit_used: '750.02', credit_balance: '249.98', amount: '1000.00', taxable: true },
      after: 24_998n,
    });
    // No time: one block from nothing, none from credit above zero (no line then).
    expect(creditLineOf(terms, 0n, [], 'USD')?.line).toMatchObject({ blocks: 1, credit_used: '0.00', credit_balance: '500.00', amount: '500.00' });
    expect(creditLineOf(terms, 1n, [], 'USD')).toBeUndefined();
    // Not charging fees: time still uses credit, below zero.
    expect(creditLineOf({ ...terms, fees: false }, 10_000n, hours([[60, 120]]), 'USD')?.line).toMatchObject({ blocks: 0, credit_used: '120.00', credit_balance: '-20.00', amount: '0.00' });
    expect(creditLineOf({ ...terms, fees: false }, 0n, [], 'USD')).toBeUndefined();
    // Another project's time is not this one's, nor its other lines time.
    expect(creditLineOf(terms, 1n, [{ ...time[0]!, project_id: 'prj_D' }, { kind: 'fixed_price', project_id: 'prj_C', description: 'Support', amount: '9.00', taxable: true }], 'USD')).toBeUndefined();
    // Its time is priced (unpriced_time): a line without a rate is a bug.
    expect(() => creditLineOf(terms, 0n, [{ ...time[0]!, billable_rate: null }], 'USD')).toThrow('Credit used without a rate');
  });

  it('give back on release the time\'s value less the blocks bought', () => {
    const { line } = creditLineOf(terms, 0n, hours([[100, 60]]), 'USD')!;
    expect(creditReturned(line)).toBe(10_000n - 50_000n);
    const { line: jpy } = creditLineOf({ ...terms, block_amount: '5000' }, -300n, hours([[1000, 30]]), 'JPY')!;
    expect(jpy).toMatchObject({ blocks: 1, credit_used: '500', credit_balance: '4200', amount: '5000' });
    expect(creditReturned(jpy)).toBe(500n - 5000n);
  });

  it('come after the fees and before the time of their project, and a delete removes them', () => {
    const lines = addFees(hours([[100, 60]]), [creditLineOf(terms, 0n, hours([[100, 60]]), 'USD')!.line, { kind: 'fixed_price', project_id: 'prj_C', description: 'Support', amount: '1.00', taxable: true }]);
    expect(lines.map((l) => l.kind)).toEqual(['fixed_price', 'credit', 'time']);
    expect(invoiceAmounts(lines, 0, [], 'USD').subtotal).toBe('501.00');
    const credit = lines[1] as CreditLine;
    expect(removeFees(lines, [], [credit]).map((l) => l.kind)).toEqual(['fixed_price', 'time']);
    expect(removeFees(lines, [], [{ ...credit, project_id: 'prj_D' }])).toEqual(lines);
    expect(removeFees(lines, [], [{ ...credit, project_id: 'prj_D' }, credit]).map((l) => l.kind)).toEqual(['fixed_price', 'time']);
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
    expect(invoiceAmounts(lines, 10, [], 'USD')).toMatchObject({ subtotal: '150.00', discount_amount: '15.00', tax_amount: '0.00', total: '135.00' });
  });

  it('lose their fees and entries as a draft\'s delete releases them', () => {
    const lines = addFees(time, fees);
    const withoutFees = removeFees(lines, [fees[0]!, fees[1]!], []);
    expect(withoutFees.filter((l) => l.kind !== 'time')).toEqual([fees[2]]);
    expect(removeFromLines(withoutFees, [{ id: 'te_2', project_id: 'prj_B', billable_rate: null, duration_minutes: 30, covered: true }], 'USD').map((l) => l.kind === 'time' && l.billable_rate)).toEqual([60, 0, false, 50]);
  });
});
