/**
 * How a resource is declared: its identity and relations, as plain data (no schemas). Every
 * function reads these (keys, references, guards, item mapping), so they cost a few hundred
 * bytes per resource in each bundle. The field schemas (valibot) of a resource are declared
 * beside it in resources.ts (`defineFields` of define.ts, by a pure call), and only the functions
 * that parse its input keep them: a read or delete function carries no field schema at all.
 *
 * A declaration names the fields a caller may send or sees, in the order the API returns them;
 * everything else that names a field (read-only, immutable, references, filters, search,
 * indexes) names one of these, and the resource's `defineFields` gives exactly one schema for
 * each (both checked by tsc). Every resource also has `object`, `id`, `workspace_id`,
 * `created_at` and `updated_at`.
 */
import type { IndexesDeclaration } from '../data/table.ts';

/** How a read-only field gets its value (ResourceDeclaration's `readOnly`). */
export type ReadOnlyField = 'created_at' | 'server';

/**
 * A list order other than creation: every list of the resource is newest first by this field
 * (ties by id), and takes a range of it, `from` inclusive and `to` exclusive. Every index's sort
 * key then holds the field's value (shared/data/keys.ts), so a change of it moves the item in
 * every list at once; the field is a timestamp, stored UTC with milliseconds, so its text sorts
 * as its instant.
 */
export interface OrderDeclaration<F extends string> {
  field: F;
  /** The list parameter of the range's inclusive start. */
  from: string;
  /** The list parameter of the range's exclusive end; a `from` after it is a 400 naming it. */
  to: string;
}

export interface ResourceDeclaration<K extends string, C extends string, F extends string, RO extends F, IM extends F, FL extends F> {
  /** The object's name (`object` of the API, DeleteResult's `object`), in snake_case. */
  kind: K;
  /** The id's prefix, before the ULID. */
  idPrefix: string;
  /** The collection's path segment under /api/v1; also the scopes' prefix and the list's name. */
  collection: C;
  /** Its group in the OpenAPI document. */
  tag: string;
  /** The fields, in the order the API returns them; their schemas are given by the resource's `defineFields`. */
  fields: readonly F[];
  /**
   * Never sent by the caller (a 400 naming it on create and update): `created_at`, set from the
   * creation time; `server`, null on create and set only by the resource's own rules (a time
   * entry's `invoice_id`, written by an invoice's lock and release).
   */
  readOnly?: { readonly [N in RO]: ReadOnlyField };
  /** Set on create, refused on update: the reason the refusal gives. */
  immutable?: { readonly [N in IM]: string };
  /** What an item stored before a field existed reads as (instead of null). */
  storedDefaults?: { readonly [N in F]?: string | number | boolean };
  /**
   * What each element of an array field reads as for the members it lacks, stored before they
   * existed (an invoice's lines before `kind` and `taxable`): the read fills them in, nothing is rewritten.
   */
  storedElementDefaults?: { readonly [N in F]?: Readonly<Record<string, string | number | boolean>> };
  /**
   * What a field stored before it existed reads as when that follows from the item's other fields
   * (an invoice's `taxes` from its one `tax_rate`): the read derives it, nothing is rewritten.
   */
  storedDerived?: { readonly [N in F]?: (data: Readonly<Record<string, unknown>>) => unknown };
  /** Fields that hold the id of another resource (by kind); creating counts it on that resource. */
  references?: { readonly [N in F]?: string };
  /** Fields a list may be filtered by (exact match), served by the indexes below. */
  filters?: readonly FL[];
  /** The text field `search` matches (case-insensitive substring). */
  search?: F;
  /** How the generic indexes of shared/data/table.ts list this resource. */
  indexes?: IndexesDeclaration<F>;
  /** What to do instead of deleting, said by the 409 of a guarded delete. */
  deleteHint?: string;
  /** Which of its items a DELETE removes, when not every one: said by the 409 of a delete its items block. */
  deletableOnly?: string;
  /**
   * On create, at least one of these fields must be given (not null); the domain enforces it,
   * the OpenAPI document says it as an `anyOf` of `required` sets.
   */
  createRequiresOneOf?: readonly F[];
  /**
   * Timestamp fields that may not come before another (`end_date: 'start_date'`): checked on
   * create and update beside the other fields' errors when a body gives both
   * (model/cross-field.ts); the domain checks a side it fills or stores.
   */
  notBefore?: { readonly [N in F]?: F };
  /** Lists ordered by a timestamp field, with a range of it (default: by creation, no range). */
  order?: OrderDeclaration<F>;
  /**
   * The resource it belongs to, by kind (a payment's invoice): its paths lie under that resource's
   * `/<collection>/{id}`, and that resource's scopes read and write it.
   */
  parent?: string;
  /**
   * The collection whose scopes read and write it, when not its own (a billing run's are the
   * invoices': it makes invoices).
   */
  scopesOf?: string;
  /** Never changed by a caller once created (a payment; a billing run, which only the service moves on): its object has no `updated_at`. */
  unchanging?: true;
  /**
   * One per workspace (the business profile): at `/<collection>`, retrieved and changed, never
   * created, listed or deleted; read as its fields' defaults until its first change, its object has
   * no `created_at` and `updated_at` null until then.
   */
  singleton?: true;
  /**
   * The media type of its document (an invoice's PDF): served at `/<collection>/{id}/document`, and
   * by its retrieve to an Accept that prefers it (contract, "Business profile and the invoice document").
   */
  document?: 'application/pdf';
}

/** The resource's names derived from its declaration, beside it. */
export function declareResource<
  const K extends string,
  const C extends string,
  const F extends string,
  const RO extends F = never,
  const IM extends F = never,
  const FL extends F = never,
>(declaration: ResourceDeclaration<K, C, F, RO, IM, FL>) {
  return {
    ...declaration,
    /** The type's name in keys: `TIME_ENTRY`. */
    type: declaration.kind.toUpperCase() as Uppercase<K>,
    /** In messages: `time entry`. */
    noun: declaration.kind.replaceAll('_', ' '),
    fieldNames: declaration.fields,
  };
}

/** In messages: `time entries`. Said where a message names it, not held by every declaration. */
export const pluralOf = (resource: { collection: string }) => resource.collection.replaceAll('_', ' ');

/** What code that works on any resource may use of one. */
export interface AnyResource {
  readonly kind: string;
  readonly idPrefix: string;
  readonly collection: string;
  readonly tag: string;
  readonly type: string;
  readonly noun: string;
  readonly fieldNames: readonly string[];
  readonly readOnly?: Readonly<Record<string, ReadOnlyField>>;
  readonly immutable?: Readonly<Record<string, string>>;
  readonly storedDefaults?: { readonly [field: string]: string | number | boolean | undefined };
  readonly storedElementDefaults?: { readonly [field: string]: Readonly<Record<string, string | number | boolean>> | undefined };
  readonly storedDerived?: { readonly [field: string]: ((data: Readonly<Record<string, unknown>>) => unknown) | undefined };
  readonly references?: { readonly [field: string]: string | undefined };
  readonly filters?: readonly string[];
  readonly search?: string;
  readonly indexes?: IndexesDeclaration<string>;
  readonly deleteHint?: string;
  readonly deletableOnly?: string;
  readonly createRequiresOneOf?: readonly string[];
  readonly notBefore?: { readonly [field: string]: string | undefined };
  readonly order?: OrderDeclaration<string>;
  readonly parent?: string;
  readonly unchanging?: true;
  readonly singleton?: true;
  readonly scopesOf?: string;
  readonly document?: 'application/pdf';
}
