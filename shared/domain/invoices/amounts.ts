/**
 * An invoice's lines and amounts (contract, "Invoices", "Billing types"; decisions 0023, 0029),
 * pure: no I/O. Money stays in integers (shared/core/money.ts): a time line's entries share one
 * rate, so its amount is `minutes × rate / 60` in the currency's minor unit, rounded once, half to
 * even (zero for covered time); a fee line's amount is fixed when it is made (fees.ts); the
 * subtotal is the lines' exact sum, the discount rounded once, half to even, from it, and each
 * tax once, half up, from the taxable lines' share.
 */
import { divideHalfEven, divideHalfUp, formatMinor, minorOfAmount, minorOfRateMinutes, minorUnitDigits, rateMinutes, rateUnits } from '../../core/money.ts';
import { LIMITS } from '../../core/field-limits.ts';
import type { CreditLine, FeeLine, InvoiceLine, ItemLine, TimeLine } from '../../model/invoice-fields.ts';

/** 10^4: a money value's or a quantity's integer units (rateUnits) per unit. */
const RATE_SCALE = 10n ** BigInt(LIMITS.moneyDecimals);
/** 10^3: a percentage's integer units per percent (3 decimal places). */
const PERCENT_SCALE = 1_000n;
/** A rate's units per percentage unit: rates hold 4 decimals (1/10,000), percentages 3. */
const RATE_UNITS_PER_PERCENT_UNIT = 10n;
/** A percentage's units in a whole (100 %). */
const PERCENT_UNITS_PER_WHOLE = 100n * PERCENT_SCALE;

/**
 * A percentage as JSON carries it (0 to 100, at most 3 decimals, as validated) in 1/1,000 units,
 * from its shortest decimal spelling (read as a rate is: rateUnits), never multiplied as a double.
 */
export function percentUnits(rate: number): bigint {
  const units = rateUnits(rate);
  // Validated on the way in (model/fields.ts, percent): anything else here is a bug.
  if (units % RATE_UNITS_PER_PERCENT_UNIT !== 0n || units > PERCENT_UNITS_PER_WHOLE * RATE_UNITS_PER_PERCENT_UNIT) throw new Error(`Not a percentage: ${rate}`);
  return units / RATE_UNITS_PER_PERCENT_UNIT;
}

/** What a line needs of a time entry: billable, on the invoice; priced unless its project covers it. */
export interface InvoiceableEntry {
  id: string;
  project_id: string | null;
  billable_rate: number | null;
  duration_minutes: number;
  /** Time a ProjectBased, Retainer or CreditBased project covers (contract, "Billing types"): on a line of amount zero (a ProjectBased or Retainer one's rate may be null). */
  covered?: boolean;
}

export type { InvoiceLine, TimeLine, FeeLine, CreditLine, ItemLine };

/** A tax as a create or PATCH gives it (at most two: TPS and TVQ). */
export interface TaxRate {
  name: string;
  rate: number;
}

/** A tax as the invoice states it: on the taxable amount, rounded half up. */
export interface StatedTax extends TaxRate {
  taxable_amount: string;
  amount: string;
}

export interface InvoiceAmounts {
  subtotal: string;
  discount_amount: string;
  /** The sum of the taxes' rates (0 to 200). */
  tax_rate: number;
  taxes: StatedTax[];
  tax_amount: string;
  total: string;
}

/** `minutes × rate / 60` in the currency's minor unit, rounded once, half to even. */
/** What a balance step needs of an invoice: its total and amount paid in minor units, its status and currency. */
export interface Balance {
  total: bigint;
  paid: bigint;
  status: string;
  currency: string;
}

/**
 * An invoice's fields after a payment of `delta` minor units (negative: one deleted), `paidAts`
 * its payments' paid_at after it: amount_paid and amount_due, and the status they make. Nothing
 * due makes an open invoice `paid` at the latest paid_at; a balance again reopens a paid one.
 */
