/** Calendar dates and time zone names, as the time summaries and invoices take them. */
import * as v from 'valibot';
import { isTimeZone } from '../core/calendar.ts';
import { LIMITS } from '../core/field-limits.ts';
import type { CrossFieldRule } from './cross-field.ts';

/** The longest range a summary or an invoice covers, in days (`to` − `from`). */
export const MAX_SUMMARY_DAYS = 3660;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayOf = (value: unknown) => (typeof value === 'string' && DAY.test(value) ? Date.parse(`${value}T00:00:00Z`) / 86_400_000 : Number.NaN);

/**
 * The range's rule across `from` and `to` (model/cross-field.ts), which the summaries' query and an
 * invoice's create check in their schemas: `to` after `from`, at most MAX_SUMMARY_DAYS from it
 * (nothing to say unless both are dates).
 */
export const dateRange: CrossFieldRule = {
  field: 'to',
  broken: (given) => {
    const days = dayOf(given.to) - dayOf(given.from);
    if (days <= 0) return 'to must be after from (to is exclusive: the day after the last one to count)';
    if (days > MAX_SUMMARY_DAYS) return `to must be at most ${MAX_SUMMARY_DAYS} days after from: ask for a shorter range`;
    return undefined;
  },
};


const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A calendar date `YYYY-MM-DD` whose year is 1900..9999. */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= LIMITS.yearMin && y <= LIMITS.yearMax && mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/**
 * A date YYYY-MM-DD; `what` is its description in the OpenAPI document, given where the document's
 * schemas are built (model/invoice-fields.ts `SAID`) or left out, so a function's bundle need not hold it.
 */
export const calendarDate = (field: string, what?: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(isCalendarDate, `${field} must be a date YYYY-MM-DD from year ${LIMITS.yearMin} to ${LIMITS.yearMax}, e.g. 2026-11-01`),
    v.metadata({ format: 'date', ...(what === undefined ? {} : { description: what }) }),
  );

/** An IANA time zone name; its description is the OpenAPI document's (model/documented.ts), told by the check. */
export const timeZoneName = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(isTimeZone, `${field} must be an IANA time zone name, such as UTC, Europe/Paris or Asia/Kathmandu`),
  );

