/** The time summaries' query (contract, "Time summaries"); the row object is in object-schemas.ts. */
import * as v from 'valibot';
import { listBase } from '../model/define.ts';
import { client, project } from '../model/resources.ts';
import { enumOf, reference } from '../model/fields.ts';
import { calendarDate, dateRange, MAX_SUMMARY_DAYS, timeZoneName } from '../model/dates.ts';
import { crossFieldCheck } from '../model/cross-field.ts';

export { calendarDate, isCalendarDate, MAX_SUMMARY_DAYS, timeZoneName } from '../model/dates.ts';

/**
 * The summaries' names, as a registry resource has them: rows are computed, not stored, and read
 * with `time_entries:read`.
 */
export const TIME_SUMMARIES = { kind: 'time_summary', collection: 'time_entries', path: 'time_summaries', tag: 'Time summaries' } as const;

const { limit, cursor } = listBase();

/** The query: its range's rule across `from` and `to` (model/dates.ts) is the schema's, beside every field's own. */
export const ListTimeSummariesQuery = v.pipe(
  v.strictObject({
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
      v.pipe(enumOf('invoiced', ['true', 'false']), v.metadata({ description: 'true: only the time on an invoice (its entries have an invoice_id); false: only the time on none. Absent: all' })),
    ),
  }),
  crossFieldCheck([dateRange]),
);
export type ListTimeSummariesInput = v.InferOutput<typeof ListTimeSummariesQuery>;

/** The summaries' CSV: a row's fields, which its group_by and period give (an empty page's header row too). */
export const timeSummaryCsv = {
  columns: (query: ListTimeSummariesInput) => [
    'object',
    'client_id',
    ...(query.group_by === 'project' ? ['project_id'] : []),
    ...(query.period === 'none' ? [] : ['period_start']),
    'currency',
    'minutes',
    'billable_minutes',
    'billable_amount',
    'unpriced_billable_minutes',
  ],
};

/** The summaries as their list function passes them to the handler frame: their names, and their query. */
export const timeSummarySchemas = { ...TIME_SUMMARIES, listQuery: ListTimeSummariesQuery } as const;
export type TimeSummarySchemas = typeof timeSummarySchemas;
