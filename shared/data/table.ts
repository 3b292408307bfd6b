/**
 * The single table's physical definition: read by the CDK stack and by the local stack's
 * create-table, so both build the same thing.
 */

/** Where an item keeps its API fields: one map, so the indexes project one attribute for all of them. */
export const DATA_ATTRIBUTE = 'data';
/** The folded copy of a resource's searched field (see shared/domain/paging.ts). */
export const SEARCH_ATTRIBUTE = 'search_text';
/** Optimistic concurrency: every change increments it; ETag and If-Match name it. */
export const VERSION_ATTRIBUTE = 'version';

/**
 * What every index projects besides the keys: the API fields (one map attribute, whatever the
 * resources and their fields) and the search field. Not the version or the deletion-guard
 * counters: a counter change then writes the base item only, never its index items.
 */
const PROJECTED = [DATA_ATTRIBUTE, SEARCH_ATTRIBUTE] as const;

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB's TTL deletes expired records (idempotency records, for one). */
  ttlAttribute: 'expires_at',
  /** The change stream that feeds the events (old and new images: `previous_attributes`, deletes' last state). */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /** Generic GSIs; what each holds for a resource is declared in shared/resources/registry.ts. */
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projected: PROJECTED },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projected: PROJECTED },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projected: PROJECTED },
    { name: 'GSI4', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projected: PROJECTED },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];
