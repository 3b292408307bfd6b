/**
 * Rules across the fields of one request, which a schema cannot say field by field: a time entry
 * names a project or a client, `end_date` is not before `start_date`, `started_to` not before
 * `started_from`. When the schema refuses a request, they are checked on what it sent and join
 * its errors, so `errors` lists every failing field at once (contract, "Error body"); a field
 * that fails its own rule is left to that. On a request the schema accepts, the domain checks
 * them, with what only it knows (a default `start_date`, the stored one).
 */
import type { FieldError } from '../errors.ts';
import type { AnyResource } from '../resources/declare.ts';
import { instantOf } from './fields.ts';

export const notBeforeMessage = (later: string, earlier: string) => `${later} must not be before ${earlier}`;

/** The error of a create that gives none of `fields`, references named `<noun>_id` (the first is named). */
export const oneOfRequiredMessage = (resource: AnyResource, fields: readonly string[]) =>
  `${fields.join(' or ')} is required: a ${resource.noun} belongs to a ${fields.map((f) => f.slice(0, -3)).join(' or a ')}`;

/** A range of calendar dates (time summaries): `to` after `from`, at most `maxDays` from it. */
export interface DateRange {
  from: string;
  to: string;
  maxDays: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dayOf = (value: unknown) => (typeof value === 'string' && DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) / 86_400_000 : Number.NaN);

/** The errors of a date range, given its dates as sent (none unless both are dates). */
export function dateRangeErrors(range: DateRange, given: Record<string, unknown>): FieldError[] {
  const days = dayOf(given[range.to]) - dayOf(given[range.from]);
  if (days <= 0) return [{ param: range.to, message: `${range.to} must be after ${range.from} (${range.to} is exclusive: the day after the last one to count)` }];
  if (days > range.maxDays) return [{ param: range.to, message: `${range.to} must be at most ${range.maxDays} days after ${range.from}: ask for a shorter range` }];
  return [];
}

/** The rules of `action` on `resource` that `input` breaks, as field errors. */
export function crossFieldErrors(resource: AnyResource, action: string, input: unknown): FieldError[] {
  const given = (input ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  const oneOf = action === 'create' && resource.createRequiresOneOf;
  if (oneOf && oneOf.every((f) => given[f] == null)) errors.push({ param: oneOf[0]!, message: oneOfRequiredMessage(resource, oneOf) });
  const order = resource.order;
  for (const [later, earlier] of action === 'list' ? (order ? [[order.to, order.from]] : []) : Object.entries(resource.notBefore ?? {})) {
    const at = (field: string) => (typeof given[field] === 'string' ? instantOf(given[field]) : undefined);
    if (at(later!)! < at(earlier!)!) errors.push({ param: later!, message: notBeforeMessage(later!, earlier!) });
  }
  const range = (resource as { dateRange?: DateRange }).dateRange;
  if (range) errors.push(...dateRangeErrors(range, given));
  return errors;
}
