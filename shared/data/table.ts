/**
 * The single table's physical definition: read by the CDK stack and by the local stack's
 * create-table, so both build the same thing.
 */

/** Where an item keeps its API fields: one map, so the indexes project one attribute for all of them. */
export const DATA_ATTRIBUTE = 'data';
/** The folded copy of a resource's searched field (see shared/data/paging.ts). */
export const SEARCH_ATTRIBUTE = 'search_text';
/** Optimistic concurrency: every change increments it; ETag and If-Match name it. */
export const VERSION_ATTRIBUTE = 'version';
/** The item attribute naming the request that made the item's current version. */
export const REQUEST_ID_ATTRIBUTE = 'request_id';

/**
 * What every index projects besides the keys: the API fields (one map attribute, whatever the
 * resources and their fields) and the search field. Not the version or the deletion-guard
 * counters: a counter change then writes the base item only, never its index items.
 */
const PROJECTED = [DATA_ATTRIBUTE, SEARCH_ATTRIBUTE] as const;

/** The generic GSIs, by name; what each holds for a resource is declared in shared/model/resources.ts. */
export const INDEX_NAMES = ['GSI1', 'GSI2', 'GSI3', 'GSI4', 'GSI5'] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/**
 * The sort key of GSI1 to GSI4: one attribute for all four. An item's sort key is the same in
 * every index without a sort prefix (`<TYPE>#[<order value>#]<id>`, shared/data/keys.ts), so it is
 * stored once: a time entry, in four indexes, holds one copy instead of four, and a locked entry
 * stays under 1 KB (docs/decisions/0027-one-index-sort-key.md).
 */
export const SHARED_SORT_KEY = 'GSISK';
/** The index whose sort key is its own (`GSI5SK`): the only one a declaration may give a sort prefix. */
export const PREFIXED_INDEX = 'GSI5' satisfies IndexName;
/** An index's sort key attribute: the shared one, or (GSI5) its own. Its partition key is `<name>PK`. */
export const sortKeyOf = (name: IndexName) => (name === PREFIXED_INDEX ? 'GSI5SK' : SHARED_SORT_KEY);

/** Epoch seconds; DynamoDB's TTL deletes expired records (idempotency records, for one). */
export const TTL_ATTRIBUTE = 'expires_at';

/** The table as the stack and the local stack's create-table build it. */
export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: TTL_ATTRIBUTE,
  /** The change stream that feeds the events (old and new images: `previous_attributes`, deletes' last state). */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /** Each index's keys: `<name>PK` and sortKeyOf. */
  indexes: INDEX_NAMES.map((name) => ({ name, partitionKey: `${name}PK` as const, sortKey: sortKeyOf(name), projected: PROJECTED })),
} as const;

/** How a resource declaration (shared/model/declare.ts) names its indexes: said here, beside the indexes themselves, so keys.ts derives keys without the model. */
export interface IndexDeclaration<F extends string> {
  /** The fields whose values name the index partition (after the workspace and the type). */
  partition: readonly F[];
  /** A field whose value leads the sort key: a second filter within the partition (GSI5 alone: IndexesDeclaration). */
  sortPrefix?: F;
  /**
   * Its partitions are small and bounded (an invoice's entries, at most 2,000): it serves every
   * list whose filters name its partition, before any index serving more of them, the others read
   * as a filter over at most that bound (shared/data/keys.ts, listSource).
   */
  bounded?: true;
}

/**
 * Which indexes list a resource, and how. GSI1 to GSI4 share one sort key attribute, the same for
 * every index of an item (docs/decisions/0027-one-index-sort-key.md): only GSI5, whose sort key is
 * its own, may lead it with a field.
 */
export type IndexesDeclaration<F extends string> = {
  readonly [I in IndexName]?: I extends typeof PREFIXED_INDEX ? IndexDeclaration<F> : Omit<IndexDeclaration<F>, 'sortPrefix'> & { sortPrefix?: never };
};
