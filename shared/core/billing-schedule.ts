/**
 * Scheduled billing runs (contract, "Billing runs": scheduled runs; decision 0033): a workspace
 * with `auto_billing` on has runs fall due at the start of a local day of its `billing_timezone`.
 * Weekly each Monday over the week before, BiMonthly on the 1st and the 16th over the half month
 * before, Monthly on the 1st over the month before, Retainer each day over the day before;
 * ProjectBased and CreditBased are never scheduled. A sweep at an instant makes the runs due on
 * the local day that holds it, so a day whose midnight a time change skips (the day starts at
 * 01:00) is still swept. Dates are `YYYY-MM-DD` of the zone; `to` is exclusive and is the day due.
 */
import { dateOfDayNumber, dayNumberOf, offsetAt, type DayNumber } from './calendar.ts';

const DAY_MS = 86_400_000;

export type ScheduledBillingType = 'Weekly' | 'BiMonthly' | 'Monthly' | 'Retainer';

/** The billing types a schedule makes runs of, in the order `dueRuns` answers them. */
export const SCHEDULED_BILLING_TYPES: readonly ScheduledBillingType[] = Object.freeze(['Weekly', 'BiMonthly', 'Monthly', 'Retainer'] as const);

export interface DueRun {
  billing_type: ScheduledBillingType;
  /** The first date of the run's span (inclusive). */
  from: string;
  /** The date after the span (exclusive): the day the run falls due. */
  to: string;
}

/** The day number of the `dayOfMonth` of the month `monthsLater` after the one of `day` (negative: before). */
function dayOfMonthFrom(day: DayNumber, monthsLater: number, dayOfMonth: number): DayNumber {
  const d = new Date(day * DAY_MS);
  // Date.UTC carries a month before January into December of the year before.
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + monthsLater, dayOfMonth) / DAY_MS;
}

/** Each type's rule: the first date of the run due on `day`, or undefined when none is due that day. */
const FIRST_DAY_OF_RUN_DUE: Record<ScheduledBillingType, (day: DayNumber) => DayNumber | undefined> = {
  Weekly: (day) => (new Date(day * DAY_MS).getUTCDay() === 1 ? day - 7 : undefined),
  BiMonthly: (day) => {
    const date = new Date(day * DAY_MS).getUTCDate();
    if (date === 16) return dayOfMonthFrom(day, 0, 1);
    return date === 1 ? dayOfMonthFrom(day, -1, 16) : undefined;
  },
  Monthly: (day) => (new Date(day * DAY_MS).getUTCDate() === 1 ? dayOfMonthFrom(day, -1, 1) : undefined),
  Retainer: (day) => day - 1,
};

/** The local date (YYYY-MM-DD) in `timeZone` of instant `at`. */
export function localDateOf(at: Date, timeZone: string): string {
  const instant = at.getTime();
  // An invalid Date would otherwise surface as Intl's or toISOString's less telling RangeError.
  if (!Number.isFinite(instant)) throw new RangeError('Not an instant: an invalid Date');
  // The wall clock's instant read as UTC: its UTC date is the local date. The offset comes from
  // Intl (calendar.ts), so every zone's rules and history hold without a table of our own.
  return dateOfDayNumber(Math.floor((instant + offsetAt(timeZone, instant)) / DAY_MS));
}

/** The runs due on the local day of `at` in `timeZone`, in SCHEDULED_BILLING_TYPES order. */
export function dueRuns(at: Date, timeZone: string): { date: string; due: DueRun[] } {
  const date = localDateOf(at, timeZone);
  const day = dayNumberOf(date);
  const due: DueRun[] = [];
  for (const billing_type of SCHEDULED_BILLING_TYPES) {
    const from = FIRST_DAY_OF_RUN_DUE[billing_type](day);
    if (from !== undefined) due.push({ billing_type, from: dateOfDayNumber(from), to: date });
  }
  return { date, due };
}
