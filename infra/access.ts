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

const READ = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'] as const;
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

export type TableAccess = 'read' | 'write' | 'authorizer' | 'eventsConsumer' | 'webhookDelivery' | 'none';

export const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  none: [],
  read: READ,
  write: [...READ, ...WRITE],
  authorizer: ['dynamodb:GetItem'],
  /** Reads deletion records and endpoints, appends events (a transaction of Update and Puts). */
  eventsConsumer: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /** Reads the endpoint and the event it posts. */
  webhookDelivery: ['dynamodb:GetItem'],
};

/** The access levels that never query an index. */
const TABLE_ONLY: ReadonlySet<TableAccess> = new Set(['authorizer', 'eventsConsumer', 'webhookDelivery']);

/**
 * Gives a function the table's name (TABLE_NAME) and exactly the actions of its access level,
 * on the table and (for routes, which query the GSIs) on each named index: no `index/*` wildcard.
 * The events' functions and the authorizer touch the table only, never an index.
 */
export function bindTable(fn: lambda.Function, table: dynamodb.ITable, access: TableAccess): void {
  if (access === 'none') return; // the public OpenAPI document: no table at all
  fn.addEnvironment('TABLE_NAME', table.tableName);
  const resources = TABLE_ONLY.has(access)
    ? [table.tableArn]
    : [table.tableArn, ...TABLE.indexes.map((index) => `${table.tableArn}/index/${index.name}`)];
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources }));
}
