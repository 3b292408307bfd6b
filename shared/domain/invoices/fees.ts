/**
 * What a project's billing type charges besides its time (contract, "Billing types"; decision
 * 0029), pure: no I/O (the fees' marks: fee-marks.ts; the credit's ledger: credit.ts). Retainer periods are computed from their anchor (the start date), never
 * one from the last, so a clamped month (31 January → 28 February) does not drag the next ones,
 * and finding the periods of a range costs what the range holds, not the project's age. Money
 * stays in integers (shared/core/money.ts), each fee rounded once, half to even.
 */
import { LIMITS } from '../../core/field-limits.ts';
import { dayNumberOf, type DayNumber } from '../../core/calendar.ts';
import { divideHalfEven, formatMinor, minorOfAmount, minorOfRateMinutes, minorUnitDigits, rateMinutes, rateUnits } from '../../core/money.ts';
import type { Project } from '../../model/objects.ts';
import type { CreditLine, FeeLine, InvoiceLine, TimeLine } from '../../model/invoice-fields.ts';

const DAY_MS = 86_400_000;
/** 10^4: a fee's integer units (rateUnits) per currency unit. */
const FEE_SCALE = 10n ** BigInt(LIMITS.moneyDecimals);

export type IntervalUnit = NonNullable<Project['interval_unit']>;

/** What a Retainer project's periods follow from (its fields, checked present: `unpriced_project`). */
export interface RetainerSchedule {
  /** ISO timestamp: the first period starts on its UTC date. */
  start_date: string;
  /** ISO timestamp or null: no period starts on or after its UTC date. */
  end_date: string | null;
  interval_count: number;
  interval_unit: IntervalUnit;
}

/** One period, as its `retainer` line states it: dates `YYYY-MM-DD`, the end exclusive (the next period's start). */
export interface RetainerPeriod {
  period_start: string;
  period_end: string;
}

/** The UTC date of an ISO timestamp, as a day number. */
function utcDayOf(timestamp: string): DayNumber {
  const ms = Date.parse(timestamp);
  // Stored timestamps are validated (model/fields.ts): anything else here is a bug.
  if (Number.isNaN(ms)) throw new Error(`Not a timestamp: ${timestamp}`);
  return Math.floor(ms / DAY_MS);
}

/** A day number as `YYYY-MM-DD` (the year padded, not signed: toISOString spells years past 9999 `+010000`). */
function dateText(day: DayNumber): string {
  const d = new Date(day * DAY_MS);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/**
 * Period k's start as a day number, and the first k whose start is on or after `from`: each
 * computed directly from the anchor, so a project started in 1900 costs what one started today does.
 */
interface Steps {
  startOf(k: number): DayNumber;
  firstAtOrAfter(from: DayNumber): number;
}

function stepsOf(anchor: DayNumber, count: number, unit: IntervalUnit): Steps {
  if (unit === 'Day' || unit === 'Week') {
    const days = count * (unit === 'Week' ? 7 : 1);
    return { startOf: (k) => anchor + k * days, firstAtOrAfter: (from) => Math.max(0, Math.ceil((from - anchor) / days)) };
  }
  const months = count * (unit === 'Year' ? 12 : 1);
  const first = new Date(anchor * DAY_MS);
  const year = first.getUTCFullYear();
  const month = first.getUTCMonth();
  const day = first.getUTCDate();
  const startOf = (k: number): DayNumber => {
    // Date.UTC carries months past December into the year; day 0 of the month after is this month's last.
    const lastDay = new Date(Date.UTC(year, month + k * months + 1, 0)).getUTCDate();
    return Date.UTC(year, month + k * months, Math.min(day, lastDay)) / DAY_MS;
  };
  return {
    startOf,
    firstAtOrAfter: (from) => {
      const f = new Date(from * DAY_MS);
      const monthsToFrom = (f.getUTCFullYear() - year) * 12 + (f.getUTCMonth() - month);
      // Period k starts in the month k × months after the anchor's: this k starts in from's month
      // or before it, the next one in a later month, so at most one step is left.
      const k = Math.max(0, Math.floor(monthsToFrom / months));
      return startOf(k) >= from ? k : k + 1;
    },
  };
}

/**
 * The Retainer periods an invoice of the range [from, to) (dates `YYYY-MM-DD`) charges, whichever
 * are already charged (the caller's marks): each period whose start date d has `from ≤ d < to`
 * and is before `end_date`'s UTC date when one is set, whole (a period cut by end_date ends at the
 * next one's start), in order. At most `limit + 1`, so that a caller can refuse a range past its
 * limit without this growing with it.
 */
export function retainerPeriodStarts(schedule: RetainerSchedule, from: string, to: string, limit: number): RetainerPeriod[] {
  const { interval_count: count, interval_unit: unit } = schedule;
  // Validated on the way in (positiveInteger; the caller's limit): anything else here is a bug.
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`Not an interval count: ${count}`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`Not a limit: ${limit}`);
  const steps = stepsOf(utcDayOf(schedule.start_date), count, unit);
  const fromDay = dayNumberOf(from);
  const endDay = schedule.end_date === null ? Infinity : utcDayOf(schedule.end_date);
  const stop = Math.min(dayNumberOf(to), endDay);
  const periods: RetainerPeriod[] = [];
  let k = steps.firstAtOrAfter(fromDay);
  let start = steps.startOf(k);
  while (start < stop && periods.length <= limit) {
    const next = steps.startOf(k + 1);
    periods.push({ period_start: dateText(start), period_end: dateText(next) });
    k += 1;
    start = next;
  }
  return periods;
}