export function balanceAfter(balance: Balance, delta: bigint, paidAts: readonly string[]): Record<string, unknown> {
  const paid = balance.paid + delta;
  const due = balance.total - paid;
  const fields: Record<string, unknown> = { amount_paid: formatMinor(paid, balance.currency), amount_due: formatMinor(due, balance.currency) };
  if (due === 0n && balance.status === 'open') Object.assign(fields, { status: 'paid', paid_at: paidAts.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)) });
  if (due > 0n && balance.status === 'paid') Object.assign(fields, { status: 'open', paid_at: null });
  return fields;
}

export const lineAmountMinor = (minutes: number, rate: number, currency: string): bigint => minorOfRateMinutes(rateMinutes(minutes, rate), currency);


/** Within a project, lines in the contract's order of kinds: fixed_price, retainer, credit, time. */
const KIND_ORDER: Record<Exclude<InvoiceLine['kind'], 'item'>, number> = { fixed_price: 0, retainer: 1, credit: 2, time: 3 };

/**
 * Lines in the contract's order: project_id (null first); within a project the fixed price, the
 * retainer periods by start, the credit, then time by rate (null first).
 */
function compareLines(a: InvoiceLine, b: InvoiceLine): number {
  // Items last, in their given order (the sort is stable).
  if (a.kind === 'item' || b.kind === 'item') return Number(a.kind === 'item') - Number(b.kind === 'item');
  if (a.project_id !== b.project_id) {
    if (a.project_id === null) return -1;
    if (b.project_id === null) return 1;
    return a.project_id < b.project_id ? -1 : 1;
  }
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  if (a.kind === 'retainer' && b.kind === 'retainer') return a.period_start < b.period_start ? -1 : 1;
  if (a.kind === 'time' && b.kind === 'time') return (a.billable_rate ?? -1) - (b.billable_rate ?? -1);
  return 0;
}

const sameLine = (line: InvoiceLine, entry: InvoiceableEntry): line is TimeLine =>
  line.kind === 'time' && line.project_id === entry.project_id && line.billable_rate === entry.billable_rate;

/** A line with `minutes` and `count` added (negative: taken away), its amount recomputed from its minutes (zero when covered). */
function changed(line: TimeLine, minutes: number, count: number, covered: boolean, currency: string): TimeLine {
  const total = line.minutes + minutes;
  const rate = line.billable_rate;
  // Selected priced unless covered (create.ts): anything else here is a bug.
  if (!covered && rate === null) throw new Error(`Time entries without a rate on a line of time and materials (${String(line.project_id)})`);
  const minor = covered ? 0n : lineAmountMinor(total, rate!, currency);
  return { ...line, minutes: total, time_entry_count: line.time_entry_count + count, amount: formatMinor(minor, currency) };
}

/**
 * New lines: each entry joins the time line of its (project_id, billable_rate), a new one
 * (described by `describe`) when there is none. The input is left as it is.
 */
export function addToLines<L extends InvoiceLine>(lines: readonly L[], entries: readonly InvoiceableEntry[], describe: (projectId: string | null) => string, currency: string): (L | TimeLine)[] {
  const out: (L | TimeLine)[] = [...lines];
  for (const entry of entries) {
    const at = out.findIndex((line) => sameLine(line, entry));
    const line: TimeLine =
      at >= 0
        ? (out[at] as TimeLine)
        : { kind: 'time', project_id: entry.project_id, description: describe(entry.project_id), billable_rate: entry.billable_rate, minutes: 0, time_entry_count: 0, amount: '', taxable: true };
    const next = changed(line, entry.duration_minutes, 1, entry.covered === true, currency);
    if (at >= 0) out[at] = next;
    else out.push(next);
  }
  return out.sort(compareLines);
}

/** The inverse of addToLines: each entry leaves its line; a line left with no entry goes. Throws on an entry no line holds (a bug). */
export function removeFromLines<L extends InvoiceLine>(lines: readonly L[], entries: readonly InvoiceableEntry[], currency: string): L[] {
  const out = [...lines];
  for (const entry of entries) {
    const at = out.findIndex((line) => sameLine(line, entry));
    const line = out[at] as TimeLine | undefined;
    if (!line || line.minutes < entry.duration_minutes) throw new Error(`No line of the invoice holds time entry ${entry.id}`);
    const next = changed(line, -entry.duration_minutes, -1, entry.covered === true, currency);
    if (next.time_entry_count === 0) out.splice(at, 1);
    else out[at] = next as L;
  }
  return out;
}

