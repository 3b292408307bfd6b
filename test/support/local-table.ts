/**
 * A DynamoDB Local of its own for one test file, with one table of the stack's definition.
 * `stop()` destroys the clients and kills the Java process (also when the table cannot be made).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_AWS_ENV, createTable, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb.ts';
import type { StackConfig } from '../../scripts/integration-create.ts';

export interface LocalTable {
  readonly local: DynamoDbLocal;
  readonly client: DynamoDBClient;
  readonly db: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

export async function startLocalTable(tableName: string): Promise<LocalTable> {
  const local = await startDynamoDbLocal();
  const dynamodb = new DynamoDBClient({
    endpoint: local.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  try {
    await createTable(dynamodb, tableName);
  } catch (error) {
    dynamodb.destroy();
    await local.stop();
    throw error;
  }
  return {
    local,
    client: dynamodb,
    db: DynamoDBDocumentClient.from(dynamodb),
    stop: async () => {
      dynamodb.destroy();
      await local.stop();
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