/**
 * A fee (a project's `fixed_price` or `amount`: a JSON number of at most 4 decimals, as validated)
 * in the currency's minor units, rounded once, half to even, from its decimal spelling.
 */
export const feeMinor = (value: number, currency: string): bigint => divideHalfEven(rateUnits(value) * 10n ** BigInt(minorUnitDigits(currency)), FEE_SCALE);

/**
 * The blocks a CreditBased project's invoice buys: when it charges the project's fees, the fewest
 * n ≥ 0 that leave `credit + n × block − used` above zero (no credit and no time buy one block; a
 * balance of exactly zero buys one more); otherwise none, and the credit may fall to zero or below.
 * A bigint: credit used may be worth more blocks than a double holds exactly.
 */
export function creditBlocks(creditBeforeMinor: bigint, usedMinor: bigint, blockMinor: bigint, chargesFees: boolean): bigint {
  // A block of zero is `unpriced_project`, refused before: here it is a bug (and would never leave credit).
  if (blockMinor <= 0n) throw new Error(`Not a credit block: ${blockMinor}`);
  if (!chargesFees) return 0n;
  const after = creditBeforeMinor - usedMinor;
  // after + n × block > 0 ⇔ n > −after / block: the least such integer is ⌊−after / block⌋ + 1.
  return after > 0n ? 0n : -after / blockMinor + 1n;
}

/**
 * A CreditBased project on an invoice, as its create fixes it (a later change of the project
 * changes no invoice): its block (the project's `amount`, rounded once) and whether the invoice
 * charges its fees (the project was ACTIVE).
 */
export interface CreditTerms {
  project_id: string;
  description: string;
  block_amount: string;
  fees: boolean;
}

/**
 * The project's `credit` line on an invoice holding `lines` (its time lines, at amount zero), from
 * the credit before it, and the credit after; undefined when the invoice neither takes the
 * project's time nor buys a block. `credit_used` is the exact sum of the time's values, rounded once.
 */
export function creditLineOf(terms: CreditTerms, creditBeforeMinor: bigint, lines: readonly InvoiceLine[], currency: string): { line: CreditLine; after: bigint } | undefined {
  const time = lines.filter((line): line is TimeLine => line.kind === 'time' && line.project_id === terms.project_id);
  // A CreditBased project's time is priced (unpriced_time, checked at selection and lock): anything else is a bug.
  const valueOf = (line: TimeLine) => {
    if (line.billable_rate === null) throw new Error(`Credit used without a rate (${terms.project_id})`);
    return rateMinutes(line.minutes, line.billable_rate);
  };
  const used = minorOfRateMinutes(time.reduce((sum, line) => sum + valueOf(line), 0n), currency);
  const block = minorOfAmount(terms.block_amount);
  const blocks = creditBlocks(creditBeforeMinor, used, block, terms.fees);
  if (time.length === 0 && blocks === 0n) return undefined;
  const after = creditBeforeMinor + blocks * block - used;
  const format = (minor: bigint) => formatMinor(minor, currency);
  return {
    line: {
      kind: 'credit', project_id: terms.project_id, description: terms.description, blocks: Number(blocks), block_amount: terms.block_amount,
      credit_used: format(used), credit_balance: format(after), amount: format(blocks * block), taxable: true,
    },
    after,
  };
}

