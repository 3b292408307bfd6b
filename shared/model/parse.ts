/** Runs a schema and turns every issue into the contract's field errors. */
import * as v from 'valibot';
import { invalidRequest, type FieldError } from '../core/errors.ts';
import { LIMITS } from '../core/field-limits.ts';

/**
 * The parsed input, or a 400 listing every failing field: each field's first problem, its rules
 * across fields (model/cross-field.ts) among them, and every unknown one.
 */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, noun: 'field' | 'query parameter' = 'field'): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  const errors = toFieldErrors(result.issues, noun);
  // valibot's strict object names only its first unknown key: the contract lists every one, beside
  // it (after the fields' own errors, before the rules across fields).
  const [first, ...others] = unknownNames(schema, input);
  errors.splice(errors.findIndex((e) => e.param === first) + 1, 0, ...others.map((name) => ({ param: name, message: unknown(name, noun) })));
  throw invalidRequest(errors);
}

/** A batch's refusal of its count (model/define.ts createManySchema declares the same bounds). */
export const ENTRIES_COUNT = `entries must hold 1 to ${LIMITS.batchEntries} objects`;

/**
 * A batch's body as parsed (`POST /time_entries/batch`): every entry valid, or what was sent with
 * the errors of the entries that are not, for the domain to list beside the references it finds
 * unknown (contract: one 400 lists both, `param` the lowest index).
 */
export type ParsedBatch<T> = { valid: true; entries: T[] } | { valid: false; sent: readonly unknown[]; errors: FieldError[] };

/**
 * The batch `input` under `schema` (a strict object of `entries`, model/define.ts
 * createManySchema): without entries to read (`entries` missing, not an array, not 1 to
 * `maxEntries`: counted before any entry is read) a 400 at once; else every error, the unknown
 * members beside `entries` too, waits for the references'.
 */
export function parseBatch<S extends v.GenericSchema>(schema: S, input: unknown, maxEntries: number): ParsedBatch<unknown> {
  const sent = (input as { entries?: unknown }).entries;
  if (Array.isArray(sent) && (sent.length < 1 || sent.length > maxEntries)) throw invalidRequest([{ param: 'entries', message: ENTRIES_COUNT }]);
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return { valid: true, entries: (result.output as { entries: unknown[] }).entries };
  const errors = [...toFieldErrors(result.issues), ...unknownNames(schema, input).slice(1).map((name) => ({ param: name, message: unknown(name, 'field') }))];
  if (!Array.isArray(sent)) throw invalidRequest(errors);
  return { valid: false, sent, errors };
}

/** The names of `input` that a strict object schema (piped or not) does not declare. */
function unknownNames(schema: v.GenericSchema, input: unknown): string[] {
  if (schema.type !== 'strict_object' || typeof input !== 'object' || input === null) return [];
  const { entries } = schema as unknown as v.StrictObjectSchema<v.ObjectEntries, undefined>;
  return Object.keys(input).filter((name) => !Object.hasOwn(entries, name));
}

const unknown = (param: string, noun: string) => `${param} is not a known ${noun}`;

export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[], noun = 'field'): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of issues) {
    // An element of a list is named as JSON Pointer's readers expect it: `taxes[1].name`, not `taxes.1.name`.
    const param = v.getDotPath(issue)?.replace(/\.(\d+)(?=\.|$)/g, '[$1]') ?? 'body';
    if (seen.has(param)) continue; // the first (most basic) problem of a field is the useful one
    seen.add(param);
    errors.push({ param, message: messageOf(issue, param, noun) });
  }
  return errors;
}

function messageOf(issue: v.BaseIssue<unknown>, param: string, noun: string): string {
  const objectLevel = issue.type === 'strict_object' || issue.type === 'object';
  if (objectLevel && issue.expected === 'never') return unknown(param, noun);
  if (objectLevel && issue.input === undefined) return `${param} is required`;
  if (issue.input === null && issue.kind === 'schema') return `${param} cannot be null`;
  return issue.message;
}
