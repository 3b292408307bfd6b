/**
 * Rules across the fields of one request, which a schema cannot say field by field: a time entry
 * names a project or a client, `end_date` is not before `start_date`, `started_to` not before
 * `started_from`. When the schema refuses a request, they are checked on what it sent and join
 * its errors, so `errors` lists every failing field at once (contract, "Error body"); a field
 * that fails its own rule is left to that. On a request the schema accepts, the domain checks
 * them, with what only it knows (a default `start_date`, the stored one).
 */
import type { FieldError } from '../core/errors.ts';
import type { AnyResource } from './declare.ts';
import { instantOf } from './fields.ts';

export const notBeforeMessage = (later: string, earlier: string) => `${later} must not be before ${earlier}`;

/** The error of a create that gives none of `fields`, references named `<noun>_id` (the first is named). */
export const oneOfRequiredMessage = (resource: AnyResource, fields: readonly string[]) =>
  `${fields.join(' or ')} is required: a ${resource.noun} belongs to a ${fields.map((f) => f.slice(0, -3)).join(' or a ')}`;

/** The rules of `action` on `resource` that `given` breaks, as field errors. */
export function crossFieldErrors(resource: AnyResource, action: string, given: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const oneOf = action === 'create' && resource.createRequiresOneOf;
  if (oneOf && oneOf.every((f) => given[f] == null)) errors.push({ param: oneOf[0]!, message: oneOfRequiredMessage(resource, oneOf) });
  const order = resource.order;
  for (const [later, earlier] of action === 'list' ? (order ? [[order.to, order.from]] : []) : Object.entries(resource.notBefore ?? {})) {
    const at = (field: string) => (typeof given[field] === 'string' ? instantOf(given[field]) : undefined);
    if (at(later!)! < at(earlier!)!) errors.push({ param: later!, message: notBeforeMessage(later!, earlier!) });
  }
  return errors;
}

/**
 * What the handler frame checks across the fields of a parsed input: a resource's `acrossFields`
 * (define.ts gives a declared resource's, from its declaration, here; the time summaries and
 * invoices give their own date range). A function without one carries none of this module.
 */
export type AcrossFields = (given: Record<string, unknown>) => FieldError[];