/** What a credit line's release gives back to its project's credit: its time's value, less the blocks it bought. */
export const creditReturned = (line: CreditLine): bigint => minorOfAmount(line.credit_used) - minorOfAmount(line.amount);

/** What a create reads of a project in its scope. */
export type ScopedProject = Pick<Project, 'id' | 'name' | 'status' | 'billing_type' | 'fixed_price' | 'amount' | 'interval_count' | 'interval_unit' | 'start_date' | 'end_date'>;

/** A project whose fees are what it charges: its billable time is covered, on time lines of amount zero. */
export const covers = (p: Pick<ScopedProject, 'billing_type'>) => p.billing_type === 'ProjectBased' || p.billing_type === 'Retainer' || p.billing_type === 'CreditBased';

/** An invoice created now may charge its fees: ACTIVE, or COMPLETED for a fixed price. */
export const feesOpen = (p: ScopedProject) => covers(p) && (p.status === 'ACTIVE' || (p.status === 'COMPLETED' && p.billing_type === 'ProjectBased'));

/** A CreditBased project's block: its amount, when above 0 once rounded to the currency's minor unit. */
const blockMinor = (p: ScopedProject, currency: string) => (p.amount === null || p.amount === undefined ? 0n : feeMinor(p.amount, currency));

/**
 * What a project lacks of what its type needs (409 unpriced_project), or undefined: one that may be
 * charged fees, or a CreditBased one whose time the invoice takes (`takesTime`).
 */
export function lacking(p: ScopedProject, takesTime: boolean, currency: string): string[] | undefined {
  if (p.billing_type === 'CreditBased') return (feesOpen(p) || takesTime) && blockMinor(p, currency) <= 0n ? ['amount (above 0 once rounded)'] : undefined;
  if (!feesOpen(p)) return undefined;
  const needs = p.billing_type === 'ProjectBased' ? (['fixed_price'] as const) : (['amount', 'interval_count', 'interval_unit'] as const);
  const missing = needs.filter((field) => p[field] === null || p[field] === undefined);
  return missing.length > 0 ? missing : undefined;
}

/** A CreditBased project's terms on an invoice created now (its lacking fields refused before). */
export const creditTermsOf = (p: ScopedProject, currency: string): CreditTerms => ({
  project_id: p.id,
  description: p.name,
  block_amount: formatMinor(blockMinor(p, currency), currency),
  fees: feesOpen(p),
});

/**
 * The fee lines the project's configuration charges over the dates `from`..`to` (exclusive), charged
 * elsewhere or not: its fixed price, or each retainer period starting in the range (at most one
 * per day of it). A fee is the project's field rounded once, half to even, to the currency's minor unit.
 */
export function feesDue(p: ScopedProject, range: { from: string; to: string }, currency: string): FeeLine[] {
  if (!feesOpen(p) || p.billing_type === 'CreditBased' || lacking(p, false, currency)) return [];
  const line = { project_id: p.id, description: p.name, taxable: true } as const;
  if (p.billing_type === 'ProjectBased') return [{ kind: 'fixed_price', ...line, amount: formatMinor(feeMinor(p.fixed_price!, currency), currency) }];
  const amount = formatMinor(feeMinor(p.amount!, currency), currency);
  const schedule = { start_date: p.start_date!, end_date: p.end_date, interval_count: p.interval_count!, interval_unit: p.interval_unit! };
  const days = dayNumberOf(range.to) - dayNumberOf(range.from);
  return retainerPeriodStarts(schedule, range.from, range.to, days).map((period) => ({ kind: 'retainer', ...line, ...period, amount }));
}
