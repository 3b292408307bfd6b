/**
 * The DynamoDB document client: one per process (module scope), created on first use so the
 * configuration is read once. Its timeouts, retries and per-request deadline are the budget of
 * budget.ts, which keeps every request well inside the function's timeout.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../core/config.ts';
import { SDK_BUDGET, enforceRequestDeadline, retryStrategy } from './budget.ts';

let documentClient: DynamoDBDocumentClient | undefined;
let baseClient: DynamoDBClient | undefined;

/** The plain client under the document client (the tests' and the bench's hooks attach to it). */
export function dynamoClient(): DynamoDBClient {
  dynamo();
  return baseClient!;
}

export function dynamo(): DynamoDBDocumentClient {
  if (documentClient) return documentClient;
  const { AWS_REGION, DYNAMODB_ENDPOINT } = config();
  const client = new DynamoDBClient({
    region: AWS_REGION,
    maxAttempts: SDK_BUDGET.maxAttempts,
    retryStrategy: retryStrategy(),
    requestHandler: {
      connectionTimeout: SDK_BUDGET.connectTimeoutMs,
      requestTimeout: SDK_BUDGET.requestTimeoutMs,
      // Without this the SDK only logs a warning when requestTimeout passes, and waits on.
      throwOnRequestTimeout: true,
    },
    ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT } : {}),
  });
  // The SDK's logger middleware copies every call's input and output through their schemas
  // (masking sensitive members) for a logger that, unset, discards them: about a sixth of the
  // client's CPU on a 50-item Query. No one reads it.
  client.middlewareStack.remove('loggerMiddleware');
  enforceRequestDeadline(client);
  baseClient = client;
  documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}
