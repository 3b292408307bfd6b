/**
 * A table of the stack's definition for one test file, on the run's DynamoDB Local
 * (`dynamoEndpoint`: the integration projects' stack's, shared with the infra projects,
 * support/shared-setup.ts): one Java process per run instead of one per file. Each file
 * names its own table; `stop()` deletes it and destroys the clients.
 */
import { inject } from 'vitest';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_AWS_ENV, createTable } from '../../infra/local/dynamodb.ts';
import type { StackConfig } from '../../scripts/integration-create.ts';

export interface LocalTable {
  readonly local: { readonly endpoint: string };
  readonly client: DynamoDBClient;
  readonly db: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

export async function startLocalTable(tableName: string): Promise<LocalTable> {
  const endpoint = inject('dynamoEndpoint');
  const dynamodb = new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  try {
    await createTable(dynamodb, tableName);
  } catch (error) {
    dynamodb.destroy();
    throw error;
  }
  return {
    local: { endpoint },
    client: dynamodb,
    db: DynamoDBDocumentClient.from(dynamodb),
    stop: async () => {
      try {
        await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        dynamodb.destroy();
      }
    },
  };
}

/** The deployed stack as the operator scripts see it (cdk-outputs.json), around a test table. */
export const testStack = (tableName: string): StackConfig => ({
  userPoolId: 'eu-west-1_AbCdEf123',
  tableName,
  tokenEndpoint: 'https://timebill-123456789012.auth.eu-west-1.amazoncognito.com/oauth2/token',
  resourceServerIdentifier: 'timebill-api',
  region: 'eu-west-1',
  usagePlanIds: { default: 'plan-default', large: 'plan-large' },
});
