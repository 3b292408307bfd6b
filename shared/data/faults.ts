/**
 * Which errors are a dependency's failure (the caller should retry: 503 with Retry-After) rather
 * than a bug (500). Classification is the SDK's own (the same predicates its retry strategy uses),
 * plus what the SDK does not retry: transactions cancelled for conflicts or throttling that
 * outlasted our retries, and the request deadline of budget.ts.
 * See docs/decisions/0007-dependency-failures.md.
 */
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import { RETRY_AFTER_SECONDS } from '../core/errors.ts';

export interface DependencyFailure {
  /** The error's name as DynamoDB or the SDK gave it (or its code, for a network error). */
  name: string;
  /** Attempts the SDK (or our transaction retries) made before giving up. */
  attempts: number | undefined;
  retryAfterSeconds: number;
}

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  $fault?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
  CancellationReasons?: { Code?: string }[];
}

/** Cancellation codes that say "busy, try again", not "your request is wrong". */
const BUSY_CANCELLATION_CODES = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/** DynamoDB's names for a write that ran into a transaction in progress on the same item. */
const BUSY_NAMES = new Set(['TransactionConflictException', 'TransactionInProgressException']);

/** Server-side failures by name, also when an error carries no HTTP status (mocks, wrappers). */
const UNAVAILABLE_NAMES = new Set(['InternalServerError', 'ServiceUnavailable', 'ServiceUnavailableException', 'RequestDeadlineExceeded']);

/** The dependency failure an error is, or undefined when it is not one (a bug, or a refusal the domain handles). */
export function dependencyFailureOf(error: unknown): DependencyFailure | undefined {
  // Wrappers keep the SDK error as their cause: look through them.
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = (e as ErrorLike).cause, depth++) {
    const found = classify(e as ErrorLike);
    if (found) return found;
  }
  return undefined;
}

function classify(e: ErrorLike): DependencyFailure | undefined {
  const name = e.name ?? 'Error';
  const attempts = e.$metadata?.attempts;
  const busy = (n = name): DependencyFailure => ({ name: n, attempts, retryAfterSeconds: RETRY_AFTER_SECONDS.busy });
  const unavailable = (n = name): DependencyFailure => ({ name: n, attempts, retryAfterSeconds: RETRY_AFTER_SECONDS.unavailable });

  if (name === 'TransactionCanceledException') {
    const codes = (e.CancellationReasons ?? []).map((r) => r.Code).filter((c) => c && c !== 'None');
    return codes.length > 0 && codes.every((c) => BUSY_CANCELLATION_CODES.has(c!)) ? busy(`${name}[${[...new Set(codes)].join(',')}]`) : undefined;
  }
  if (BUSY_NAMES.has(name) || isThrottlingError(e as never)) return busy();
  if (UNAVAILABLE_NAMES.has(name) || e.$fault === 'server' || isTransientError(e as never)) {
    return unavailable(name === 'Error' && e.code ? e.code : name);
  }
  return undefined;
}
