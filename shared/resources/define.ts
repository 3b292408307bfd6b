/**
 * How a resource is declared, and everything derived from one declaration: its TypeScript type,
 * its response schema, its create, update and list-query schemas, and the mapping between its
 * stored item and the object the API returns. The declarations themselves are in registry.ts.
 *
 * The fields are a valibot object of the fields a caller may send or sees, in the order the API
 * returns them. Their wrappers say the rules:
 * - a plain schema is required on create;
 * - `v.optional(schema, default)` is optional on create and takes the default;
 * - `v.optional(schema)` is optional on create and filled by the resource's domain code;
 * - `v.nullable(schema)` is optional on create (absent means null) and cleared by null on update;
 * - `immutable` fields are set on create and refused on update, with the reason given;
 * - `readOnly` fields are set by the server (never sent) from the creation time.
 * Every resource also has `object`, `id`, `workspace_id`, `created_at` and `updated_at`.
 */
import * as v from 'valibot';
import { ULID_PATTERN } from '../ids.ts';
import { LIMITS, text } from '../schemas/fields.ts';
import type { IndexName } from '../data/table.ts';

export interface IndexDeclaration<F extends string> {
  /** The fields whose values name the index partition (after the workspace and the type). */
  partition: readonly F[];
  /** A field whose value leads the sort key: a second filter within the partition. */
  sortPrefix?: F;
}

export interface ResourceDeclaration<
  K extends string,
  C extends string,
  E extends v.ObjectEntries,
  RO extends keyof E & string,
  IM extends keyof E & string,
  FL extends keyof E & string,
> {
  /** The object's name (`object` of the API, DeleteResult's `object`), in snake_case. */
  kind: K;
  /** The id's prefix, before the ULID. */
  idPrefix: string;
  /** The collection's path segment under /api/v1; also the scopes' prefix and the list's name. */
  collection: C;
  /** Its group in the OpenAPI document. */
  tag: string;
  fields: v.StrictObjectSchema<E, undefined>;
  /** Set by the server from the creation time; never sent by the caller. */
  readOnly?: { readonly [F in RO]: 'created_at' };
  /** Set on create, refused on update: the reason the refusal gives. */
  immutable?: { readonly [F in IM]: string };
  /** Fields that hold the id of another resource (by kind); creating counts it on that resource. */
  references?: { readonly [F in keyof E & string]?: string };
  /** Fields a list may be filtered by (exact match), served by the indexes below. */
  filters?: readonly FL[];
  /** The text field `search` matches (case-insensitive substring). */
  search?: keyof E & string;
  /** How the generic indexes of shared/data/table.ts list this resource. */
  indexes?: { readonly [I in IndexName]?: IndexDeclaration<keyof E & string> };
  /** What to do instead of deleting, said by the 409 of a guarded delete. */
  deleteHint?: string;
  /**
   * On create, at least one of these fields must be given (not null); the domain enforces it,
   * the OpenAPI document says it as an `anyOf` of `required` sets.
   */
  createRequiresOneOf?: readonly (keyof E & string)[];
}

type Unwrapped<S> = S extends v.OptionalSchema<infer W, infer _D> ? W : S;
type NonNull<S> = S extends v.NullableSchema<infer W, infer _D> ? W : S;

type Common = { workspace_id: string; created_at: string; updated_at: string };

/** The object the API returns. */
export type ObjectOf<R extends AnyResource> = { object: R['kind']; id: string } & {
  -readonly [F in keyof R['entries']]: v.InferOutput<Unwrapped<R['entries'][F]>>;
} & Common;

type CreateEntries<E extends v.ObjectEntries, RO extends PropertyKey> = {
  [F in Exclude<keyof E, RO>]: E[F] extends v.NullableSchema<v.GenericSchema, undefined> ? v.OptionalSchema<E[F], undefined> : E[F];
};
type UpdateEntries<E extends v.ObjectEntries, RO extends PropertyKey, IM extends PropertyKey> = {
  [F in Exclude<keyof E, RO>]: F extends IM ? v.OptionalSchema<v.NeverSchema<string>, undefined> : v.OptionalSchema<Unwrapped<E[F]>, undefined>;
};
type QueryEntries<E extends v.ObjectEntries, FL extends PropertyKey> = {
  limit: typeof pageSize;
  cursor: typeof cursor;
  search: typeof search;
} & { [F in FL & keyof E]: v.OptionalSchema<NonNull<Unwrapped<E[F]>>, undefined> };

