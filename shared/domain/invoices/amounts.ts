/**
 * An invoice's lines and amounts (contract, "Invoices"; decision 0023), pure: no I/O. Money stays
 * in integers (shared/core/money.ts): a line's entries share one rate, so its amount is
 * `minutes × rate / 60` in the currency's minor unit, rounded once, half to even; the discount and
 * the tax are each rounded once, half to even, from the exact subtotal.
 */
import { divideHalfEven, formatMinor, minorOfRateMinutes, rateMinutes, rateUnits } from '../../core/money.ts';
import type { InvoiceLine } from '../../model/invoice-fields.ts';

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

/** What a line needs of a time entry: billable, priced, on the invoice. */
export interface InvoiceableEntry {
  id: string;
  project_id: string | null;
  billable_rate: number;
  duration_minutes: number;
}

export type { InvoiceLine };

export interface InvoiceAmounts {
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  total: string;
}

/** `minutes × rate / 60` in the currency's minor unit, rounded once, half to even. */
export const lineAmountMinor = (minutes: number, rate: number, currency: string): bigint => minorOfRateMinutes(rateMinutes(minutes, rate), currency);

/** Lines in the contract's order: project_id (null first), then rate ascending. */
function compareLines(a: Pick<InvoiceLine, 'project_id' | 'billable_rate'>, b: Pick<InvoiceLine, 'project_id' | 'billable_rate'>): number {
  if (a.project_id !== b.project_id) {
    if (a.project_id === null) return -1;
    if (b.project_id === null) return 1;
    return a.project_id < b.project_id ? -1 : 1;
  }
  return a.billable_rate - b.billable_rate;
}

const sameLine = (line: InvoiceLine, entry: InvoiceableEntry) => line.project_id === entry.project_id && line.billable_rate === entry.billable_rate;

/** A line with `minutes` and `count` added (negative: taken away), its amount recomputed from its minutes. */
function changed(line: InvoiceLine, minutes: number, count: number, currency: string): InvoiceLine {
  const total = line.minutes + minutes;
  return { ...line, minutes: total, time_entry_count: line.time_entry_count + count, amount: formatMinor(lineAmountMinor(total, line.billable_rate, currency), currency) };
}

/**
 * New lines: each entry joins the line of its (project_id, billable_rate), a new one (described by
 * `describe`) when there is none. The input is left as it is.
 */
export function addToLines(lines: readonly InvoiceLine[], entries: readonly InvoiceableEntry[], describe: (projectId: string | null) => string, currency: string): InvoiceLine[] {
  const out = [...lines];
  for (const entry of entries) {
    const at = out.findIndex((line) => sameLine(line, entry));
    const line = at >= 0 ? out[at]! : { project_id: entry.project_id, description: describe(entry.project_id), billable_rate: entry.billable_rate, minutes: 0, time_entry_count: 0, amount: '' };
    const next = changed(line, entry.duration_minutes, 1, currency);
    if (at >= 0) out[at] = next;
    else out.push(next);
  }
  return out.sort(compareLines);
}

/** The inverse of addToLines: each entry leaves its line; a line left with no entry goes. Throws on an entry no line holds (a bug). */
export function removeFromLines(lines: readonly InvoiceLine[], entries: readonly InvoiceableEntry[], currency: string): InvoiceLine[] {
  const out = [...lines];
  for (const entry of entries) {
    const at = out.findIndex((line) => sameLine(line, entry));
    const line = out[at];
    if (!line || line.minutes < entry.duration_minutes) throw new Error(`No line of the invoice holds time entry ${entry.id}`);
    const next = changed(line, -entry.duration_minutes, -1, currency);
    if (next.time_entry_count === 0) out.splice(at, 1);
    else out[at] = next;
  }
  return out;
}

/**
 * The invoice's amounts: the subtotal (its lines' amounts), the discount (`subtotal × discount_rate
 * / 100`) and the tax (`(subtotal − discount) × tax_rate / 100`), each rounded once, half to even,
 * and the total.
 */
export function invoiceAmounts(lines: readonly InvoiceLine[], discountRate: number, taxRate: number, currency: string): InvoiceAmounts {
  const subtotal = lines.reduce((sum, line) => sum + lineAmountMinor(line.minutes, line.billable_rate, currency), 0n);
  const discount = divideHalfEven(subtotal * percentUnits(discountRate), PERCENT_UNITS_PER_WHOLE);
  const tax = divideHalfEven((subtotal - discount) * percentUnits(taxRate), PERCENT_UNITS_PER_WHOLE);
  const format = (minor: bigint) => formatMinor(minor, currency);
  return { subtotal: format(subtotal), discount_amount: format(discount), tax_amount: format(tax), total: format(subtotal - discount + tax) };
}
