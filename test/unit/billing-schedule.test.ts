/** Scheduled billing runs: which runs fall due on a workspace's local day (shared/core/billing-schedule.ts). */
import { describe, expect, it } from 'vitest';
import { SCHEDULED_BILLING_TYPES, dueRuns, localDateOf, type DueRun, type ScheduledBillingType } from '../../shared/core/billing-schedule.ts';
import { dayNumberOf, startOfDay } from '../../shared/core/calendar.ts';

/** A project's six billing types (the contract; resources.ts `project.billing_type`). */
const BILLING_TYPES = ['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased'] as const;

const at = (iso: string) => new Date(iso);
const run = (billing_type: ScheduledBillingType, from: string, to: string): DueRun => ({ billing_type, from, to });

/** An oracle apart from the module: Intl's own rendering of the wall clock, `YYYY-MM-DD, HH:MM:SS`. */
const wallClocks = new Map<string, Intl.DateTimeFormat>();
function wallClock(timeZone: string, instant: Date): string {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    wallClocks.set(timeZone, format);
  }
  return format.format(instant);
}

/** The runs due on a date, swept at noon UTC (a UTC workspace). */
const dueOn = (date: string) => dueRuns(at(`${date}T12:00:00Z`), 'UTC');

describe('billing schedule', () => {
  it('schedules the four periodic types, in order, and never ProjectBased or CreditBased', () => {
    expect(SCHEDULED_BILLING_TYPES).toEqual(['Weekly', 'BiMonthly', 'Monthly', 'Retainer']);
    // Every scheduled type is a project billing type; the two left out are exactly the unscheduled ones.
    expect(SCHEDULED_BILLING_TYPES.every((type) => (BILLING_TYPES as readonly string[]).includes(type))).toBe(true);
    expect(BILLING_TYPES.filter((type) => !(SCHEDULED_BILLING_TYPES as readonly string[]).includes(type)).sort()).toEqual(['CreditBased', 'ProjectBased']);
    expect(Object.isFrozen(SCHEDULED_BILLING_TYPES)).toBe(true);
  });

  it('makes every run on a Monday that is the 1st (2026-06-01), each over its own span', () => {
    expect(dueOn('2026-06-01')).toEqual({
      date: '2026-06-01',
      due: [
        run('Weekly', '2026-05-25', '2026-06-01'),
        run('BiMonthly', '2026-05-16', '2026-06-01'),
        run('Monthly', '2026-05-01', '2026-06-01'),
        run('Retainer', '2026-05-31', '2026-06-01'),
      ],
    });
  });

  it('makes BiMonthly from the 1st and Retainer on the 16th (a Tuesday), nothing else', () => {
    expect(dueOn('2026-06-16')).toEqual({ date: '2026-06-16', due: [run('BiMonthly', '2026-06-01', '2026-06-16'), run('Retainer', '2026-06-15', '2026-06-16')] });
  });

  it('adds Weekly on a Monday that is the 16th, and makes Weekly alone with Retainer on another Monday', () => {
    expect(dueOn('2026-03-16').due).toEqual([
      run('Weekly', '2026-03-09', '2026-03-16'),
      run('BiMonthly', '2026-03-01', '2026-03-16'),
      run('Retainer', '2026-03-15', '2026-03-16'),
    ]);
    expect(dueOn('2026-06-08').due).toEqual([run('Weekly', '2026-06-01', '2026-06-08'), run('Retainer', '2026-06-07', '2026-06-08')]);
  });

  it('makes Retainer only on an ordinary Wednesday', () => {
    expect(dueOn('2026-06-10')).toEqual({ date: '2026-06-10', due: [run('Retainer', '2026-06-09', '2026-06-10')] });
  });

  it('reaches into the year before on January 1st (a Thursday)', () => {
    expect(dueOn('2026-01-01').due).toEqual([
      run('BiMonthly', '2025-12-16', '2026-01-01'),
      run('Monthly', '2025-12-01', '2026-01-01'),
      run('Retainer', '2025-12-31', '2026-01-01'),
    ]);
  });

  it('spans February as it is, leap day included', () => {
    expect(dueOn('2028-03-01').due).toEqual([
      run('BiMonthly', '2028-02-16', '2028-03-01'),
      run('Monthly', '2028-02-01', '2028-03-01'),
      run('Retainer', '2028-02-29', '2028-03-01'),
    ]);
    expect(dueOn('2027-03-01').due.find((r) => r.billing_type === 'Retainer')?.from).toBe('2027-02-28');
  });

  it('covers a year with runs that follow one another, with no gap and no overlap', () => {
    const byType = new Map<ScheduledBillingType, DueRun[]>(SCHEDULED_BILLING_TYPES.map((type) => [type, []]));
    for (let day = dayNumberOf('2026-01-01'); day < dayNumberOf('2027-01-01'); day += 1) {
      for (const due of dueRuns(new Date(day * 86_400_000 + 43_200_000), 'UTC').due) byType.get(due.billing_type)?.push(due);
    }
    // 2026 has 52 Mondays, 24 half months, 12 months, 365 days.
    expect([...byType].map(([type, runs]) => [type, runs.length])).toEqual([['Weekly', 52], ['BiMonthly', 24], ['Monthly', 12], ['Retainer', 365]]);
    for (const [type, runs] of byType) {
      for (let i = 1; i < runs.length; i += 1) expect(runs[i]?.from, `${type} #${i}`).toBe(runs[i - 1]?.to);
      for (const r of runs) expect(r.from < r.to, `${type} ${r.from}..${r.to}`).toBe(true);
    }
  });

  it('takes UTC calendar days in UTC (and Etc/UTC), to the millisecond', () => {
    for (const zone of ['UTC', 'Etc/UTC']) {
      expect(localDateOf(at('2026-05-31T23:59:59.999Z'), zone)).toBe('2026-05-31');
      expect(localDateOf(at('2026-06-01T00:00:00.000Z'), zone)).toBe('2026-06-01');
      expect(dueRuns(at('2026-05-31T23:59:59.999Z'), zone).due.map((r) => r.billing_type)).toEqual(['Retainer']);
      expect(dueRuns(at('2026-06-01T00:00:00.000Z'), zone).due.map((r) => r.billing_type)).toEqual(['Weekly', 'BiMonthly', 'Monthly', 'Retainer']);
    }
    // Before the epoch too (a floor, not a truncation).
    expect(localDateOf(at('1969-12-31T23:59:59.999Z'), 'UTC')).toBe('1969-12-31');
  });

  it('keeps the local day of a zone behind UTC (America/Toronto, UTC-4 in June)', () => {
    const zone = 'America/Toronto';
    expect(dueRuns(at('2026-06-01T03:30:00Z'), zone)).toEqual({ date: '2026-05-31', due: [run('Retainer', '2026-05-30', '2026-05-31')] });
    expect(dueRuns(at('2026-06-01T04:30:00Z'), zone)).toEqual({
      date: '2026-06-01',
      due: [
        run('Weekly', '2026-05-25', '2026-06-01'),
        run('BiMonthly', '2026-05-16', '2026-06-01'),
        run('Monthly', '2026-05-01', '2026-06-01'),
        run('Retainer', '2026-05-31', '2026-06-01'),
      ],
    });
    // The day turns at local midnight exactly, which is where calendar.ts starts it.
    expect(startOfDay(zone, dayNumberOf('2026-06-01'))).toBe(Date.parse('2026-06-01T04:00:00Z'));
    expect(localDateOf(at('2026-06-01T03:59:59.999Z'), zone)).toBe('2026-05-31');
    expect(localDateOf(at('2026-06-01T04:00:00.000Z'), zone)).toBe('2026-06-01');
  });

  it('keeps the local day of a zone ahead of UTC (Pacific/Auckland, UTC+12 in June)', () => {
    const zone = 'Pacific/Auckland';
    // Still May 31st in UTC, already Monday June 1st in Auckland.
    expect(dueRuns(at('2026-05-31T12:00:00Z'), zone).date).toBe('2026-06-01');
    expect(dueRuns(at('2026-05-31T12:00:00Z'), zone).due.map((r) => r.billing_type)).toEqual(['Weekly', 'BiMonthly', 'Monthly', 'Retainer']);
    expect(dueRuns(at('2026-05-31T11:59:59.999Z'), zone)).toEqual({ date: '2026-05-31', due: [run('Retainer', '2026-05-30', '2026-05-31')] });
    // Its daylight time (UTC+13 in January): New Year's runs come 13 hours before UTC's.
    expect(dueRuns(at('2025-12-31T11:00:00Z'), zone).due.map((r) => r.billing_type)).toEqual(['BiMonthly', 'Monthly', 'Retainer']);
    expect(localDateOf(at('2025-12-31T10:59:59Z'), zone)).toBe('2025-12-31');
  });

  it('sweeps a day whose midnight a time change skips (America/Santiago, 2026-09-06)', () => {
    const zone = 'America/Santiago';
    // Intl itself shows the gap: 23:59:59 of the 5th (UTC-4) is followed by 01:00 of the 6th (UTC-3).
    expect(wallClock(zone, at('2026-09-06T03:59:59Z'))).toBe('2026-09-05, 23:59:59');
    expect(wallClock(zone, at('2026-09-06T04:00:00Z'))).toBe('2026-09-06, 01:00:00');
    expect(wallClock(zone, at('2026-09-06T04:30:00Z'))).toBe('2026-09-06, 01:30:00');
    // Local 01:30 of that day still gets that day's runs (a Sunday: Retainer over the 5th).
    expect(dueRuns(at('2026-09-06T04:30:00Z'), zone)).toEqual({ date: '2026-09-06', due: [run('Retainer', '2026-09-05', '2026-09-06')] });
    expect(localDateOf(at('2026-09-06T03:59:59.999Z'), zone)).toBe('2026-09-05');
    expect(localDateOf(at('2026-09-06T04:00:00Z'), zone)).toBe('2026-09-06');
    expect(startOfDay(zone, dayNumberOf('2026-09-06'))).toBe(Date.parse('2026-09-06T04:00:00Z'));
    // Sweeps every 15 minutes over the three days each see every date, the skipped midnight's included.
    const seen = new Set<string>();
    for (let t = Date.parse('2026-09-05T00:00:00Z'); t < Date.parse('2026-09-08T00:00:00Z'); t += 15 * 60_000) seen.add(dueRuns(new Date(t), zone).date);
    expect([...seen]).toEqual(['2026-09-04', '2026-09-05', '2026-09-06', '2026-09-07']);
  });

  it('keeps the repeated hour of a time change on the day before (America/Santiago, 2026-04-05)', () => {
    const zone = 'America/Santiago';
    // 23:30 of the 4th happens twice (UTC-3, then UTC-4); the 5th starts at the second midnight.
    expect(wallClock(zone, at('2026-04-05T02:30:00Z'))).toBe('2026-04-04, 23:30:00');
    expect(wallClock(zone, at('2026-04-05T03:30:00Z'))).toBe('2026-04-04, 23:30:00');
    expect(localDateOf(at('2026-04-05T02:30:00Z'), zone)).toBe('2026-04-04');
    expect(localDateOf(at('2026-04-05T03:30:00Z'), zone)).toBe('2026-04-04');
    expect(dueRuns(at('2026-04-05T04:00:00Z'), zone)).toEqual({ date: '2026-04-05', due: [run('Retainer', '2026-04-04', '2026-04-05')] });
  });

  it('never throws over a year sampled hourly, and agrees with Intl on every local date', () => {
    for (const zone of ['America/Santiago', 'Pacific/Auckland', 'Asia/Kolkata']) {
      const dates = new Set<string>();
      // Collected, then asserted once: an expect per sample would cost more than the samples.
      const wrong: string[] = [];
      for (let t = Date.parse('2026-01-01T00:00:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += 3_600_000) {
        const instant = new Date(t);
        const { date, due } = dueRuns(instant, zone);
        // Retainer is due every day, last, over the day before; every run ends on the day due.
        const ok = date === wallClock(zone, instant).slice(0, 10) && due.at(-1)?.billing_type === 'Retainer' && due.every((r) => r.to === date);
        if (!ok) wrong.push(`${instant.toISOString()} ${JSON.stringify({ date, due })}`);
        dates.add(date);
      }
      expect(wrong, zone).toEqual([]);
      // Every local date is swept, a day of 23 hours included: 365 of 2026 plus the one the zone's offset adds at an end.
      expect(dates.size, zone).toBe(366);
    }
  });

  it('refuses an unknown zone and an invalid Date', () => {
    expect(() => dueRuns(at('2026-06-01T00:00:00Z'), 'Mars/Olympus_Mons')).toThrow(RangeError);
    expect(() => localDateOf(new Date(Number.NaN), 'UTC')).toThrow('Not an instant');
    expect(() => localDateOf(new Date(Number.NaN), 'Europe/Paris')).toThrow('Not an instant');
  });
});
