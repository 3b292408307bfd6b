/**
 * The tests' own integer arithmetic for money, apart from shared/core/money.ts, so that a
 * reference computed with it can tell the module under test wrong.
 */
import { expect } from 'vitest';

/** A decimal's digits as an integer of 10^-places units: "12.5" at 4 places is 125000. */
export function units(value: number, places: number): bigint {
  const [whole, fraction = ''] = String(value).split('.');
  expect(fraction.length).toBeLessThanOrEqual(places);
  return BigInt(whole! + fraction + '0'.repeat(places - fraction.length));
}

/** n / d rounded to the nearest integer, a tie to the even one (n, d > 0). */
export function roundHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n - q * d;
  if (2n * r < d) return q;
  if (2n * r > d) return q + 1n;
  return q % 2n === 0n ? q : q + 1n;
}

/** n / d rounded to the nearest integer, a half up (n ≥ 0, d > 0): as taxes are rounded. */
export function roundHalfUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return 2n * (n - q * d) >= d ? q + 1n : q;
}