/** A time as the API answers it (ISO 8601, milliseconds, UTC). */
export const apiTimestamp = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), v.metadata({ format: 'date-time' }));
export const idOf = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}${ULID_PATTERN}$`)));

/** Every list's page size and cursor (resource lists and the events feed alike). */
const pageSizeMessage = `limit must be an integer from 1 to ${LIMITS.pageSizeMax}`;
export const pageSize = v.optional(
  v.pipe(v.string(), v.regex(/^\d{1,3}$/, pageSizeMessage), v.transform(Number), v.minValue(1, pageSizeMessage), v.maxValue(LIMITS.pageSizeMax, pageSizeMessage)),
  String(LIMITS.pageSizeDefault),
);
export const cursor = v.optional(v.pipe(v.string(), v.minLength(1, 'cursor must not be empty'), v.maxLength(1024, 'cursor is not valid')));
const search = v.optional(text('search', LIMITS.searchLength));

const unwrap = (schema: v.GenericSchema): v.GenericSchema =>
  schema.type === 'optional' ? (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : schema;
const isNullable = (schema: v.GenericSchema) => schema.type === 'nullable';

/** The resource's derived parts, beside its declaration. */
export function defineResource<
  const K extends string,
  const C extends string,
  E extends v.ObjectEntries,
  const RO extends keyof E & string = never,
  const IM extends keyof E & string = never,
  const FL extends keyof E & string = never,
>(declaration: ResourceDeclaration<K, C, E, RO, IM, FL>) {
  const entries = declaration.fields.entries as E;
  const names = Object.keys(entries) as (keyof E & string)[];
  const readOnly = (declaration.readOnly ?? {}) as Record<string, 'created_at'>;
  const immutable = (declaration.immutable ?? {}) as Record<string, string>;
  const writable = names.filter((name) => !(name in readOnly));

  const createEntries = Object.fromEntries(
    writable.map((name) => [name, isNullable(entries[name]!) ? v.optional(entries[name]!) : entries[name]!]),
  ) as CreateEntries<E, RO>;
  const updateEntries = Object.fromEntries(
    writable.map((name) => [
      name,
      name in immutable
        ? v.optional(v.never(`${name} cannot be changed: ${immutable[name]}`))
        : v.optional(unwrap(entries[name]!)),
    ]),
  ) as UpdateEntries<E, RO, IM>;
  const queryEntries = {
    limit: pageSize,
    cursor,
    ...Object.fromEntries((declaration.filters ?? []).map((name) => [name, v.optional(nonNull(unwrap(entries[name]!)))])),
    ...(declaration.search ? { search } : {}),
  } as QueryEntries<E, FL>;

  return {
    ...declaration,
    entries,
    /** The type's name in keys: `TIME_ENTRY`. */
    type: declaration.kind.toUpperCase() as Uppercase<K>,
    /** In messages: `time entry`, `time entries`. */
    noun: declaration.kind.replaceAll('_', ' '),
    plural: declaration.collection.replaceAll('_', ' '),
    fieldNames: names,
    create: v.pipe(v.strictObject(createEntries), v.metadata(oneOfRequired(declaration.createRequiresOneOf))),
    update: v.strictObject(updateEntries),
    listQuery: v.strictObject(queryEntries),
    /** The response schema (OpenAPI document, contract tests), given the id prefix of each kind. */
    object: (prefixOf: (kind: string) => string) => responseSchema(declaration, entries, names, prefixOf),
  };
}

/** JSON Schema metadata: each of `fields`, given and not null, satisfies the body (none: no constraint). */
function oneOfRequired(fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields?.length) return {};
  return { anyOf: fields.map((field) => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } })) };
}

function nonNull(schema: v.GenericSchema): v.GenericSchema {
  return isNullable(schema) ? (schema as v.NullableSchema<v.GenericSchema, unknown>).wrapped : schema;
}

function responseSchema(
  declaration: ResourceDeclaration<string, string, v.ObjectEntries, string, string, string>,
  entries: v.ObjectEntries,
  names: readonly string[],
  prefixOf: (kind: string) => string,
) {
  const references = (declaration.references ?? {}) as Record<string, string>;
  const readOnly = (declaration.readOnly ?? {}) as Record<string, string>;
  return v.strictObject({
    object: v.literal(declaration.kind),
    id: idOf(declaration.idPrefix),
    ...Object.fromEntries(
      names.map((name) => {
        const field = unwrap(entries[name]!);
        const target = references[name];
        if (name in readOnly) return [name, apiTimestamp];
        if (target === undefined) return [name, field];
        // A reference answers with the referenced resource's id pattern.
        return [name, isNullable(field) ? v.nullable(idOf(prefixOf(target))) : idOf(prefixOf(target))];
      }),
    ),
    workspace_id: v.string(),
    created_at: apiTimestamp,
    updated_at: apiTimestamp,
  });
}

/** What code that works on any resource may use of one. */
export interface AnyResource {
  readonly kind: string;
  readonly idPrefix: string;
  readonly collection: string;
  readonly tag: string;
  readonly type: string;
  readonly noun: string;
  readonly plural: string;
  readonly entries: v.ObjectEntries;
  readonly fieldNames: readonly string[];
  readonly readOnly?: Readonly<Record<string, 'created_at'>>;
  readonly immutable?: Readonly<Record<string, string>>;
  readonly references?: { readonly [field: string]: string | undefined };
  readonly filters?: readonly string[];
  readonly search?: string;
  readonly indexes?: { readonly [I in IndexName]?: IndexDeclaration<string> };
  readonly deleteHint?: string;
  readonly create: v.GenericSchema;
  readonly update: v.GenericSchema;
  readonly listQuery: v.GenericSchema;
  readonly object: (prefixOf: (kind: string) => string) => v.GenericSchema;
}

/** The stored item's API part (`data`): exactly the declared fields, absent ones null. */
export function dataOf(
  resource: Pick<AnyResource, 'fieldNames' | 'readOnly'>,
  ids: { id: string; workspaceId: string },
  input: Record<string, unknown>,
  at: string,
): Record<string, unknown> {
  const data: Record<string, unknown> = { id: ids.id };
  for (const name of resource.fieldNames) data[name] = name in (resource.readOnly ?? {}) ? at : (input[name] ?? null);
  return { ...data, workspace_id: ids.workspaceId, created_at: at, updated_at: at };
}

/** The object of a stored item, fields in their declared order. */
export function objectOf<R extends AnyResource>(resource: R, item: Record<string, unknown>): ObjectOf<R> {
  const data = (item.data ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { object: resource.kind, id: data.id };
  for (const name of resource.fieldNames) out[name] = data[name] ?? null;
  out.workspace_id = data.workspace_id;
  out.created_at = data.created_at;
  out.updated_at = data.updated_at;
  return out as ObjectOf<R>;
}

