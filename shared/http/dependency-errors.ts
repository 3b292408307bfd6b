/**
 * A dependency's failure as the API answers it: 503 service_unavailable with Retry-After, and
 * one structured log line without a stack (the stack of an SDK error names only SDK internals;
 * a bug keeps its stack, logged by the handler frame).
 */
import * as logger from '../core/log.ts';
import { type ApiError, serviceUnavailable } from '../core/errors.ts';
import { dependencyFailureOf } from '../data/faults.ts';

export function asServiceUnavailable(
  error: unknown,
  where: { operation: string; requestId: string },
): ApiError | undefined {
  const failure = dependencyFailureOf(error);
  if (!failure) return undefined;
  logger.error('Dependency failure', {
    // DynamoDB, unless the error names another (the cursor key's Secrets Manager, shared/core/config.ts).
    dependency: (error as { dependency?: string }).dependency ?? 'dynamodb',
    errorName: failure.name,
    operation: where.operation,
    requestId: where.requestId,
    attempts: failure.attempts ?? null,
    retryAfterSeconds: failure.retryAfterSeconds,
  });
  return serviceUnavailable(failure.retryAfterSeconds);
}
