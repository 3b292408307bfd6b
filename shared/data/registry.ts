/**
 * The API-client registry: each API client (Cognito app client) belongs to exactly one
 * workspace. The authorizer resolves the workspace of a request from here, never from the request.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';

/** What a workspace id may be: it becomes part of every key of the workspace's data. */
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface ApiClientRegistration {
  api_client_id: string;
  workspace_id: string;
  name: string;
  scopes: string[];
  created_at: string;
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
