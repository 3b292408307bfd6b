/**
 * Rules across the fields of one request, which a schema cannot say field by field: a time entry
 * names a project or a client, `end_date` is not before `start_date`, `started_to` not before
 * `started_from`, a summary's or an invoice's `to` comes after its `from` (model/dates.ts). Each
 * schema runs its own in its pipe (`crossFieldCheck`), so a rule's error is listed beside every
 * other failing field's (contract, "Error body"); a field that fails its own rule is left to that.
 * The domain checks what only it knows in the same words (a default `start_date`, the stored one).
 */
import * as v from 'valibot';
import type { AnyResource } from './declare.ts';
import { instantOf } from './fields.ts';

/** An object as its schema has parsed it so far: a field that failed its own rules holds what was sent. */
export type Parsed = Readonly<Record<string, unknown>>;

/** A rule across fields: the field its error names, and the message when `given` breaks it. */
export interface CrossFieldRule {
  readonly field: string;
  readonly broken: (given: Parsed) => string | undefined;
}

export const notBeforeMessage = (later: string, earlier: string) => `${later} must not be before ${earlier}`;

/** The error of a create that gives none of `fields`, references named `<noun>_id` (the first is named). */
export const oneOfRequiredMessage = (resource: AnyResource, fields: readonly string[]) =>
  `${fields.join(' or ')} is required: a ${resource.noun} belongs to a ${fields.map((f) => f.slice(0, -3)).join(' or a ')}`;

const instantAt = (given: Parsed, field: string) => {
  const value = given[field];
  return typeof value === 'string' ? instantOf(value) : undefined;
};

/** `later` is not before `earlier` when both are given as timestamps. */
const notBefore = (later: string, earlier: string): CrossFieldRule => ({
  field: later,
  broken: (given) => {
    const [end, start] = [instantAt(given, later), instantAt(given, earlier)];
    return end !== undefined && start !== undefined && end < start ? notBeforeMessage(later, earlier) : undefined;
  },
});

/** One of `fields` (at least one) is given and not null; the first names the error. */
const oneOfGiven = (resource: AnyResource, fields: readonly string[]): CrossFieldRule => ({
  field: fields[0]!,
  broken: (given) => (fields.every((f) => given[f] == null) ? oneOfRequiredMessage(resource, fields) : undefined),
});

/**
 * The rules of `action` that `resource` declares: on a create `createRequiresOneOf` and
 * `notBefore`, on an update `notBefore`, on a list its order's range (`started_to` not before
 * `started_from`).
 */
export function declaredRules(resource: AnyResource, action: 'create' | 'update' | 'list'): CrossFieldRule[] {
  const order = resource.order;
  if (action === 'list') return order ? [notBefore(order.to, order.from)] : [];
  const oneOf = (action === 'create' && resource.createRequiresOneOf) || [];
  const ordered = Object.entries(resource.notBefore ?? {}).flatMap(([later, earlier]) => (earlier === undefined ? [] : [notBefore(later, earlier)]));
  return oneOf.length > 0 ? [oneOfGiven(resource, oneOf), ...ordered] : ordered;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * `rules` as one action of an object schema's pipe, after the object (valibot's rawCheck, typed by
 * the object's output `T`: one action for however many rules a declaration gives). A rule is
 * checked once the field it names has passed its own rules (whose error is the useful one), on the
 * object as parsed so far; its error is that field's, beside every other failing field's.
 */
export const crossFieldCheck = <T>(rules: readonly CrossFieldRule[]) =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    const given = dataset.value;
    if (!isObject(given)) return;
    for (const { field, broken } of rules) {
      if (dataset.issues?.some((issue) => issue.path?.[0]?.key === field)) continue;
      const message = broken(given);
      if (message !== undefined) addIssue({ message, path: [{ type: 'object', origin: 'value', input: given, key: field, value: given[field] }] });
    }
  });
