/**
 * The single table's physical definition: read by the CDK stack and by the local stack's
 * create-table, so both build the same thing.
 */
export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB's TTL deletes expired records (idempotency records, for one). */
  ttlAttribute: 'expires_at',
  /** Generic GSIs; their meaning per entity lives in keys.ts. All project every attribute. */
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];
