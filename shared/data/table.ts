/**
 * The single table's physical definition: read by the CDK stack and by the local stack's
 * create-table, so both build the same thing.
 */

/** What a list returns of each kind: its API fields, plus `version` (ETag) and the search field. */
const CLIENT_ATTRIBUTES = [
  'id', 'company_name', 'company_email', 'company_address', 'website', 'status', 'language', 'business_number',
  'tps_number', 'tvq_number', 'relationship_start_date', 'workspace_id', 'created_at', 'updated_at', 'version', 'search_text',
] as const;
const PROJECT_ATTRIBUTES = [
  'id', 'name', 'description', 'status', 'billing_type', 'hourly_rate', 'fixed_price', 'amount', 'interval_count',
  'interval_unit', 'client_id', 'workspace_id', 'start_date', 'end_date', 'created_at', 'updated_at', 'version', 'search_text',
] as const;
const TIME_ENTRY_ATTRIBUTES = [
  'id', 'project_id', 'client_id', 'started_at', 'duration_minutes', 'description', 'workspace_id', 'created_at', 'updated_at', 'version',
] as const;

export const KIND_ATTRIBUTES = { CLIENT: CLIENT_ATTRIBUTES, PROJECT: PROJECT_ATTRIBUTES, TIME_ENTRY: TIME_ENTRY_ATTRIBUTES } as const;

const union = (...lists: readonly (readonly string[])[]) => [...new Set(lists.flat())].sort();

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB's TTL deletes expired records (idempotency records, for one). */
  ttlAttribute: 'expires_at',
  /** The change stream that feeds the events (old and new images: `previous_attributes`, deletes' last state). */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /**
   * Generic GSIs; their meaning per entity lives in keys.ts. Each projects exactly the fields of
   * the kinds it lists (INCLUDE), not the deletion-guard counters: a counter change then writes
   * the base item only, never its index items (see docs/data-model.md).
   */
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', kinds: ['CLIENT', 'PROJECT'], projected: union(CLIENT_ATTRIBUTES, PROJECT_ATTRIBUTES) },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', kinds: ['PROJECT', 'TIME_ENTRY'], projected: union(PROJECT_ATTRIBUTES, TIME_ENTRY_ATTRIBUTES) },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', kinds: ['PROJECT', 'TIME_ENTRY'], projected: union(PROJECT_ATTRIBUTES, TIME_ENTRY_ATTRIBUTES) },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];
