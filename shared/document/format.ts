/**
 * Numbers and dates of a document as `Intl` writes them for its locale (contract, "Business
 * profile and the invoice document"): amounts in the invoice's currency with its minor unit's
 * digits (`1 234,56 $`, `$1,234.56`), dates with `dateStyle: "long"` (`1 décembre 2026`). Amounts
 * are decimal strings, formatted as such: no binary float touches them.
 */
import { dateOfDayNumber, dayNumberOf } from '../core/calendar.ts';
import { minorUnitDigits } from '../core/money.ts';

export type Locale = 'fr-CA' | 'en-CA';

/** Rates and unit prices show the currency's digits and up to this many. */
const PRICE_DIGITS = 4;
/** Quantities show up to 4 decimals, tax rates up to 3. */
const QUANTITY_DIGITS = 4;
const RATE_DIGITS = 3;

export interface Formats {
  /** A decimal string in the currency's minor unit (`"1234.50"`). */
  money(amount: string): string;
  /** A rate or a unit price: the currency's digits, and up to 4. */
  price(value: number): string;
  quantity(value: number): string;
  /** Minutes as hours, rounded half up to 2 decimals (`1,50`). */
  hours(minutes: number): string;
  /** A percentage (`9,975 %`). */
  percent(rate: number): string;
  /** A calendar date (`2026-12-01`). */
  date(date: string): string;
  /** The day before a calendar date: the last day of a period whose end is exclusive. */
  dayBefore(date: string): string;
}

/** Intl's formatters take a while to build: each locale and currency's, once per execution environment. */
const built = new Map<string, Formats>();

export function formatsOf(locale: Locale, currency: string): Formats {
  const key = `${locale} ${currency}`;
  let formats = built.get(key);
  if (!formats) built.set(key, (formats = buildFormats(locale, currency)));
  return formats;
}

function buildFormats(locale: Locale, currency: string): Formats {
  const digits = minorUnitDigits(currency);
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  const price = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: Math.max(digits, PRICE_DIGITS) });
  const quantity = new Intl.NumberFormat(locale, { maximumFractionDigits: QUANTITY_DIGITS });
  const hours = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: RATE_DIGITS });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  const formatDate = (day: string) => date.format(dayNumberOf(day) * 86_400_000);
  return {
    // Intl formats a numeric string exactly (ECMA-402's StringNumericLiteral), without a float.
    money: (amount) => money.format(amount as unknown as number),
    price: (value) => price.format(value),
    quantity: (value) => quantity.format(value),
    // Hundredths of an hour, half up: floor((minutes × 100 / 60) + 1/2) = floor((10 × minutes + 3) / 6).
    hours: (minutes) => hours.format(`${Math.floor((10 * minutes + 3) / 6)}E-2` as unknown as number),
    percent: (rate) => percent.format(`${rate}E-2` as unknown as number),
    date: formatDate,
    dayBefore: (day) => formatDate(dateOfDayNumber(dayNumberOf(day) - 1)),
  };
}
