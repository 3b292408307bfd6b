/** The time summaries' query (contract, "Time summaries"); the row object is in objects.ts. */
import * as v from 'valibot';
import { listBase } from '../resources/define.ts';
import { client, project } from '../resources/registry.ts';
import { isTimeZone } from '../totals/calendar.ts';
import { enumOf, LIMITS, reference } from './fields.ts';
import type { FieldError } from '../errors.ts';

/** The longest range a summary covers, in days (`to` − `from`). */
export const MAX_SUMMARY_DAYS = 3660;

/**
 * The summaries' names, as a registry resource has them: rows are computed, not stored, and read
 * with `time_entries:read`; their range's rule joins the other errors (schemas/cross-field.ts).
 */
export const TIME_SUMMARIES = { kind: 'time_summary', collection: 'time_entries', path: 'time_summaries', tag: 'Time summaries' } as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayOf = (value: unknown) => (typeof value === 'string' && DAY.test(value) ? Date.parse(`${value}T00:00:00Z`) / 86_400_000 : Number.NaN);

/** The range's rule, given the dates as sent (none unless both are dates): `to` after `from`, at most MAX_SUMMARY_DAYS from it. */
export function dateRangeErrors(given: Record<string, unknown>): FieldError[] {
  const days = dayOf(given.to) - dayOf(given.from);
  if (days <= 0) return [{ param: 'to', message: 'to must be after from (to is exclusive: the day after the last one to count)' }];
  if (days > MAX_SUMMARY_DAYS) return [{ param: 'to', message: `to must be at most ${MAX_SUMMARY_DAYS} days after from: ask for a shorter range` }];
  return [];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A calendar date `YYYY-MM-DD` whose year is 1900..9999. */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= LIMITS.yearMin && y <= LIMITS.yearMax && mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

export const calendarDate = (field: string, what: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(isCalendarDate, `${field} must be a date YYYY-MM-DD from year ${LIMITS.yearMin} to ${LIMITS.yearMax}, e.g. 2026-11-01`),
    v.metadata({ format: 'date', description: what }),
  );

export const timeZoneName = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(isTimeZone, `${field} must be an IANA time zone name, such as UTC, Europe/Paris or Asia/Kathmandu`),
    v.metadata({ description: 'An IANA time zone name (Europe/Paris, Asia/Kathmandu); the days, weeks and months are those of this zone' }),
  );

const { limit, cursor } = listBase();

export const ListTimeSummariesQuery = v.strictObject({
  limit,
  cursor,
  from: calendarDate('from', 'The first date of the range (inclusive), in `timezone`'),
  to: calendarDate('to', `The date after the range (exclusive), in \`timezone\`: after \`from\`, at most ${MAX_SUMMARY_DAYS} days from it`),
  timezone: v.optional(timeZoneName('timezone'), 'UTC'),
  group_by: v.optional(enumOf('group_by', ['client', 'project']), 'client'),
  period: v.optional(enumOf('period', ['none', 'day', 'week', 'month']), 'none'),
  client_id: v.optional(v.pipe(reference('client_id'), v.metadata({ description: `Only the time of this client (${client.idPrefix}…)` }))),
  project_id: v.optional(v.pipe(reference('project_id'), v.metadata({ description: `Only the time of this project (${project.idPrefix}…)` }))),
  invoiced: v.optional(
    v.pipe(enumOf('invoiced', ['true', 'false']), v.metadata({ description: 'true: only time on an invoice; false: only the rest' })),
  ),
});
export type ListTimeSummariesInput = v.InferOutput<typeof ListTimeSummariesQuery>;

/** The summaries as their list function passes them to the handler frame: their names, and their query. */
export const timeSummarySchemas = { ...TIME_SUMMARIES, listQuery: ListTimeSummariesQuery, acrossFields: dateRangeErrors } as const;
export type TimeSummarySchemas = typeof timeSummarySchemas;