/** An item as a create or PATCH gives it. */
export interface GivenItem {
  description: string;
  quantity: number;
  unit_price: number;
  project_id?: string | undefined;
  taxable: boolean;
}

/** An item's line: `quantity × unit_price` (4 decimals each, exact as integers) rounded once, half to even, to the currency's minor unit. */
export function itemLineOf(item: GivenItem, currency: string): ItemLine {
  const minor = divideHalfEven(rateUnits(item.quantity) * rateUnits(item.unit_price) * 10n ** BigInt(minorUnitDigits(currency)), RATE_SCALE * RATE_SCALE);
  return { kind: 'item', project_id: item.project_id ?? null, description: item.description, quantity: item.quantity, unit_price: item.unit_price, amount: formatMinor(minor, currency), taxable: item.taxable };
}

/** The lines with their items replaced by `items` (a PATCH), after every other line. */
export const withItems = (lines: readonly InvoiceLine[], items: readonly ItemLine[]): InvoiceLine[] => [...lines.filter((line) => line.kind !== 'item'), ...items];

/** The same fee: a fixed price is known by its project, a retainer period by its project and start. */
export const sameFee = (a: FeeLine, b: FeeLine) =>
  a.kind === b.kind && a.project_id === b.project_id && (a.kind !== 'retainer' || a.period_start === (b as typeof a).period_start);

/** New lines with `fees` (or credit lines) among them, in the contract's order. */
export const addFees = (lines: readonly InvoiceLine[], fees: readonly (FeeLine | CreditLine)[]): InvoiceLine[] => [...lines, ...fees].sort(compareLines);

/** The lines without `fees` and the credit lines of `credits`' projects (a draft's delete releasing them). */
export const removeFees = (lines: readonly InvoiceLine[], fees: readonly FeeLine[], credits: readonly CreditLine[]): InvoiceLine[] =>
  lines.filter((line) => {
    if (line.kind === 'credit') return !credits.some((credit) => credit.project_id === line.project_id);
    return line.kind === 'time' || line.kind === 'item' || !fees.some((fee) => sameFee(fee, line));
  });

/** A sum of percentages' units as the JSON number it is (at most 3 decimals, spelled exactly). */
const percentOfUnits = (units: bigint): number => Number(`${units / PERCENT_SCALE}.${String(units % PERCENT_SCALE).padStart(3, '0')}`);

/**
 * The invoice's amounts (contract, "Taxes"): the subtotal (its lines' amounts); the discount
 * (`subtotal × discount_rate / 100`, half to even); each tax on the taxable amount (T, the taxable
 * lines' sum, less the discount's share of it, `T × discount_rate / 100` half to even), `taxable
 * × rate / 100` rounded half up, neither taxed again; the total.
 */
export function invoiceAmounts(lines: readonly InvoiceLine[], discountRate: number, taxes: readonly TaxRate[], currency: string): InvoiceAmounts {
  const discountOf = (minor: bigint) => divideHalfEven(minor * percentUnits(discountRate), PERCENT_UNITS_PER_WHOLE);
  const subtotal = lines.reduce((sum, line) => sum + minorOfAmount(line.amount), 0n);
  const taxableLines = lines.reduce((sum, line) => sum + (line.taxable ? minorOfAmount(line.amount) : 0n), 0n);
  const discount = discountOf(subtotal);
  const taxable = taxableLines - discountOf(taxableLines);
  const format = (minor: bigint) => formatMinor(minor, currency);
  const stated = taxes.map(({ name, rate }) => ({ name, rate, minor: divideHalfUp(taxable * percentUnits(rate), PERCENT_UNITS_PER_WHOLE) }));
  const tax = stated.reduce((sum, t) => sum + t.minor, 0n);
  return {
    subtotal: format(subtotal),
    discount_amount: format(discount),
    tax_rate: percentOfUnits(taxes.reduce((sum, t) => sum + percentUnits(t.rate), 0n)),
    taxes: stated.map(({ name, rate, minor }) => ({ name, rate, taxable_amount: format(taxable), amount: format(minor) })),
    tax_amount: format(tax),
    total: format(subtotal - discount + tax),
  };
}
