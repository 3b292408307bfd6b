/**
 * The dependency failures, each as the SDK hands it to our code once its own retries
 * are spent ($metadata.attempts set), for aws-sdk-client-mock to reject with.
 */
import {
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';

const meta = (httpStatusCode: number | undefined) => ({ ...(httpStatusCode ? { httpStatusCode } : {}), attempts: 3, totalRetryDelay: 150 });

export interface DependencyErrorCase {
  label: string;
  /** A fresh error (sinon rejects with the same object each time otherwise; ours get mutated). */
  make: () => Error;
  /** The Retry-After the API answers with. */
  retryAfter: string;
}

export const DEPENDENCY_ERRORS: readonly DependencyErrorCase[] = [
  {
    label: 'ThrottlingException',
    make: () => new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: meta(400) }),
    retryAfter: '1',
  },
  {
    label: 'ProvisionedThroughputExceededException',
    make: () => new ProvisionedThroughputExceededException({ message: 'Throughput exceeds the current capacity of your table.', $metadata: meta(400) }),
    retryAfter: '1',
  },
  {
    label: 'RequestLimitExceeded',
    make: () => new RequestLimitExceeded({ message: 'Throughput exceeds the current throughput limit for your account.', $metadata: meta(400) }),
    retryAfter: '1',
  },
  {
    label: 'InternalServerError',
    make: () => new InternalServerError({ message: 'Internal server error', $metadata: meta(500) }),
    retryAfter: '5',
  },
  {
    label: 'ServiceUnavailable',
    make: () =>
      new DynamoDBServiceException({ name: 'ServiceUnavailable', $fault: 'server', message: 'Service unavailable', $metadata: meta(503) }),
    retryAfter: '5',
  },
  {
    // What a Put/Update/Delete meets when a transaction holds the item; a TransactWrite meets
    // the cancellation below instead (retried by transactWrite until it gives up).
    label: 'TransactionConflictException',
    make: () => new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: meta(400) }),
    retryAfter: '1',
  },
  {
    label: 'TimeoutError',
    make: () => Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError', $metadata: meta(undefined) }),
    retryAfter: '5',
  },
  {
    label: 'ECONNREFUSED',
    make: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', $metadata: meta(undefined) }),
    retryAfter: '5',
  },
];

/** A transaction cancelled because another transaction held one of its items. */
export const transactionConflictCancellation = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
    $metadata: meta(400),
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
  });
