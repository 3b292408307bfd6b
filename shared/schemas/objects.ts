/**
 * The objects the API returns, as schemas: they document the responses in the OpenAPI document,
 * and the contract tests validate real responses against them. Each resource's own schema is
 * derived from its declaration (shared/resources/registry.ts).
 */
import * as v from 'valibot';
import { ERROR_TYPES, type ErrorType } from '../errors.ts';
import { RESOURCE_LIST } from '../resources/registry.ts';
import { SCHEMA_LIST, objectSchema } from '../resources/schemas.ts';

export const listOf = <T extends v.GenericSchema>(item: T) =>
  v.strictObject({
    object: v.literal('list'),
    data: v.array(item),
    has_more: v.boolean(),
    next_cursor: v.nullable(v.string()),
  });

const KINDS = RESOURCE_LIST.map((r) => r.kind) as [string, ...string[]];

export const DeleteResult = v.strictObject({
  object: v.picklist(KINDS),
  id: v.string(),
  deleted: v.literal(true),
});

const ERROR_TYPE_VALUES = Object.keys(ERROR_TYPES) as [ErrorType, ...ErrorType[]];

export const ErrorBody = v.strictObject({
  error: v.strictObject({
    type: v.picklist(ERROR_TYPE_VALUES),
    message: v.string(),
    param: v.optional(v.string()),
    errors: v.optional(v.array(v.strictObject({ param: v.string(), message: v.string() }))),
    request_id: v.string(),
  }),
});

/** Every response schema by its name in the OpenAPI document: `Client`, `ClientList`, ... */
export function responseSchemas(): Record<string, v.GenericSchema> {
  const out: Record<string, v.GenericSchema> = {};
  for (const resource of SCHEMA_LIST) {
    const object = objectSchema(resource);
    out[schemaName(resource.kind)] = object;
    out[`${schemaName(resource.kind)}List`] = listOf(object);
  }
  return { ...out, DeleteResult, Error: ErrorBody };
}

/** `time_entry` -> `TimeEntry` */
export const schemaName = (kind: string) => kind.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
