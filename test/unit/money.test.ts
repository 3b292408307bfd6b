/** Money and local calendars without binary floats or guesses (shared/core/money.ts, shared/core/calendar.ts). */
import { describe, expect, it, vi } from 'vitest';
import { MINOR_UNIT_EXCEPTIONS, amountOfRateMinutes, divideHalfEven, divideHalfUp, formatMinor, minorOfAmount, minorOfDecimal, minorUnitDigits, rateUnits } from '../../shared/core/money.ts';
import { dateOfDayNumber, dayNumberOf, isTimeZone, offsetAt, periodsOf, startOfDay } from '../../shared/core/calendar.ts';
import { isKnownCurrency } from '../../shared/model/fields.ts';

describe('money', () => {
  it('reads a rate from its decimal spelling, never multiplying a double', () => {
    expect(rateUnits(0.1)).toBe(1_000n);
    expect(rateUnits(99.9999)).toBe(999_999n);
    expect(rateUnits(1_000_000_000)).toBe(10_000_000_000_000n);
    expect(rateUnits(0.0001)).toBe(1n);
    // The message names the value (validated on the way in: this is a bug's trace).
    expect(() => rateUnits(0.00001)).toThrow('Not a money value: 0.00001');
    expect(() => rateUnits(-1)).toThrow('Not a money value: -1');
  });

  it('divides once, half to even', () => {
    expect([5n, 15n, 25n, 14n, 16n].map((n) => divideHalfEven(n, 10n))).toEqual([0n, 2n, 2n, 1n, 2n]);
    expect(divideHalfEven(-15n, 10n)).toBe(-2n);
  });

  it('divides once, half up, as taxes are rounded (Revenu Québec)', () => {
    expect([0n, 4n, 5n, 15n, 25n, 14n, 16n, 9n].map((n) => divideHalfUp(n, 10n))).toEqual([0n, 0n, 1n, 2n, 3n, 1n, 2n, 1n]);
    // 100.00 × 9.975 %: 997.5 cents, half a cent rounds up.
    expect(divideHalfUp(10_000n * 9_975n, 100_000n)).toBe(998n);
    expect(divideHalfUp(7n, 7n)).toBe(1n);
    for (const [n, d] of [[-1n, 10n], [1n, 0n], [1n, -2n]] as const) expect(() => divideHalfUp(n, d), `${n}/${d}`).toThrow('Not a division of amounts');
  });

  it('formats minor units in the currency\'s digits', () => {
    expect([minorUnitDigits('USD'), minorUnitDigits('JPY'), minorUnitDigits('KWD')]).toEqual([2, 0, 3]);
    expect(formatMinor(123_450n, 'USD')).toBe('1234.50');
    expect(formatMinor(5n, 'USD')).toBe('0.05');
    expect(formatMinor(1235n, 'JPY')).toBe('1235');
    expect(formatMinor(12_345n, 'KWD')).toBe('12.345');
    // Negative amounts (a credit) carry the sign before the digits, padded as the positive ones are.
    expect(formatMinor(-5n, 'USD')).toBe('-0.05');
    expect(formatMinor(-123_450n, 'USD')).toBe('-1234.50');
    // Read back as minor units: the inverse, sign included.
    for (const [minor, currency] of [[123_450n, 'USD'], [5n, 'USD'], [-5n, 'USD'], [1235n, 'JPY'], [-12_345n, 'KWD'], [2n ** 60n, 'KWD']] as const) {
      expect(minorOfAmount(formatMinor(minor, currency)), `${minor} ${currency}`).toBe(minor);
    }
    expect(formatMinor(-1235n, 'JPY')).toBe('-1235');
    expect(formatMinor(-12_345n, 'KWD')).toBe('-12.345');
    expect([formatMinor(0n, 'USD'), formatMinor(0n, 'JPY'), formatMinor(0n, 'KWD')]).toEqual(['0.00', '0', '0.000']);
    // 27 minutes at 0.10 an hour is 0.045: the half goes to the even cent.
    expect(amountOfRateMinutes(27n * 1_000n, 'USD')).toBe('0.04');
    expect(amountOfRateMinutes(2n ** 80n, 'USD')).toBe('2014876366024381957.84');
  });

  it('takes each currency\'s minor unit from a table that is Intl\'s, for every currency Intl knows', () => {
    const intl = (currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
    const known = Intl.supportedValuesOf('currency');
    expect(known.length).toBeGreaterThan(100);
    const differing = known.filter((code) => minorUnitDigits(code) !== intl(code)).map((code) => `${code}: table ${minorUnitDigits(code)}, Intl ${intl(code)}`);
    expect(differing).toEqual([]);
    // Every code of the table is one Intl knows, listed once, in order.
    for (const codes of Object.values(MINOR_UNIT_EXCEPTIONS)) {
      const list = codes.split(' ');
      expect(list.filter((code) => !known.includes(code))).toEqual([]);
      expect(list).toEqual([...new Set(list)].sort());
    }
    expect(minorUnitDigits('constructor')).toBe(2);
  });

  it('knows the currencies of Intl, upper case only', () => {
    expect(['USD', 'EUR', 'JPY', 'KWD'].every(isKnownCurrency)).toBe(true);
    expect(['usd', 'ABC', 'US', 'USDD', ''].some(isKnownCurrency)).toBe(false);
  });
});

describe('local calendars', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  it('starts each date at its first instant, across offsets of 30 and 45 minutes and daylight saving time', () => {
    const day = dayNumberOf('2026-03-29');
    expect(dateOfDayNumber(day)).toBe('2026-03-29');
    expect(iso(startOfDay('Europe/Paris', day))).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(startOfDay('Europe/Paris', day + 1))).toBe('2026-03-29T22:00:00.000Z');
    expect(iso(startOfDay('Asia/Kathmandu', day))).toBe('2026-03-28T18:15:00.000Z');
    expect(iso(startOfDay('America/St_Johns', day))).toBe('2026-03-29T02:30:00.000Z');
    expect(iso(startOfDay('Pacific/Chatham', dayNumberOf('2026-04-05')))).toBe('2026-04-04T10:15:00.000Z');
    // A gap that swallows midnight (Chile's spring forward at 00:00): the date starts at 01:00.
    expect(iso(startOfDay('America/Santiago', dayNumberOf('2026-09-06')))).toBe('2026-09-06T04:00:00.000Z');
    // A historic offset in seconds (Monrovia's -00:44:30 until 1972).
    expect(iso(startOfDay('Africa/Monrovia', dayNumberOf('1950-06-01')))).toBe('1950-06-01T00:44:30.000Z');
    // A fall back that repeats midnight (Cuba's, from 01:00 to 00:00): the date starts at the first of the two.
    expect(iso(startOfDay('America/Havana', dayNumberOf('2026-11-01')))).toBe('2026-11-01T04:00:00.000Z');
    expect(iso(startOfDay('America/Havana', dayNumberOf('2026-11-02')))).toBe('2026-11-02T05:00:00.000Z');
  });

  it('reads offsets before the common era (Paris kept its mean solar time, +00:09:21, back to any year)', () => {
    const at = (year: number) => new Date(0).setUTCFullYear(year, 5, 1);
    expect(offsetAt('Europe/Paris', at(-500))).toBe(561_000);
    expect(offsetAt('Europe/Paris', at(1850))).toBe(561_000);
    expect(offsetAt('Asia/Kolkata', at(2026))).toBe(19_800_000);
  });

  it('cuts weeks (from Monday) and months at the range', () => {
    const spans = [...periodsOf('UTC', 'week', dayNumberOf('2026-11-26'), dayNumberOf('2026-12-10'))].map((s) => [dateOfDayNumber(s.firstDay), iso(s.start)]);
    expect(spans).toEqual([['2026-11-26', '2026-11-26T00:00:00.000Z'], ['2026-11-30', '2026-11-30T00:00:00.000Z'], ['2026-12-07', '2026-12-07T00:00:00.000Z']]);
    const months = [...periodsOf('UTC', 'month', dayNumberOf('2026-01-31'), dayNumberOf('2026-03-02'))].map((s) => [dateOfDayNumber(s.firstDay), iso(s.end)]);
    expect(months).toEqual([['2026-01-31', '2026-02-01T00:00:00.000Z'], ['2026-02-01', '2026-03-01T00:00:00.000Z'], ['2026-03-01', '2026-03-02T00:00:00.000Z']]);
  });

  it('cuts days, each at its own instants across daylight saving time, from the one a cursor names', () => {
    const spans = (startingAt?: number) =>
      [...periodsOf('Europe/Paris', 'day', dayNumberOf('2026-03-28'), dayNumberOf('2026-03-31'), startingAt)].map((s) => [dateOfDayNumber(s.firstDay), iso(s.start), iso(s.end)]);
    expect(spans()).toEqual([
      ['2026-03-28', '2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z'],
      ['2026-03-29', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'],
      ['2026-03-30', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z'],
    ]);
    expect(spans(dayNumberOf('2026-03-30'))).toEqual([['2026-03-30', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z']]);
    expect(spans(dayNumberOf('2026-03-31'))).toEqual([]);
  });

  it('makes the whole range one period without a period, none when a cursor is past it', () => {
    const from = dayNumberOf('2026-03-28');
    const to = dayNumberOf('2026-04-02');
    expect([...periodsOf('Europe/Paris', 'none', from, to)]).toEqual([{ firstDay: from, start: Date.parse('2026-03-27T23:00:00.000Z'), end: Date.parse('2026-04-01T22:00:00.000Z') }]);
    expect([...periodsOf('Europe/Paris', 'none', from, to, from + 1)]).toEqual([]);
  });

  it('asks Intl nothing for UTC (no time zone data loaded: decision 0026), and asks it of other zones', () => {
    const parts = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    const options = vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions');
    try {
      const instant = Date.parse('2026-07-01T12:34:56.789Z');
      expect([offsetAt('UTC', instant), offsetAt('Etc/UTC', instant)]).toEqual([0, 0]);
      expect([isTimeZone('UTC'), isTimeZone('Etc/UTC')]).toEqual([true, true]);
      expect(startOfDay('UTC', dayNumberOf('2026-07-01'))).toBe(Date.parse('2026-07-01T00:00:00.000Z'));
      expect(parts).not.toHaveBeenCalled();
      expect(options).not.toHaveBeenCalled();
      expect(offsetAt('Europe/London', instant)).toBe(3_600_000);
      expect(isTimeZone('Europe/London')).toBe(true);
      expect(parts).toHaveBeenCalled();
      expect(options).toHaveBeenCalled();
    } finally {
      parts.mockRestore();
      options.mockRestore();
    }
  });

  it('makes one format per zone, whatever the spelling asked', () => {
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      expect(isTimeZone('Asia/Tokyo')).toBe(true);
      expect(offsetAt('asia/tokyo', Date.parse('2026-07-01T00:00:00.000Z'))).toBe(32_400_000);
      expect(startOfDay('ASIA/TOKYO', dayNumberOf('2026-07-01'))).toBe(Date.parse('2026-06-30T15:00:00.000Z'));
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
  });

  it('knows IANA zone names and refuses the rest', () => {
    // false, not another falsy value (a zone the runtime does not know throws in Intl).
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    // An offset is no zone name (runtimes that take offsets as time zones would keep it).
    expect(isTimeZone('+05:00')).toBe(false);
    expect(['UTC', 'Europe/Paris', 'Asia/Kathmandu', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'].every(isTimeZone)).toBe(true);
    expect(['Mars/Olympus', '', 'Europe/Paris ', '../etc', 'x'.repeat(65)].some(isTimeZone)).toBe(false);
    // Links: the runtime names their target (Asia/Kolkata is Asia/Calcutta to it), so their own spelling is kept.
    expect(['Asia/Kolkata', 'Asia/Calcutta', 'US/Eastern', 'GMT', 'Etc/UTC'].every(isTimeZone)).toBe(true);
    // The runtime matches a zone's name regardless of case; only IANA's spelling is taken (where the
    // runtime names the zone itself: to it Asia/Kathmandu is a link, to Asia/Katmandu).
    expect(['europe/paris', 'utc', 'EUROPE/PARIS', 'america/new_york', 'etc/gmt+5'].some(isTimeZone)).toBe(false);
    // Formats are kept by name regardless of case (so a caller's many spellings add none): a refused spelling spoils nothing.
    expect(['Europe/Paris', 'America/New_York', 'Etc/GMT+5'].every(isTimeZone)).toBe(true);
    expect(startOfDay('europe/paris', dayNumberOf('2026-07-01'))).toBe(startOfDay('Europe/Paris', dayNumberOf('2026-07-01')));
  });
});

describe('a payment amount in minor units (minorOfDecimal)', () => {
  it('reads the digits, padding the fraction to the currency\'s minor unit', () => {
    expect(minorOfDecimal('150', 'USD')).toBe(15_000n);
    expect(minorOfDecimal('150.5', 'USD')).toBe(15_050n);
    expect(minorOfDecimal('150.50', 'USD')).toBe(15_050n);
    expect(minorOfDecimal('0.01', 'CAD')).toBe(1n);
    expect(minorOfDecimal('1500', 'JPY')).toBe(1_500n);
    expect(minorOfDecimal('12.345', 'KWD')).toBe(12_345n);
    expect(minorOfDecimal('1.5', 'KWD')).toBe(1_500n);
    expect(minorOfDecimal('123456789012345.67', 'USD')).toBe(12_345_678_901_234_567n);
  });

  it('refuses (undefined) more digits after the point than the currency has', () => {
    expect(minorOfDecimal('150.501', 'USD')).toBeUndefined();
    expect(minorOfDecimal('1500.5', 'JPY')).toBeUndefined();
    expect(minorOfDecimal('1.2345', 'KWD')).toBeUndefined();
  });
});
