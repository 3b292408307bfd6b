/**
 * The time budget of DynamoDB calls (docs/decisions/0007-dependency-failures.md): the SDK's
 * timeouts and bounded retries, and a per-request deadline after which no new attempt starts,
 * so that a request always ends well inside its function's timeout, as a 503 when DynamoDB is
 * slow or gone.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Each function's timeout (the CDK stack and the local gateway set it): well under API Gateway's 29 s. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

export const SDK_BUDGET = {
  /** TCP (and TLS) connect to DynamoDB; in-region it takes a few ms. */
  connectTimeoutMs: 1000,
  /** Waiting for the answer once connected; DynamoDB answers in single-digit ms. */
  requestTimeoutMs: 1500,
  /** The first try and two retries (throttling, 5xx, timeouts, refused or reset connections). */
  maxAttempts: 3,
  /** Full jitter: a retry waits a random time up to this cap (ms) for retry n = 1, 2, ... */
  backoffCapMs: (retry: number) => 100 * 2 ** (retry - 1),
  /** No new attempt starts this long after the request began (the request's deadline). */
  requestDeadlineMs: 6000,
} as const;

/** One attempt's longest possible duration: connected just before the connect timeout, then no answer. */
export const worstAttemptMs = () => SDK_BUDGET.connectTimeoutMs + SDK_BUDGET.requestTimeoutMs;

/** One call's worst case on its own: every attempt times out, every backoff at its cap. */
export function worstCallMs(): number {
  let total = SDK_BUDGET.maxAttempts * worstAttemptMs();
  for (let retry = 1; retry < SDK_BUDGET.maxAttempts; retry++) total += SDK_BUDGET.backoffCapMs(retry);
  return total;
}

/**
 * A request's worst case, however many calls it makes: the last attempt may start just before
 * the deadline and then take its longest.
 */
export const worstRequestMs = () => SDK_BUDGET.requestDeadlineMs + worstAttemptMs();

/**
 * The SDK retry strategy of the budget: the SDK's standard strategy (the one every client holds),
 * with our attempts and our backoff, throttling or not (so the base delay it sets is not used).
 */
export function retryStrategy(random: () => number = Math.random): StandardRetryStrategy {
  return new StandardRetryStrategy({
    maxAttempts: SDK_BUDGET.maxAttempts,
    backoff: {
      // Called with the retries made so far: the next one is retry `retries + 1`.
      computeNextBackoffDelay: (retries) => Math.floor(random() * SDK_BUDGET.backoffCapMs(retries + 1)),
      setDelayBase: () => {},
    },
  });
}

/** Thrown instead of starting an attempt past the request's deadline; the SDK does not retry it. */
export class RequestDeadlineExceeded extends Error {
  override readonly name = 'RequestDeadlineExceeded';
  constructor() {
    super('The request used up its time budget for DynamoDB calls');
  }
}

const deadlines = new AsyncLocalStorage<number>();

/** Runs one request's work with its deadline; calls outside a request have none. */
export function withRequestDeadline<T>(work: () => Promise<T>, startedAt = Date.now()): Promise<T> {
  return deadlines.run(startedAt + SDK_BUDGET.requestDeadlineMs, work);
}

/** Installs the deadline check before every attempt (inside the SDK's retry loop). */
export function enforceRequestDeadline(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const deadline = deadlines.getStore();
      if (deadline !== undefined && Date.now() >= deadline) throw new RequestDeadlineExceeded();
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'requestDeadline', override: true },
  );
}
