/**
 * Least privilege on the table, declared once: what each kind of function may do, and the one
 * helper that grants it. Read routes only read; write routes also write (transactions are
 * authorized per item action, so TransactWriteItems needs nothing beyond these); the authorizer
 * only looks up the API-client registry item by key. Nobody gets `dynamodb:*`, Scan or
 * table-management actions.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { TABLE } from '../shared/data/table.ts';
import type { TableAccess } from '../shared/api/routes.ts';

const READ = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'] as const;
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

export type { TableAccess };

export const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  none: [],
  read: READ,
  write: [...READ, ...WRITE],
  authorizer: ['dynamodb:GetItem'],
  // The stream consumer (shared/webhooks/consumer.ts): GetItem (deletion records, the sequence),
  // Query (the workspace's webhook endpoints, on the table), transactions of Put (change records)
  // and Update (the sequence), and BatchWriteItem of Puts (feed items, type-view copies:
  // decision 0018). No Delete, no index.
  events: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
  // The delivery worker (shared/webhooks/attempt.ts): the endpoint and the event, by key.
  getItem: ['dynamodb:GetItem'],
};

/** Levels whose functions never query an index: granted on the table alone. */
const TABLE_ONLY: readonly TableAccess[] = ['authorizer', 'events', 'getItem'];

/**
 * Gives a function the table's name (TABLE_NAME) and exactly the actions of its access level,
 * on the table and (for routes, which query the GSIs) on each named index: no `index/*` wildcard.
 */
export function bindTable(fn: lambda.Function, table: dynamodb.ITable, access: TableAccess): void {
  if (access === 'none') return; // the public OpenAPI document: no table at all
  fn.addEnvironment('TABLE_NAME', table.tableName);
  const resources = TABLE_ONLY.includes(access)
    ? [table.tableArn]
    : [table.tableArn, ...TABLE.indexes.map((index) => `${table.tableArn}/index/${index.name}`)];
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources }));
}
