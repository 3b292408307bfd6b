/**
 * What the in-process fault tests share (invoice-faults, totals-faults, time-entry-batch-faults):
 * the functions' DynamoDB client mocked with every call passing through to the shared table, a
 * client of the test's own beside it (to make a failed write land, and to read what landed), and
 * a TransactWrite made to fail before it lands, after (the response lost), or never to return.
 * Made in `beforeAll`, once the handlers are imported (useSharedTable, importHandler).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient, type AwsStub } from 'aws-sdk-client-mock';
import { inject } from 'vitest';
import { DEPENDENCY_ERRORS } from './dependency-errors.ts';

export const timedOut = DEPENDENCY_ERRORS.find((c) => c.label === 'TimeoutError')!;
export const internal = DEPENDENCY_ERRORS.find((c) => c.label === 'InternalServerError')!;

export interface WriteFaults {
  /** The functions' client, mocked: its calls pass through unless a failure is set. */
  readonly mock: AwsStub<any, any, any>;
  /** The test's own client to the shared table (never mocked). */
  readonly raw: DynamoDBDocumentClient;
  /** Every call passes through again; the counts start afresh. */
  passThrough(): void;
  /**
   * The `k`-th TransactWrite from now (0-based) fails: `before` it lands (an InternalServerError),
   * `after` it lands (a timeout: the response lost), or `kill`: it never returns (the function
   * dies there). The others pass through.
   */
  failTransaction(k: number, when: 'before' | 'after' | 'kill'): void;
  restore(): void;
}

export async function mockWrites(): Promise<WriteFaults> {
  const { dynamo } = await import('../../shared/data/dynamo.ts');
  const mock = mockClient(dynamo());
  mock.send.callThrough();
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const passThrough = () => {
    mock.reset();
    mock.send.callThrough();
  };
  return {
    mock,
    raw,
    passThrough,
    failTransaction(k, when) {
      passThrough();
      let n = 0;
      mock.on(TransactWriteCommand).callsFake(async (input: unknown) => {
        if (n++ !== k) return raw.send(new TransactWriteCommand(input as never));
        if (when === 'kill') return new Promise(() => undefined);
        if (when === 'after') await raw.send(new TransactWriteCommand(input as never));
        throw (when === 'after' ? timedOut : internal).make();
      });
    },
    restore() {
      mock.restore();
      raw.destroy();
    },
  };
}
