/** Runs a schema and turns every issue into the contract's field errors. */
import * as v from 'valibot';
import { invalidRequest, type FieldError } from '../errors.ts';

export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  noun: 'field' | 'query parameter' = 'field',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  throw invalidRequest(toFieldErrors(result.issues, noun));
}

export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[], noun = 'field'): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const param = v.getDotPath(issue) ?? 'body';
    if (seen.has(param)) continue; // the first (most basic) problem of a field is the useful one
    seen.add(param);
    errors.push({ param, message: messageOf(issue, param, noun) });
  }
  return errors;
}

function messageOf(issue: v.BaseIssue<unknown>, param: string, noun: string): string {
  const objectLevel = issue.type === 'strict_object' || issue.type === 'object';
  if (objectLevel && issue.expected === 'never') return `${param} is not a known ${noun}`;
  if (objectLevel && issue.input === undefined) return `${param} is required`;
  if (issue.input === null && issue.kind === 'schema') return `${param} cannot be null`;
  return issue.message;
}
