/**
 * What a project's billing type charges besides its time (shared/domain/invoices/fees.ts) against
 * references computed here: calendar dates stepped by hand (no Date), periods enumerated one by one
 * from the first, decimals read digit by digit, blocks counted up one at a time.
 */
import { describe, expect, it } from 'vitest';
import { roundHalfEven, units } from '../support/money-reference.ts';
import { creditBlocks, feeMinor, retainerPeriodStarts, type RetainerPeriod, type RetainerSchedule } from '../../shared/domain/invoices/fees.ts';

// ---- The reference: nothing from the module under test, nor from shared/core. ----
type Ymd = [number, number, number];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
const text = ([y, m, d]: Ymd) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const ymd = (date: string): Ymd => [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
function plusDays([y, m, d]: Ymd, n: number): Ymd {
  for (let i = 0; i < n; i++) {
    d += 1;
    if (d > daysIn(y, m)) [m, d] = [m + 1, 1];
    if (m > 12) [y, m] = [y + 1, 1];
  }
  return [y, m, d];
}
/** `months` calendar months after `first`, the day clamped to the month's last. */
function plusMonths([y, m, d]: Ymd, months: number): Ymd {
  const index = (m - 1) + months;
  const year = y + Math.floor(index / 12);
  const month = (index % 12) + 1;
  return [year, month, Math.min(d, daysIn(year, month))];
}
/**
 * The contract's periods, enumerated from period 0 (firstDate: the start_date's UTC date, given by
 * hand; endDate: end_date's, or null). Dates `YYYY-MM-DD` compare as strings.
 */
function refPeriods(firstDate: string, count: number, unit: RetainerSchedule['interval_unit'], from: string, to: string, endDate: string | null): RetainerPeriod[] {
  const first = ymd(firstDate);
  // Days add up from one period to the next; months are counted from the first date (clamping is not cumulative).
  const next = (start: Ymd, k: number): Ymd =>
    unit === 'Day' ? plusDays(start, count) : unit === 'Week' ? plusDays(start, 7 * count) : plusMonths(first, (k + 1) * count * (unit === 'Year' ? 12 : 1));
  const out: RetainerPeriod[] = [];
  for (let k = 0, start = first; text(start) < to; k++) {
    const end = next(start, k);
    const d = text(start);
    if (d >= from && (endDate === null || d < endDate)) out.push({ period_start: d, period_end: text(end) });
    start = end;
  }
  return out;
}
const DIGITS: Record<string, number> = { USD: 2, JPY: 0, KWD: 3 };
const refFee = (value: number, currency: string) => roundHalfEven(units(value, 4) * 10n ** BigInt(DIGITS[currency]!), 10_000n);
/** The fewest blocks, counted up one by one, that leave credit + n × block − used above zero. */
function refBlocks(credit: bigint, used: bigint, block: bigint): bigint {
  let n = 0n;
  while (credit + n * block - used <= 0n) n += 1n;
  return n;
}
// ---- End of the reference. ----

const LIMIT = 100;
const schedule = (start_date: string, interval_count: number, interval_unit: RetainerSchedule['interval_unit'], end_date: string | null = null): RetainerSchedule => ({ start_date, end_date, interval_count, interval_unit });
const starts = (periods: RetainerPeriod[]) => periods.map((p) => p.period_start);

describe('retainer periods', () => {
  it('Day and Week step from the first date, each ending where the next starts', () => {
    const day = retainerPeriodStarts(schedule('2026-02-26T09:30:00.000Z', 1, 'Day'), '2026-02-27', '2026-03-03', LIMIT);
    expect(day).toEqual([
      { period_start: '2026-02-27', period_end: '2026-02-28' },
      { period_start: '2026-02-28', period_end: '2026-03-01' },
      { period_start: '2026-03-01', period_end: '2026-03-02' },
      { period_start: '2026-03-02', period_end: '2026-03-03' },
    ]);
    expect(starts(retainerPeriodStarts(schedule('2026-01-01T00:00:00.000Z', 10, 'Day'), '2026-01-01', '2026-03-01', LIMIT))).toEqual(['2026-01-01', '2026-01-11', '2026-01-21', '2026-01-31', '2026-02-10', '2026-02-20']);
    expect(retainerPeriodStarts(schedule('2026-01-01T00:00:00.000Z', 1, 'Week'), '2026-01-05', '2026-01-30', LIMIT)).toEqual([
      { period_start: '2026-01-08', period_end: '2026-01-15' },
      { period_start: '2026-01-15', period_end: '2026-01-22' },
      { period_start: '2026-01-22', period_end: '2026-01-29' },
      { period_start: '2026-01-29', period_end: '2026-02-05' },
    ]);
    // Across a leap day, a year end, and intervals of several units.
    for (const [count, unit] of [[1, 'Day'], [3, 'Day'], [1, 'Week'], [2, 'Week'], [1000, 'Day'], [1000, 'Week']] as const) {
      for (const [from, to] of [['2023-12-20', '2024-03-10'], ['2024-01-01', '2030-01-01'], ['2020-01-01', '2023-12-20']]) {
        const label = `${count} ${unit} ${from}..${to}`;
        expect(retainerPeriodStarts(schedule('2023-12-20T15:00:00.000Z', count, unit), from!, to!, 10_000), label).toEqual(refPeriods('2023-12-20', count, unit, from!, to!, null));
      }
    }
  });

  it('Month from the 31st clamps to February\'s last day, in a leap year and not, and is counted from the first date', () => {
    expect(starts(retainerPeriodStarts(schedule('2024-01-31T12:00:00.000Z', 1, 'Month'), '2024-01-01', '2024-06-01', LIMIT))).toEqual(['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30', '2024-05-31']);
    const periods = retainerPeriodStarts(schedule('2025-01-31T12:00:00.000Z', 1, 'Month'), '2025-01-01', '2025-05-01', LIMIT);
    expect(periods).toEqual([
      { period_start: '2025-01-31', period_end: '2025-02-28' },
      { period_start: '2025-02-28', period_end: '2025-03-31' },
      { period_start: '2025-03-31', period_end: '2025-04-30' },
      { period_start: '2025-04-30', period_end: '2025-05-31' },
    ]);
    // 1900 is no leap year, 2000 is one.
    expect(starts(retainerPeriodStarts(schedule('1900-01-31T00:00:00.000Z', 1, 'Month'), '1900-02-01', '1900-03-01', LIMIT))).toEqual(['1900-02-28']);
    expect(starts(retainerPeriodStarts(schedule('2000-01-31T00:00:00.000Z', 1, 'Month'), '2000-02-01', '2000-03-01', LIMIT))).toEqual(['2000-02-29']);
    // A range starting long after the first date finds the same dates as one that starts with it.
    for (const first of ['2023-01-31', '2023-03-30', '2024-02-29', '2023-08-15']) {
      for (const [from, to] of [['2020-01-01', '2031-01-01'], ['2029-02-28', '2029-04-01'], ['2024-02-29', '2024-03-01'], ['2028-12-31', '2029-01-01']]) {
        expect(retainerPeriodStarts(schedule(`${first}T06:00:00.000Z`, 1, 'Month'), from!, to!, 1000), `${first} ${from}..${to}`).toEqual(refPeriods(first, 1, 'Month', from!, to!, null));
      }
    }
  });

  it('Month with interval_count 3, clamped from the 30th', () => {
    expect(retainerPeriodStarts(schedule('2025-11-30T08:00:00.000Z', 3, 'Month'), '2026-01-01', '2027-01-01', LIMIT)).toEqual([
      { period_start: '2026-02-28', period_end: '2026-05-30' },
      { period_start: '2026-05-30', period_end: '2026-08-30' },
      { period_start: '2026-08-30', period_end: '2026-11-30' },
      { period_start: '2026-11-30', period_end: '2027-02-28' },
    ]);
    for (const [from, to] of [['2025-01-01', '2035-01-01'], ['2031-05-30', '2031-05-31'], ['2031-05-31', '2031-08-30'], ['2031-05-31', '2031-08-31']]) {
      expect(retainerPeriodStarts(schedule('2025-11-30T08:00:00.000Z', 3, 'Month'), from!, to!, 1000), `${from}..${to}`).toEqual(refPeriods('2025-11-30', 3, 'Month', from!, to!, null));
    }
    for (const count of [5, 7, 11, 13, 1000]) {
      expect(retainerPeriodStarts(schedule('2001-08-31T08:00:00.000Z', count, 'Month'), '2003-01-01', '2200-01-01', 1000), String(count)).toEqual(refPeriods('2001-08-31', count, 'Month', '2003-01-01', '2200-01-01', null));
    }
  });

  it('Year from 29 February: the 28th in common years, the 29th again in leap years', () => {
    expect(retainerPeriodStarts(schedule('2024-02-29T23:00:00.000Z', 1, 'Year'), '2024-01-01', '2029-01-01', LIMIT)).toEqual([
      { period_start: '2024-02-29', period_end: '2025-02-28' },
      { period_start: '2025-02-28', period_end: '2026-02-28' },
      { period_start: '2026-02-28', period_end: '2027-02-28' },
      { period_start: '2027-02-28', period_end: '2028-02-29' },
      { period_start: '2028-02-29', period_end: '2029-02-28' },
    ]);
    // Every 4 years from 1896's 29 February: 1900 is not leap, 2000 is.
    expect(starts(retainerPeriodStarts(schedule('1896-02-29T00:00:00.000Z', 4, 'Year'), '1899-01-01', '2005-01-01', LIMIT)).filter((d) => d < '1905' || (d > '1995' && d < '2005'))).toEqual(['1900-02-28', '1904-02-29', '1996-02-29', '2000-02-29', '2004-02-29']);
    for (const count of [1, 2, 3, 4, 100]) {
      expect(retainerPeriodStarts(schedule('2024-02-29T00:00:00.000Z', count, 'Year'), '2030-01-01', '2500-01-01', 1000), String(count)).toEqual(refPeriods('2024-02-29', count, 'Year', '2030-01-01', '2500-01-01', null));
    }
  });

  it('end_date: a period starting before its UTC date is charged whole; none starting on it or after', () => {
    const monthly = (end: string) => retainerPeriodStarts(schedule('2026-01-15T10:00:00.000Z', 1, 'Month', end), '2026-01-01', '2027-01-01', LIMIT);
    expect(monthly('2026-04-10T12:00:00.000Z')).toEqual([
      { period_start: '2026-01-15', period_end: '2026-02-15' },
      { period_start: '2026-02-15', period_end: '2026-03-15' },
      { period_start: '2026-03-15', period_end: '2026-04-15' },
    ]);
    expect(monthly('2026-04-10T12:00:00.000Z')).toEqual(refPeriods('2026-01-15', 1, 'Month', '2026-01-01', '2027-01-01', '2026-04-10'));
    // On a start date: that period is not charged, whatever the time of day.
    expect(starts(monthly('2026-03-15T00:00:00.000Z'))).toEqual(['2026-01-15', '2026-02-15']);
    expect(starts(monthly('2026-03-15T23:30:00.000Z'))).toEqual(['2026-01-15', '2026-02-15']);
    // Its UTC date, not its local one: 23:30 at UTC−1 is 00:30 the next UTC day; 00:30 at UTC+2 is the day before.
    expect(starts(monthly('2026-03-15T23:30:00-01:00'))).toEqual(['2026-01-15', '2026-02-15', '2026-03-15']);
    expect(starts(monthly('2026-03-16T00:30:00+02:00'))).toEqual(['2026-01-15', '2026-02-15']);
    // On or before the first date: nothing.
    expect(monthly('2026-01-15T00:00:00.000Z')).toEqual([]);
    expect(monthly('2025-06-01T00:00:00.000Z')).toEqual([]);
    // Day by day up to an end inside the range.
    expect(retainerPeriodStarts(schedule('2026-01-01T00:00:00.000Z', 2, 'Day', '2026-01-08T00:00:00.000Z'), '2026-01-01', '2026-02-01', LIMIT)).toEqual(refPeriods('2026-01-01', 2, 'Day', '2026-01-01', '2026-02-01', '2026-01-08'));
  });

  it('ranges that hold no start, one, or several; `to` excluded, `from` included', () => {
    const monthly = (from: string, to: string) => starts(retainerPeriodStarts(schedule('2026-01-15T10:00:00.000Z', 1, 'Month'), from, to, LIMIT));
    expect(monthly('2026-01-16', '2026-02-15')).toEqual([]);
    expect(monthly('2025-01-01', '2026-01-15')).toEqual([]); // before the first period
    expect(monthly('2026-03-01', '2026-03-01')).toEqual([]); // an empty range
    expect(monthly('2026-03-20', '2026-03-01')).toEqual([]); // a reversed one
    expect(monthly('2026-02-15', '2026-02-16')).toEqual(['2026-02-15']);
    expect(monthly('2026-01-01', '2026-07-01')).toEqual(['2026-01-15', '2026-02-15', '2026-03-15', '2026-04-15', '2026-05-15', '2026-06-15']);
  });

  it('start on the UTC date of start_date, however late in the UTC day or whatever its offset', () => {
    const late = retainerPeriodStarts(schedule('2026-03-10T23:59:59.999Z', 1, 'Week'), '2026-03-01', '2026-03-25', LIMIT);
    expect(starts(late)).toEqual(['2026-03-10', '2026-03-17', '2026-03-24']);
    // 20:00 at UTC−5 is 01:00 the next UTC day; 01:00 at UTC+3 is 22:00 the day before.
    expect(starts(retainerPeriodStarts(schedule('2026-03-10T20:00:00-05:00', 1, 'Week'), '2026-03-01', '2026-03-25', LIMIT))).toEqual(['2026-03-11', '2026-03-18']);
    expect(starts(retainerPeriodStarts(schedule('2026-03-10T01:00:00+03:00', 1, 'Week'), '2026-03-01', '2026-03-25', LIMIT))).toEqual(['2026-03-09', '2026-03-16', '2026-03-23']);
    // A 31st in UTC that is the 1st locally still clamps as the 31st.
    expect(starts(retainerPeriodStarts(schedule('2026-02-01T01:00:00+02:00', 1, 'Month'), '2026-01-01', '2026-05-01', LIMIT))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
  });

  it('a first date far in the past is found directly, not period by period', () => {
    const since1900 = schedule('1900-01-01T00:00:00.000Z', 1, 'Day');
    expect(retainerPeriodStarts(since1900, '2026-01-01', '2026-01-04', LIMIT)).toEqual(refPeriods('1900-01-01', 1, 'Day', '2026-01-01', '2026-01-04', null));
    // About 3 million days from 1900 to 9999: a thousand walks would take minutes, a thousand jumps milliseconds.
    const began = performance.now();
    for (let i = 0; i < 1000; i++) {
      expect(starts(retainerPeriodStarts(since1900, '9999-12-30', '9999-12-31', LIMIT))).toEqual(['9999-12-30']);
      expect(starts(retainerPeriodStarts(schedule('1900-01-31T00:00:00.000Z', 1, 'Month'), '9999-02-01', '9999-03-01', LIMIT))).toEqual(['9999-02-28']);
    }
    expect(performance.now() - began).toBeLessThan(2000);
  });

  it('returns at most limit + 1 periods, the first ones, so that the caller can refuse', () => {
    const daily = schedule('2020-01-01T00:00:00.000Z', 1, 'Day');
    const all = refPeriods('2020-01-01', 1, 'Day', '2026-01-01', '2027-01-01', null);
    expect(all).toHaveLength(365);
    expect(retainerPeriodStarts(daily, '2026-01-01', '2027-01-01', 100)).toEqual(all.slice(0, 101));
    expect(retainerPeriodStarts(daily, '2026-01-01', '2027-01-01', 0)).toEqual(all.slice(0, 1));
    // Exactly at the limit: all of them, and no more.
    expect(retainerPeriodStarts(daily, '2026-01-01', '2026-04-11', 100)).toEqual(all.slice(0, 100));
    expect(retainerPeriodStarts(daily, '2026-01-01', '2027-01-01', 1000)).toEqual(all);
  });

  it('refuse, as bugs, what validation keeps out: a count below 1 or fractional, a negative or fractional limit, a start that is no timestamp', () => {
    for (const count of [0, -1, 1.5]) expect(() => retainerPeriodStarts(schedule('2026-01-01T00:00:00Z', count, 'Day'), '2026-01-01', '2026-02-01', 10), String(count)).toThrow('Not an interval count');
    for (const limit of [-1, 0.5]) expect(() => retainerPeriodStarts(schedule('2026-01-01T00:00:00Z', 1, 'Day'), '2026-01-01', '2026-02-01', limit), String(limit)).toThrow('Not a limit');
    expect(() => retainerPeriodStarts(schedule('soon', 1, 'Day'), '2026-01-01', '2026-02-01', 10)).toThrow('Not a timestamp');
  });
});

describe('fees in minor units', () => {
  it('are rounded once, half to even, to the currency\'s minor unit', () => {
    // USD: 0.005 → 0.00, 0.015 → 0.02, 0.025 → 0.02, 0.0251 → 0.03.
    expect([0.005, 0.015, 0.025, 0.0251, 0, 1500, 1234.5678].map((v) => feeMinor(v, 'USD'))).toEqual([0n, 2n, 2n, 3n, 0n, 150_000n, 123_457n]);
    // JPY has no minor unit: 0.5 → 0, 1.5 → 2, 2.5 → 2, 2.5001 → 3.
    expect([0.5, 1.5, 2.5, 2.5001, 1_000_000_000].map((v) => feeMinor(v, 'JPY'))).toEqual([0n, 2n, 2n, 3n, 1_000_000_000n]);
    // KWD has 3: 0.0005 → 0.000, 0.0015 → 0.002, 12.3445 → 12.344, 12.3455 → 12.346.
    expect([0.0005, 0.0015, 12.3445, 12.3455, 7.1].map((v) => feeMinor(v, 'KWD'))).toEqual([0n, 2n, 12_344n, 12_346n, 7_100n]);
    for (const currency of ['USD', 'JPY', 'KWD']) {
      for (const value of [0.0001, 0.4999, 0.5, 99.995, 100.005, 3333.3333, 999_999_999.9999, 1_000_000_000]) {
        expect(feeMinor(value, currency), `${value} ${currency}`).toBe(refFee(value, currency));
      }
    }
  });
});

describe('credit blocks', () => {
  it('buy the fewest blocks that leave the credit above zero', () => {
    // A first invoice with no credit and no time buys one block.
    expect(creditBlocks(0n, 0n, 50_000n, true)).toBe(1n);
    // Time worth 1.5 blocks buys 2 (0.5 block left).
    expect(creditBlocks(0n, 75_000n, 50_000n, true)).toBe(2n);
    // A balance left at exactly zero buys one more: 2 blocks of time from nothing buy 3.
    expect(creditBlocks(0n, 100_000n, 50_000n, true)).toBe(3n);
    expect(creditBlocks(30_000n, 30_000n, 50_000n, true)).toBe(1n);
    // Credit still above zero after the time: none.
    expect(creditBlocks(30_000n, 29_999n, 50_000n, true)).toBe(0n);
    // Owed from before (a balance below zero) is made up too.
    expect(creditBlocks(-20_000n, 0n, 50_000n, true)).toBe(1n);
    for (const credit of [-7n, -3n, 0n, 1n, 5n, 12n]) {
      for (const used of [0n, 1n, 4n, 5n, 6n, 17n, 30n]) {
        for (const block of [1n, 3n, 5n]) expect(creditBlocks(credit, used, block, true), `${credit} ${used} ${block}`).toBe(refBlocks(credit, used, block));
      }
    }
    // Past what a double holds exactly.
    expect(creditBlocks(0n, 2n ** 60n, 1n, true)).toBe(2n ** 60n + 1n);
  });

  it('buy none when the invoice does not charge the project\'s fees, even when the credit falls below zero', () => {
    expect(creditBlocks(0n, 0n, 50_000n, false)).toBe(0n);
    expect(creditBlocks(10_000n, 75_000n, 50_000n, false)).toBe(0n);
    expect(creditBlocks(-20_000n, 5_000n, 50_000n, false)).toBe(0n);
  });

  it('refuse a block of zero or less as a bug (the caller\'s unpriced_project)', () => {
    expect(() => creditBlocks(0n, 0n, 0n, true)).toThrow('Not a credit block');
    expect(() => creditBlocks(0n, 0n, -1n, false)).toThrow('Not a credit block');
  });
});
