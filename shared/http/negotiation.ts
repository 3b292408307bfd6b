/**
 * Content negotiation (RFC 9110, section 12.5.1), read once for every operation: which of the
 * media types an operation offers the request's `Accept` prefers. Each offered type takes the
 * quality of the most specific range that matches it (`type/subtype`, then `type/*`, then `*\/*`;
 * parameters other than `q` do not narrow a range here); the highest quality above 0 wins, a tie
 * going to the type offered first (JSON). No `Accept`, or one with no range that can be read, is
 * `*\/*`. A range that cannot be read is left out, as RFC 9110 lets a server do.
 */
import { ApiError, ERROR_TYPES } from '../core/errors.ts';

export const JSON_TYPE = 'application/json';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** A token (RFC 9110, 5.6.2) and a weight (12.4.2): 0 to 1, at most three decimals. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The ranges of an Accept value, in order; those that cannot be read left out. */
export function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of accept.split(',')) {
    const [range = '', ...params] = element.split(';').map((part) => part.trim());
    const [type, subtype, rest] = range.toLowerCase().split('/');
    if (!type || !subtype || rest !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    const weight = params.find((param) => /^q\s*=/i.test(param));
    if (weight !== undefined) {
      const value = weight.slice(weight.indexOf('=') + 1).trim();
      if (!WEIGHT.test(value)) continue;
      q = Number(value);
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality `ranges` give `offered`: that of the most specific range matching it (the first of those), 0 when none does. */
function qualityOf(ranges: readonly MediaRange[], offered: string): number {
  const [type, subtype] = offered.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2
      : range.type === type && range.subtype === '*' ? 1
      : range.type === '*' ? 0
      : -1;
    if (specificity >= 0 && (best === undefined || specificity > best.specificity)) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/** The offered type `accept` prefers (the first offered on a tie, and without a readable Accept); undefined when it accepts none. */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  const ranges = accept === undefined ? [] : mediaRanges(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let quality = 0;
  for (const type of offered) {
    const q = qualityOf(ranges, type);
    if (q > quality) [chosen, quality] = [type, q];
  }
  return chosen;
}

/** 406: the request accepts none of the types the operation answers with (its error body is JSON all the same). */
export const notAcceptable = (offered: readonly string[]) =>
  new ApiError('not_acceptable', ERROR_TYPES.not_acceptable, `This operation answers ${offered.join(' or ')}: send an Accept that allows it, or none`);
