/**
 * A DynamoDB Local of its own for one test file, with a client and a table created from the
 * definition the stack deploys. `stop()` destroys the client and kills the Java process.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_AWS_ENV, createTable, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb.ts';

export interface LocalTable {
  readonly local: DynamoDbLocal;
  readonly client: DynamoDBClient;
  stop(): Promise<void>;
}

export async function startLocalTable(tableName: string): Promise<LocalTable> {
  const local = await startDynamoDbLocal();
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  await createTable(client, tableName);
  return {
    local,
    client,
    stop: async () => {
      client.destroy();
      await local.stop();
    },
  };
}
