/**
 * A resource's field schemas (valibot), and everything derived from them: its TypeScript type,
 * its response schema, its create, update and list-query schemas. Its identity and relations are
 * declared apart, as plain data (declare.ts). resources.ts builds each resource's field schemas
 * beside its declaration with a pure call of `declareFields`, whose argument is a function: a
 * bundle that never reads a resource's `<name>Fields` drops them, and this module with them when
 * it reads none (retrieve, delete). Each action's schema is built apart (`withCreate`,
 * `withUpdate`, `withListQuery`), by the function that parses it: a bundle holds its own
 * action's rules only. Nothing here builds a schema at load for the same reason.
 *
 * The schemas are given per declared field. Their wrappers say the rules:
 * - a plain schema is required on create;
 * - `v.optional(schema, default)` is optional on create and takes the default;
 * - `v.optional(schema)` is optional on create and filled by the resource's domain code;
 * - `v.nullable(schema)` is optional on create (absent means null) and cleared by null on update;
 * - `immutable` fields are set on create and refused on update, with the reason given;
 * - `readOnly` fields are set by the server (never sent): from the creation time, or by the
 *   resource's own rules (null on create).
 */
import * as v from 'valibot';
import { ULID_PATTERN } from '../core/ids.ts';
import { LIMITS } from '../core/field-limits.ts';
import { text, timestamp as timestampField } from './fields.ts';
import type { AnyResource } from './declare.ts';
import { crossFieldCheck, declaredRules } from './cross-field.ts';
import { ENTRIES_COUNT } from './parse.ts';

type Unwrapped<S> = S extends v.OptionalSchema<infer W, infer _D> ? W : S;
type NonNull<S> = S extends v.NullableSchema<infer W, infer _D> ? W : S;

type Common = { workspace_id: string; created_at: string; updated_at: string };

type FieldOf<R extends AnyResource> = R['fieldNames'][number];
type KeysOf<M> = keyof NonNullable<M> & string;
/** One schema per declared field, no more. */
type FieldSchemas<R extends AnyResource, E> = E & { [F in Exclude<keyof E, FieldOf<R>>]: never };

/** The object the API returns, typed by the resource's field schemas. */
export type ObjectOfSchemas<K extends string, E extends v.ObjectEntries> = { object: K; id: string } & {
  -readonly [F in keyof E]: v.InferOutput<Unwrapped<E[F]>>;
} & Common;

type CreateEntries<E extends v.ObjectEntries, RO extends PropertyKey> = {
  [F in Exclude<keyof E, RO>]: E[F] extends v.NullableSchema<v.GenericSchema, undefined> ? v.OptionalSchema<E[F], undefined> : E[F];
};
type UpdateEntries<E extends v.ObjectEntries, RO extends PropertyKey, IM extends PropertyKey> = {
  [F in Exclude<keyof E, RO>]: F extends IM ? v.OptionalSchema<v.NeverSchema<string>, undefined> : v.OptionalSchema<Unwrapped<E[F]>, undefined>;
};
type QueryEntries<E extends v.ObjectEntries, FL extends PropertyKey, RG extends string> = {
  limit: ListBase['limit'];
  cursor: ListBase['cursor'];
  search: ReturnType<typeof searchParam>;
} & { [F in FL & keyof E]: v.OptionalSchema<NonNull<Unwrapped<E[F]>>, undefined> } & {
  [P in RG]: v.OptionalSchema<v.GenericSchema<string, string>, undefined>;
};
/** The list parameters of a declared order's range (`started_from`, `started_to`). */
type RangeOf<R extends AnyResource> = R['order'] extends { from: infer A extends string; to: infer B extends string } ? A | B : never;

