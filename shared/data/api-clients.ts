/**
 * The API-client registry: each API client (Cognito app client) belongs to exactly one
 * workspace. The authorizer resolves the workspace of a request from here, never from the request.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as keys from './keys.ts';
import type { PlanName } from '../core/plan-limits.ts';

/** What a workspace id may be: it becomes part of every key of the workspace's data. */
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * How long the authorizer keeps a registration in memory. Registrations change rarely; the cache
 * spares a read on most policy evaluations. With API Gateway's policy cache
 * (AUTHORIZER_CACHE_TTL_SECONDS) it bounds how long a revoked integration's tokens keep working.
 */
export const REGISTRY_CACHE_SECONDS = 60;

export interface ApiClientRegistration {
  api_client_id: string;
  workspace_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  /** Usage plan (shared/core/plan-limits.ts). Absent on items from before usage plans. */
  plan?: PlanName;
  /** The API Gateway API key of the integration: its id (plan changes, revocation, usage report)... */
  api_key_id?: string;
  /**
   * ...and its value, which the authorizer returns as usageIdentifierKey. Not a credential: the
   * API takes keys from the authorizer only, so a caller cannot present it.
   */
  usage_key?: string;
}

export async function findApiClient(db: DynamoDBDocumentClient, table: string, apiClientId: string): Promise<ApiClientRegistration | undefined> {
  const out = await db.send(new GetCommand({ TableName: table, Key: keys.apiClient(apiClientId) }));
  return out.Item as ApiClientRegistration | undefined;
}

/** Registers (or re-registers) an API client; creates its workspace record on first use. */
export async function registerApiClient(
  db: DynamoDBDocumentClient,
  table: string,
  registration: Omit<ApiClientRegistration, 'created_at'>,
  now = new Date(),
): Promise<ApiClientRegistration> {
  const created_at = now.toISOString();
  try {
    await db.send(
      new PutCommand({
        TableName: table,
        Item: { ...keys.workspace(registration.workspace_id), workspace_id: registration.workspace_id, created_at },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error; // the workspace exists already
  }
  const item = { ...registration, created_at };
  await db.send(new PutCommand({ TableName: table, Item: { ...keys.apiClient(registration.api_client_id), ...item } }));
  return item;
}

/** Moves an existing registration to another plan; false when there is no such API client. */
export async function setApiClientPlan(
  db: DynamoDBDocumentClient,
  table: string,
  apiClientId: string,
  change: { plan: PlanName; api_key_id: string; usage_key: string },
): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.apiClient(apiClientId),
        UpdateExpression: 'SET #plan = :plan, api_key_id = :id, usage_key = :key',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':plan': change.plan, ':id': change.api_key_id, ':key': change.usage_key },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Removes a registration: the authorizer answers its tokens 401 once its caches expire. */
export async function deleteApiClient(db: DynamoDBDocumentClient, table: string, apiClientId: string): Promise<ApiClientRegistration | undefined> {
  const out = await db.send(new DeleteCommand({ TableName: table, Key: keys.apiClient(apiClientId), ReturnValues: 'ALL_OLD' }));
  return out.Attributes as ApiClientRegistration | undefined;
}
