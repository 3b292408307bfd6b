/**
 * An invoice's lines and amounts (shared/domain/invoices/amounts.ts) against a reference computed here
 * with integer arithmetic of its own: decimals read digit by digit, values as BigInt, one rounding.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { roundHalfEven, roundHalfUp, units } from '../support/money-reference.ts';
import { addFees, addToLines, balanceAfter, invoiceAmounts, itemLineOf, lineAmountMinor, percentUnits, removeFees, removeFromLines, withItems, type FeeLine, type InvoiceLine, type InvoiceableEntry } from '../../shared/domain/invoices/amounts.ts';
import { percent } from '../../shared/model/fields.ts';

// ---- The reference: nothing from the module under test, nor from shared/core/money.ts. ----
const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, KWD: 3 };
/** minutes × rate / 60 in minor units: minutes × rate·10^4 × 10^digits / (60 × 10^4). */
const refLine = (minutes: number, rate: number, currency: string) => roundHalfEven(BigInt(minutes) * units(rate, 4) * 10n ** BigInt(DIGITS[currency]!), 600_000n);
function refText(minor: bigint, currency: string): string {
  const digits = DIGITS[currency]!;
  if (digits === 0) return minor.toString();
  const s = minor.toString().padStart(digits + 1, '0');
  return `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}
/** The whole invoice by the contract: lines per (project, rate), subtotal, discount (half to even), then one tax on what is left (half up). */
function reference(entries: InvoiceableEntry[], discountRate: number, taxRate: number, currency: string) {
  const groups = new Map<string, { project_id: string | null; rate: number; minutes: number; count: number }>();
  for (const e of entries) {
    const key = `${e.project_id ?? ''}|${e.billable_rate}`;
    const g = groups.get(key) ?? { project_id: e.project_id, rate: e.billable_rate!, minutes: 0, count: 0 };
    g.minutes += e.duration_minutes;
    g.count += 1;
    groups.set(key, g);
  }
  const lines = [...groups.values()]
    .sort((a, b) => (a.project_id === b.project_id ? a.rate - b.rate : a.project_id === null ? -1 : b.project_id === null ? 1 : a.project_id < b.project_id ? -1 : 1))
    .map((g) => ({ project_id: g.project_id, billable_rate: g.rate, minutes: g.minutes, time_entry_count: g.count, minor: refLine(g.minutes, g.rate, currency) }));
  const subtotal = lines.reduce((s, l) => s + l.minor, 0n);
  const discount = roundHalfEven(subtotal * units(discountRate, 3), 100_000n);
  const tax = roundHalfUp((subtotal - discount) * units(taxRate, 3), 100_000n);
  return {
    // Time lines (contract, "Billing types"): every line has its kind and `taxable`.
    lines: lines.map(({ minor, ...l }) => ({ kind: 'time', ...l, amount: refText(minor, currency), taxable: true })),
    amounts: { subtotal: refText(subtotal, currency), discount_amount: refText(discount, currency), tax_amount: refText(tax, currency), total: refText(subtotal - discount + tax, currency) },
  };
}
// ---- End of the reference. ----

const describeProject = (projectId: string | null) => (projectId === null ? 'Acme (no project)' : `Project ${projectId}`);
let n = 0;
const entry = (project_id: string | null, billable_rate: number, duration_minutes: number): InvoiceableEntry => ({ id: `te_${++n}`, project_id, billable_rate, duration_minutes });
/** An invoice of `entries` with one tax at `taxRate` (none at 0): its lines and the four amounts the reference computes. */
const invoiceOf = (entries: InvoiceableEntry[], discountRate: number, taxRate: number, currency: string) => {
  const lines = addToLines([], entries, describeProject, currency);
  const { subtotal, discount_amount, tax_amount, total } = invoiceAmounts(lines, discountRate, taxRate > 0 ? [{ name: 'Tax', rate: taxRate }] : [], currency);
  return { lines, amounts: { subtotal, discount_amount, tax_amount, total } };
};
const withoutDescriptions = (lines: InvoiceLine[]) => lines.map(({ description: _d, ...l }) => l);

describe('percentages', () => {
  it('are read in thousandths from their decimal spelling', () => {
    expect([0, 0.001, 7.5, 19.6, 33.333, 100].map(percentUnits)).toEqual([0n, 1n, 7_500n, 19_600n, 33_333n, 100_000n]);
    // 0.1 + 0.2 is no decimal of 3 places; 100.001 is past 100 %.
    for (const bad of [0.0001, 0.1 + 0.2, 100.001, -1]) expect(() => percentUnits(bad), String(bad)).toThrow();
    // The message names the value (a bug's trace): a money value too fine or too large for a percentage, or no money value at all.
    expect(() => percentUnits(0.0001)).toThrow('Not a percentage: 0.0001');
    expect(() => percentUnits(100.001)).toThrow('Not a percentage: 100.001');
    expect(() => percentUnits(-1)).toThrow('Not a money value: -1');
  });

  it('are validated as JSON numbers 0 to 100 with at most 3 decimals, each message naming the field', () => {
    const schema = percent('tax_rate');
    const message = (input: unknown) => {
      const out = v.safeParse(schema, input);
      return out.success ? undefined : out.issues[0].message;
    };
    for (const ok of [0, 0.001, 20, 33.333, 100]) expect(message(ok), String(ok)).toBeUndefined();
    expect(message('20')).toBe('tax_rate must be a number');
    expect(message(Number.NaN)).toBe('tax_rate must be a number');
    expect(message(Infinity)).toBe('tax_rate must be a finite number');
    expect(message(-0.001)).toBe('tax_rate must be a percentage from 0 to 100');
    expect(message(100.001)).toBe('tax_rate must be a percentage from 0 to 100');
    expect(message(1.0005)).toBe('tax_rate must have at most 3 decimal places');
    expect(message(0.1 + 0.2)).toBe('tax_rate must have at most 3 decimal places');
  });
});

describe('line amounts', () => {
  it('are minutes × rate / 60 in the minor unit, a half going to the even unit both ways', () => {
    // 1 minute at 0.30 is 0.005: half a cent, down to the even 0.00; 3 minutes at 0.30 is 0.015: up to 0.02.
    expect(lineAmountMinor(1, 0.3, 'USD')).toBe(0n);
    expect(lineAmountMinor(3, 0.3, 'USD')).toBe(2n);
    expect(lineAmountMinor(1, 0.9, 'USD')).toBe(2n); // 0.015 -> 0.02
    expect(lineAmountMinor(5, 0.3, 'USD')).toBe(2n); // 0.025 -> 0.02
    // JPY has no minor unit: 1 minute at 30 is 0.5 yen -> 0, at 90 is 1.5 -> 2, at 150 is 2.5 -> 2.
    expect([30, 90, 150].map((rate) => lineAmountMinor(1, rate, 'JPY'))).toEqual([0n, 2n, 2n]);
    // KWD has 3: 1 minute at 0.03 is 0.0005 -> 0.000; 3 minutes, 0.0015 -> 0.002.
    expect([lineAmountMinor(1, 0.03, 'KWD'), lineAmountMinor(3, 0.03, 'KWD')]).toEqual([0n, 2n]);
    for (const [minutes, rate, currency] of [[1, 0.3, 'USD'], [7, 123.4567, 'EUR'], [45, 9999, 'JPY'], [59, 1.2345, 'KWD']] as const) {
      expect(lineAmountMinor(minutes, rate, currency)).toBe(refLine(minutes, rate, currency));
    }
  });
});

describe('lines and totals against the reference', () => {
  it('several projects and rates, time without a project, in USD, with a discount then tax', () => {
    const entries = [
      entry('prj_B', 150, 90), entry('prj_A', 95.5, 45), entry(null, 80, 30), entry('prj_B', 120, 61),
      entry('prj_A', 95.5, 17), entry('prj_B', 150, 7), entry(null, 80, 1), entry(null, 60.25, 13), entry('prj_A', 0.0001, 600),
    ];
    const made = invoiceOf(entries, 12.5, 19.6, 'USD');
    const ref = reference(entries, 12.5, 19.6, 'USD');
    expect(withoutDescriptions(made.lines)).toEqual(ref.lines);
    expect(made.amounts).toEqual(ref.amounts);
    expect(made.lines.map((l) => [l.project_id, l.billable_rate])).toEqual([[null, 60.25], [null, 80], ['prj_A', 0.0001], ['prj_A', 95.5], ['prj_B', 120], ['prj_B', 150]]);
    expect(made.lines.map((l) => l.description)).toEqual(['Acme (no project)', 'Acme (no project)', 'Project prj_A', 'Project prj_A', 'Project prj_B', 'Project prj_B']);
    // By hand: 13 min at 60.25 = 13.054…, 31 at 80 = 41.333…, 600 at 0.0001 = 0.001, 62 at 95.5 = 98.683…, 122.00, 97 at 150 = 242.50;
    // 12.5 % of 517.56 is 64.695: the half goes to the even 64.70; 19.6 % of 452.86 is 88.760…
    expect(made.lines.map((l) => l.amount)).toEqual(['13.05', '41.33', '0.00', '98.68', '122.00', '242.50']);
    expect(made.amounts).toEqual({ subtotal: '517.56', discount_amount: '64.70', tax_amount: '88.76', total: '541.62' });
  });

  it('JPY (no minor unit) and KWD (three digits)', () => {
    const entries = [entry('prj_A', 12_345, 7), entry(null, 9_999.5, 1), entry('prj_A', 12_345, 11), entry('prj_C', 333.333, 59)];
    for (const currency of ['JPY', 'KWD']) {
      const made = invoiceOf(entries, 3.333, 8.125, currency);
      const ref = reference(entries, 3.333, 8.125, currency);
      expect(withoutDescriptions(made.lines), currency).toEqual(ref.lines);
      expect(made.amounts, currency).toEqual(ref.amounts);
    }
    expect(invoiceOf([entry(null, 9_999.5, 1)], 0, 0, 'JPY').amounts.total).toBe('167'); // 166.658…
    expect(invoiceOf([entry(null, 9_999.5, 1)], 0, 0, 'KWD').amounts.total).toBe('166.658');
  });

  it('rounds the discount once, half to even, and the tax once, half up', () => {
    // Subtotal 0.50 (30 min at 1.00): a 5 % discount is 0.025 -> 0.02 (even); 15 % is 0.075 -> 0.08 (even).
    expect(invoiceOf([entry(null, 1, 30)], 5, 0, 'USD').amounts).toEqual({ subtotal: '0.50', discount_amount: '0.02', tax_amount: '0.00', total: '0.48' });
    expect(invoiceOf([entry(null, 1, 30)], 15, 0, 'USD').amounts.discount_amount).toBe('0.08');
    // The tax is on what the discount leaves: 0.48 × 12.5 % = 0.06 exactly; 0.42 (after 15 %) × 12.5 % = 0.0525 -> 0.05.
    expect(invoiceOf([entry(null, 1, 30)], 5, 12.5, 'USD').amounts.tax_amount).toBe('0.06');
    expect(invoiceOf([entry(null, 1, 30)], 15, 12.5, 'USD').amounts).toEqual({ subtotal: '0.50', discount_amount: '0.08', tax_amount: '0.05', total: '0.47' });
    // JPY: 10 yen at 25 % tax is 2.5 -> 3 (half up); 30 yen at 25 % is 7.5 -> 8; 2 yen at 20 % is 0.4 -> 0.
    expect(invoiceOf([entry(null, 600, 1)], 0, 25, 'JPY').amounts.tax_amount).toBe('3');
    expect(invoiceOf([entry(null, 120, 1)], 0, 20, 'JPY').amounts.tax_amount).toBe('0');
    expect(invoiceOf([entry(null, 1_800, 1)], 0, 25, 'JPY').amounts.tax_amount).toBe('8');
    // 100 % discount leaves nothing to tax.
    expect(invoiceOf([entry('prj_A', 50, 60)], 100, 20, 'EUR').amounts).toEqual({ subtotal: '50.00', discount_amount: '50.00', tax_amount: '0.00', total: '0.00' });
  });

  it('stays exact past 2^53 minor units', () => {
    // 2,000 entries of a week at the highest rate, in fils (KWD): 3.36 × 10^17 minor units.
    const entries = Array.from({ length: 2_000 }, (_, i) => entry(i % 3 === 0 ? null : `prj_${i % 4}`, i % 2 === 0 ? 1_000_000_000 : 999_999_999.9999, 10_080));
    const made = invoiceOf(entries, 0.001, 99.999, 'KWD');
    const ref = reference(entries, 0.001, 99.999, 'KWD');
    expect(withoutDescriptions(made.lines)).toEqual(ref.lines);
    expect(made.amounts).toEqual(ref.amounts);
    expect(BigInt(made.amounts.subtotal.replace('.', ''))).toBeGreaterThan(2n ** 53n);
  });

  it('agrees with the reference on many random invoices', () => {
    let seed = 42;
    const random = (k: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % k);
    for (let round = 0; round < 200; round++) {
      const currency = ['USD', 'JPY', 'KWD', 'EUR'][round % 4]!;
      const entries = Array.from({ length: 1 + random(30) }, () =>
        entry(random(4) === 0 ? null : `prj_${random(3)}`, [0.3, 1, 12.5, 99.9999, 150, 0.0001, 7_777.7777][random(7)]!, 1 + random(10_080)),
      );
      const discountRate = random(100_001) / 1000;
      const taxRate = random(3) === 0 ? 0 : random(30_000) / 1000;
      const made = invoiceOf(entries, discountRate, taxRate, currency);
      const ref = reference(entries, discountRate, taxRate, currency);
      expect(withoutDescriptions(made.lines), `round ${round}`).toEqual(ref.lines);
      expect(made.amounts, `round ${round}`).toEqual(ref.amounts);
    }
  });
});

describe('taxes', () => {
  const line = (amount: string, taxable: boolean): InvoiceLine => ({ kind: 'fixed_price', project_id: 'prj_A', description: 'A', amount, taxable });
  const TPS_TVQ = [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }];

  it('charges TPS and TVQ on the same taxable amount, each rounded half up (Revenu Québec\'s example)', () => {
    expect(invoiceAmounts([line('100.00', true)], 0, TPS_TVQ, 'CAD')).toEqual({
      subtotal: '100.00', discount_amount: '0.00', tax_rate: 14.975,
      taxes: [{ name: 'TPS', rate: 5, taxable_amount: '100.00', amount: '5.00' }, { name: 'TVQ', rate: 9.975, taxable_amount: '100.00', amount: '9.98' }],
      tax_amount: '14.98', total: '114.98',
    });
    // Neither is taxed again: TVQ on 105.00 would be 10.47.
    expect(invoiceAmounts([line('0.10', true)], 0, TPS_TVQ, 'CAD').taxes.map((t) => t.amount)).toEqual(['0.01', '0.01']); // 0.005 and 0.009975 round up
  });

  it('taxes only the taxable lines, less the discount\'s share of them (that share half to even)', () => {
    // T = 30.10; its discount share at 5 % is 1.505 -> 1.50 (even); taxable 28.60; TPS 1.43, TVQ 2.85285 -> 2.85.
    const amounts = invoiceAmounts([line('30.10', true), line('69.90', false)], 5, TPS_TVQ, 'CAD');
    expect(amounts).toMatchObject({ subtotal: '100.00', discount_amount: '5.00', tax_amount: '4.28', total: '99.28' });
    expect(amounts.taxes.map((t) => [t.taxable_amount, t.amount])).toEqual([['28.60', '1.43'], ['28.60', '2.85']]);
    // Nothing taxable: taxes of zero, kept by name.
    expect(invoiceAmounts([line('10.00', false)], 0, TPS_TVQ, 'CAD').taxes.map((t) => [t.taxable_amount, t.amount])).toEqual([['0.00', '0.00'], ['0.00', '0.00']]);
  });

  it('states tax_rate as the exact sum of the rates (0 with none), in the order given', () => {
    expect(invoiceAmounts([], 0, [], 'USD')).toMatchObject({ tax_rate: 0, taxes: [], tax_amount: '0.00' });
    expect(invoiceAmounts([], 0, [{ name: 'b', rate: 0.1 }, { name: 'a', rate: 0.2 }], 'USD')).toMatchObject({ tax_rate: 0.3, taxes: [{ name: 'b' }, { name: 'a' }] });
    expect(invoiceAmounts([], 0, [{ name: 'x', rate: 100 }, { name: 'y', rate: 99.999 }], 'USD').tax_rate).toBe(199.999);
    expect(invoiceAmounts([], 0, [{ name: 'x', rate: 0.025 }, { name: 'y', rate: 0.025 }], 'USD').tax_rate).toBe(0.05);
  });
});

describe('items', () => {
  it('are quantity × unit_price, exact in integers, rounded once, half to even, in the currency\'s minor unit', () => {
    const item = (quantity: number, unit_price: number, currency = 'USD') => itemLineOf({ description: 'x', quantity, unit_price, taxable: true }, currency).amount;
    expect([item(2.5, 19.99), item(3, 0.3333), item(0.0001, 0.0001), item(1_000_000, 1_000_000_000)]).toEqual(['49.98', '1.00', '0.00', '1000000000000000.00']);
    // 0.5 × 0.05 = 0.025 -> 0.02 (even); 1.5 × 0.05 = 0.075 -> 0.08; JPY 2.5 × 1 = 2.5 -> 2; KWD 0.3333 × 0.0015 = 0.00049995 -> 0.000.
    expect([item(0.5, 0.05), item(1.5, 0.05), item(2.5, 1, 'JPY'), item(0.3333, 0.0015, 'KWD')]).toEqual(['0.02', '0.08', '2', '0.000']);
    expect(itemLineOf({ description: 'Setup', quantity: 1, unit_price: 5, project_id: 'prj_A', taxable: false }, 'USD')).toEqual({
      kind: 'item', project_id: 'prj_A', description: 'Setup', quantity: 1, unit_price: 5, amount: '5.00', taxable: false,
    });
  });

  it('come after every other line, in their given order, and a PATCH replaces them', () => {
    const [b, a] = [itemLineOf({ description: 'b', quantity: 1, unit_price: 1, project_id: 'prj_A', taxable: true }, 'USD'), itemLineOf({ description: 'a', quantity: 1, unit_price: 2, taxable: true }, 'USD')];
    const time = addToLines([], [entry('prj_B', 10, 60), entry(null, 10, 6)], describeProject, 'USD');
    const lines = addFees([b, a, ...time], [{ kind: 'fixed_price', project_id: 'prj_A', description: 'A', amount: '1.00', taxable: true }]);
    expect(lines.map((l) => [l.kind, l.project_id])).toEqual([['time', null], ['fixed_price', 'prj_A'], ['time', 'prj_B'], ['item', 'prj_A'], ['item', null]]);
    expect(withItems(lines, [a]).map((l) => l.description)).toEqual(['Acme (no project)', 'A', 'Project prj_B', 'a']);
    expect(removeFees(lines, [], []).length).toBe(lines.length);
  });
});

describe('adding and removing entries', () => {
  it('returns new arrays, leaving the lines given unchanged', () => {
    const start = addToLines([], [entry('prj_A', 10, 60)], describeProject, 'USD');
    const copy = structuredClone(start);
    const more = addToLines(start, [entry('prj_A', 10, 30), entry(null, 10, 5)], describeProject, 'USD');
    expect(start).toEqual(copy);
    expect(more).not.toBe(start);
    expect(removeFromLines(more, [], 'USD')).not.toBe(more);
    // The description of a line is the one it was made with.
    expect(addToLines(start, [entry('prj_A', 10, 1)], () => 'renamed', 'USD')[0]!.description).toBe('Project prj_A');
  });

  it('in batches gives what one pass gives; removing what was added returns the original lines', () => {
    const base = [entry('prj_A', 95.5, 45), entry(null, 80, 30), entry('prj_B', 150, 90)];
    const batch = [entry('prj_A', 95.5, 17), entry('prj_A', 120, 61), entry(null, 80, 1), entry('prj_C', 0.3, 1)];
    const original = addToLines([], base, describeProject, 'USD');
    const added = addToLines(original, batch.slice(0, 2), describeProject, 'USD');
    const both = addToLines(added, batch.slice(2), describeProject, 'USD');
    expect(both).toEqual(addToLines([], [...batch, ...base], describeProject, 'USD'));
    expect(removeFromLines(both, [...batch].reverse(), 'USD')).toEqual(original);
    // Every entry removed: no line left.
    expect(removeFromLines(both, [...base, ...batch], 'USD')).toEqual([]);
  });

  it('refuses to remove an entry no line holds', () => {
    const lines = addToLines([], [entry('prj_A', 10, 60)], describeProject, 'USD');
    expect(() => removeFromLines(lines, [entry('prj_A', 20, 60)], 'USD')).toThrow(/No line/);
    expect(() => removeFromLines(lines, [entry('prj_A', 10, 61)], 'USD')).toThrow(/No line/);
  });
});

describe('fee lines and covered time (contract, "Billing types")', () => {
  const fixed = (project_id: string): FeeLine => ({ kind: 'fixed_price', project_id, description: project_id, amount: '100.00', taxable: true });
  const retainer = (project_id: string, period_start: string, period_end: string): FeeLine => ({ kind: 'retainer', project_id, description: project_id, period_start, period_end, amount: '10.00', taxable: true });
  const periodOf = (line: InvoiceLine) => (line.kind === 'retainer' ? line.period_start : line.kind);

  it('prices covered time at zero, its rate kept or null; time and materials without a rate is a bug', () => {
    const covered = [{ ...entry('prj_A', 50, 60), covered: true }, { id: 'te_b', project_id: 'prj_A', billable_rate: null, duration_minutes: 30, covered: true }];
    expect(addToLines([], covered, describeProject, 'USD').map((l) => (l.kind === 'time' ? [l.billable_rate, l.minutes, l.amount] : []))).toEqual([[null, 30, '0.00'], [50, 60, '0.00']]);
    // Taken away again, still at zero.
    const lines = addToLines([], [...covered, { ...entry('prj_A', 50, 15), covered: true }], describeProject, 'USD');
    expect(removeFromLines(lines, [covered[1]!, { ...entry('prj_A', 50, 15), covered: true }], 'USD').map((l) => l.amount)).toEqual(['0.00']);
    // The create selects time and materials priced: a null rate there throws, naming the project.
    expect(() => addToLines([], [{ id: 'te_c', project_id: 'prj_A', billable_rate: null, duration_minutes: 30 }], describeProject, 'USD')).toThrow(
      'Time entries without a rate on a line of time and materials (prj_A)',
    );
  });

  it("orders a project's time without a rate before its time at rate 0, whichever comes first", () => {
    const unpriced = { id: 'te_n', project_id: 'prj_A', billable_rate: null, duration_minutes: 30, covered: true };
    const free = { ...entry('prj_A', 0, 30), covered: true };
    for (const entries of [[unpriced, free], [free, unpriced]]) {
      expect(addToLines([], entries, describeProject, 'USD').map((l) => l.kind === 'time' && l.billable_rate)).toEqual([null, 0]);
    }
  });

  it('orders retainer periods by start, whatever order they are added in', () => {
    const periods = [retainer('prj_A', '2026-01-31', '2026-02-28'), retainer('prj_A', '2026-02-28', '2026-03-31'), retainer('prj_A', '2026-03-31', '2026-04-30')];
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2]]) {
      const lines = addFees([fixed('prj_A')], order.map((i) => periods[i]!));
      expect(lines.map(periodOf), String(order)).toEqual(['fixed_price', '2026-01-31', '2026-02-28', '2026-03-31']);
    }
  });

  it("removes the fees named, not another project's nor another period's", () => {
    const lines = addFees([], [fixed('prj_A'), fixed('prj_B'), retainer('prj_A', '2026-01-31', '2026-02-28'), retainer('prj_A', '2026-02-28', '2026-03-31'), retainer('prj_B', '2026-01-31', '2026-02-28')]);
    const left = removeFees(lines, [fixed('prj_A'), retainer('prj_A', '2026-01-31', '2026-02-28')], []);
    expect(left.map((l) => [l.project_id, periodOf(l)])).toEqual([['prj_A', '2026-02-28'], ['prj_B', 'fixed_price'], ['prj_B', '2026-01-31']]);
  });
});

describe('an invoice\'s balance after a payment (balanceAfter)', () => {
  const open = { total: 11_498n, paid: 0n, status: 'open', currency: 'CAD' };
  const at = (h: number) => `2026-12-01T${String(h).padStart(2, '0')}:00:00.000Z`;

  it('moves amount_paid and amount_due; a part leaves it open, status untouched', () => {
    expect(balanceAfter(open, 5_000n, [at(10)])).toEqual({ amount_paid: '50.00', amount_due: '64.98' });
  });

  it('makes an open invoice paid when nothing is due, at its payments\' latest paid_at (not the last recorded)', () => {
    expect(balanceAfter({ ...open, paid: 5_000n }, 6_498n, [at(15), at(9), at(12)])).toEqual({ amount_paid: '114.98', amount_due: '0.00', status: 'paid', paid_at: at(15) });
    expect(balanceAfter({ ...open, paid: 5_000n }, 6_498n, [at(9), at(15)])).toMatchObject({ paid_at: at(15) });
  });

  it('reopens a paid invoice that has a balance again (a payment deleted), paid_at null; a void or draft never moves', () => {
    expect(balanceAfter({ ...open, paid: 11_498n, status: 'paid' }, -5_000n, [at(9)])).toEqual({ amount_paid: '64.98', amount_due: '50.00', status: 'open', paid_at: null });
    expect(balanceAfter({ ...open, paid: 11_498n, status: 'paid' }, 0n, [at(9)])).toEqual({ amount_paid: '114.98', amount_due: '0.00' });
    expect(balanceAfter({ ...open, status: 'void' }, 11_498n, [at(9)])).toEqual({ amount_paid: '114.98', amount_due: '0.00' });
    expect(balanceAfter({ total: 1_000n, paid: 0n, status: 'open', currency: 'JPY' }, 400n, [at(9)])).toEqual({ amount_paid: '400', amount_due: '600' });
  });
});