// Built inside functions, never at load: a bundle that imports the registry without parsing
// anything (retrieve, delete) then keeps none of these (docs/decisions/0008, amendment).
export const timestamp = () => v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), v.metadata({ format: 'date-time' }));
export const idOf = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}${ULID_PATTERN}$`)));

/** Every list's page size and cursor. */
export function listBase() {
  const pageSizeMessage = `limit must be an integer from 1 to ${LIMITS.pageSizeMax}`;
  return {
    limit: v.optional(
      v.pipe(v.string(), v.regex(/^\d{1,3}$/, pageSizeMessage), v.transform(Number), v.minValue(1, pageSizeMessage), v.maxValue(LIMITS.pageSizeMax, pageSizeMessage)),
      String(LIMITS.pageSizeDefault),
    ),
    cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'cursor must not be empty'), v.maxLength(LIMITS.cursorLength, 'cursor is not valid'))),
  };
}
type ListBase = ReturnType<typeof listBase>;
/** The search of a resource list that declares one (apart: the lists that have none carry no text rules). */
const searchParam = () => v.optional(text('search', LIMITS.searchLength));

const unwrap = (schema: v.GenericSchema): v.GenericSchema =>
  schema.type === 'optional' ? (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : schema;
const isNullable = (schema: v.GenericSchema) => schema.type === 'nullable';

/**
 * The resource with its field schemas, and no more: what each action parses is built from it by
 * `withCreate`, `withUpdate` or `withListQuery` in the function that parses it, so an update
 * function carries neither the create rules nor the list query's (`withActions`: all three, for
 * what documents or checks the whole API).
 */
export function declareFields<const R extends AnyResource, E extends { [F in FieldOf<R>]: v.GenericSchema }>(resource: R, schemas: () => FieldSchemas<R, E>) {
  const given = schemas() as Record<string, v.GenericSchema>;
  // In the declared order, whatever the order of `schemas`.
  const entries = Object.fromEntries(resource.fieldNames.map((name) => [name, given[name]!])) as E;
  return { ...resource, entries };
}

/** A resource with its field schemas (declareFields). */
type Fields<R extends AnyResource, E extends v.ObjectEntries> = R & { readonly entries: E };
const writableOf = (r: AnyResource) => r.fieldNames.filter((name) => !(name in (r.readOnly ?? {})));

/** The create body: every writable field, a nullable one optional (absent means null); the declaration's rules across fields. */
export function createSchema<const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) {
  const entries = r.entries as v.ObjectEntries;
  const createEntries = Object.fromEntries(writableOf(r).map((name) => [name, isNullable(entries[name]!) ? v.optional(entries[name]!) : entries[name]!]));
  // The message is a batch's (an entry that is no object, `entries[2]`): a create's body is an object by then (handler.ts).
  const body = v.strictObject(createEntries as CreateEntries<E, KeysOf<R['readOnly']>>, `each entry must be a ${r.noun} object`);
  return v.pipe(body, v.metadata(oneOfRequired(r.createRequiresOneOf)), crossFieldCheck(declaredRules(r, 'create')));
}

/** The update body: every writable field optional, an immutable one refused with its reason; the declaration's rules across fields. */
export function updateSchema<const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) {
  const entries = r.entries as v.ObjectEntries;
  const immutable = r.immutable ?? {};
  const updateEntries = Object.fromEntries(
    writableOf(r).map((name) => [name, name in immutable ? v.optional(v.never(`${name} cannot be changed: ${immutable[name]}`)) : v.optional(unwrap(entries[name]!))]),
  );
  return v.pipe(v.strictObject(updateEntries as UpdateEntries<E, KeysOf<R['readOnly']>, KeysOf<R['immutable']>>), crossFieldCheck(declaredRules(r, 'update')));
}

/** The list query: page size and cursor, the declared filters, the order's range (its end not before its start), search. */
export function listQuerySchema<const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) {
  const entries = r.entries as v.ObjectEntries;
  const { limit, cursor } = listBase();
  // A range takes the ordered field's own schema (a timestamp: its format, years and normalising).
  const order = r.order;
  const queryEntries = {
    limit,
    cursor,
    ...Object.fromEntries((r.filters ?? []).map((name) => [name, v.optional(nonNull(unwrap(entries[name]!)))])),
    ...(order
      ? {
          [order.from]: v.optional(rangeBound(order.from, `Only items whose ${order.field} is at or after this instant (inclusive)`)),
          [order.to]: v.optional(rangeBound(order.to, `Only items whose ${order.field} is before this instant (exclusive); not before ${order.from}`)),
        }
      : {}),
    ...(r.search ? { search: searchParam() } : {}),
  };
  return v.pipe(v.strictObject(queryEntries as QueryEntries<E, NonNullable<R['filters']>[number], RangeOf<R>>), crossFieldCheck(declaredRules(r, 'list')));
}

/**
 * A batch's body (`POST /time_entries/batch`): `entries`, 1 to LIMITS.batchEntries create bodies,
 * each checked by the create's own schema, so a 400 names `entries[i].field` for every one.
 */
export function createManySchema<const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) {
  const entries = v.pipe(
    v.array(createSchema(r), `entries must be an array of ${r.noun} objects`),
    v.minLength(1, ENTRIES_COUNT),
    v.maxLength(LIMITS.batchEntries, ENTRIES_COUNT),
  );
  return v.strictObject({ entries });
}

/** What a batch create's function passes: the fields and the batch body. */
export const withCreateMany = <const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) => ({ ...r, createMany: createManySchema(r) });

/** What a create function passes the handler frame (and its domain): the fields and the create body. */
export const withCreate = <const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) => ({ ...r, create: createSchema(r) });
/** What an update function passes: the fields and the update body. */
export const withUpdate = <const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) => ({ ...r, update: updateSchema(r) });
/** What a list function passes: the fields and the list query. */
export const withListQuery = <const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) => ({ ...r, listQuery: listQuerySchema(r) });

/** The fields with every action's schemas: for what documents or checks the whole API, never a function. */
export const withActions = <const R extends AnyResource, E extends v.ObjectEntries>(r: Fields<R, E>) => ({
  ...r,
  create: createSchema(r),
  update: updateSchema(r),
  listQuery: listQuerySchema(r),
});

/** The resource with its field schemas and every action's (declareFields, then withActions). */
export const defineFields = <const R extends AnyResource, E extends { [F in FieldOf<R>]: v.GenericSchema }>(resource: R, schemas: () => FieldSchemas<R, E>) =>
  withActions(declareFields(resource, schemas));

/** JSON Schema metadata: each of `fields`, given and not null, satisfies the body (none: no constraint). */
function oneOfRequired(fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields?.length) return {};
  return { anyOf: fields.map((field) => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } })) };
}

/** A bound of a list's range: a timestamp under the usual rules, named by its parameter. */
const rangeBound = (param: string, what: string) =>
  v.pipe(
    timestampField(param),
    v.metadata({ description: `${what}: an RFC 3339 date-time with seconds and a time zone (Z or an offset), UTC year ${LIMITS.yearMin} to ${LIMITS.yearMax}` }),
  );

function nonNull(schema: v.GenericSchema): v.GenericSchema {
  return isNullable(schema) ? (schema as v.NullableSchema<v.GenericSchema, unknown>).wrapped : schema;
}

/**
 * The response schema of a resource (the OpenAPI document, contract tests), given the id prefix of
 * each kind. Apart from defineFields, so that no function's bundle holds it.
 */
export function responseSchema(resource: AnyResourceSchemas, prefixOf: (kind: string) => string) {
  const { entries } = resource;
  const references = resource.references ?? {};
  const readOnly = resource.readOnly ?? {};
  return v.strictObject({
    object: v.literal(resource.kind),
    id: idOf(resource.idPrefix),
    ...Object.fromEntries(
      resource.fieldNames.map((name) => {
        const field = unwrap(entries[name]!);
        const target = references[name];
        if (readOnly[name] === 'created_at') return [name, timestamp()];
        if (target === undefined) return [name, field];
        // A reference answers with the referenced resource's id pattern.
        return [name, isNullable(field) ? v.nullable(idOf(prefixOf(target))) : idOf(prefixOf(target))];
      }),
    ),
    workspace_id: v.string(),
    ...(resource.singleton ? { updated_at: v.nullable(timestamp()) } : { created_at: timestamp(), ...(resource.unchanging ? {} : { updated_at: timestamp() }) }),
  });
}

/** What code that parses or documents any resource may use of its schemas. */
export interface AnyResourceSchemas extends AnyResource {
  readonly entries: v.ObjectEntries;
  readonly create: v.GenericSchema;
  readonly update: v.GenericSchema;
  readonly listQuery: v.GenericSchema;
}
