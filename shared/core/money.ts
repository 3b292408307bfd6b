/**
 * Money without binary floats (contract, "Money: currencies and rates"): rates are decimals of at
 * most 4 places, held here as integers of 1/10,000; an entry's value is `minutes × rate / 60`,
 * kept as the integer `minutes × rate × 10,000` (a "rate-minute") and divided once, when a total is
 * answered, rounding half to even to the currency's minor unit. Currencies come from the runtime's
 * `Intl` (ISO 4217 as ICU knows it), their minor units from Intl's table, kept here (below).
 */
import { LIMITS } from './field-limits.ts';

/** 10^4: a rate's integer units per currency unit (4 decimal places). */
const RATE_SCALE = 10n ** BigInt(LIMITS.moneyDecimals);
/** Rate-minutes per currency unit: 60 minutes × 10^4. */
const RATE_MINUTES_PER_UNIT = 60n * RATE_SCALE;

/**
 * The currencies whose minor unit is not a hundredth, by its digits, as `Intl` gives them (ICU's
 * CLDR data: `maximumFractionDigits` of a currency format). Kept as a table because Intl's number
 * formatting loads its data on first use, 20 to 40 ms of a summary's cold start (decision 0026);
 * test/unit/money.test.ts checks it against Intl for every currency Intl knows, so a runtime
 * whose data differs fails that test instead of changing amounts unnoticed.
 */
export const MINOR_UNIT_EXCEPTIONS = {
  0: 'AFN ALL BIF CLP COP DJF GNF HUF IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK PKR PYG RWF SLL SOS SYP UGX VND VUV XAF XOF XPF YER',
  3: 'BHD JOD KWD LYD OMR TND',
} as const;

const MINOR_UNITS = new Map(Object.entries(MINOR_UNIT_EXCEPTIONS).flatMap(([digits, codes]) => codes.split(' ').map((code) => [code, Number(digits)] as const)));

/** Digits after the decimal point of a currency's minor unit: USD 2, JPY 0, KWD 3. */
export function minorUnitDigits(currency: string): number {
  return MINOR_UNITS.get(currency) ?? 2;
}

/**
 * A payment's amount (a decimal string of digits with at most one point, as validated) in minor
 * units of `currency`, read digit by digit; undefined when it has more digits after the point than
 * the currency has.
 */
export function minorOfDecimal(amount: string, currency: string): bigint | undefined {
  const [whole = '', fraction = ''] = amount.split('.');
  const digits = minorUnitDigits(currency);
  return fraction.length > digits ? undefined : BigInt(whole + fraction.padEnd(digits, '0'));
}

/**
 * A money value as JSON carries it (a number with at most 4 decimals, as validated) in 1/10,000
 * units, read from its shortest decimal spelling, never multiplied as a double.
 */
export function rateUnits(rate: number): bigint {
  const spelled = String(rate);
  // Validated on the way in (model/fields.ts): anything else here is a bug.
  if (!/^\d+(\.\d{1,4})?$/.test(spelled)) throw new Error(`Not a money value: ${spelled}`);
  const [whole, fraction = ''] = spelled.split('.');
  return BigInt(whole!) * RATE_SCALE + BigInt(fraction.padEnd(LIMITS.moneyDecimals, '0'));
}

/** An entry's value in rate-minutes: `minutes × rate × 10^4`, exact. */
export const rateMinutes = (minutes: number, rate: number): bigint => BigInt(minutes) * rateUnits(rate);

/** `numerator / denominator` rounded once, half to even (both non-negative or the numerator negative). */
export function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let quotient = n / denominator;
  const twice = (n % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  return negative ? -quotient : quotient;
}

/**
 * `numerator / denominator` rounded once, half up (both non-negative): a remainder of half the
 * denominator or more rounds up, as Revenu Québec and the Canada Revenue Agency round taxes.
 */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  // Amounts and rates are never negative (validated): anything else here is a bug.
  if (numerator < 0n || denominator <= 0n) throw new Error(`Not a division of amounts: ${numerator} / ${denominator}`);
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** A count of minor units as the decimal string the API answers: `"1234.50"`, `"1235"`, `"12.345"`. */
export function formatMinor(minor: bigint, currency: string): string {
  const digits = minorUnitDigits(currency);
  const sign = minor < 0n ? '-' : '';
  const text = (minor < 0n ? -minor : minor).toString().padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** An amount as formatMinor spells it (the currency's digits, a sign when negative) back in minor units. */
export const minorOfAmount = (amount: string): bigint => BigInt(amount.replace('.', ''));

/** A sum of rate-minutes in the currency's minor unit, rounded once, half to even. */
export const minorOfRateMinutes = (sum: bigint, currency: string): bigint =>
  divideHalfEven(sum * 10n ** BigInt(minorUnitDigits(currency)), RATE_MINUTES_PER_UNIT);

/** A sum of rate-minutes as the amount string of its currency. */
export const amountOfRateMinutes = (sum: bigint, currency: string): string => formatMinor(minorOfRateMinutes(sum, currency), currency);
