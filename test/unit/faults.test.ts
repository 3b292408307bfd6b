/**
 * Which errors are a dependency's failure (503 with Retry-After) and which are bugs (500).
 */
import { ConditionalCheckFailedException, DynamoDBServiceException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dependencyFailureOf } from '../../shared/data/faults.ts';
import { RequestDeadlineExceeded } from '../../shared/data/budget.ts';
import { DEPENDENCY_ERRORS, transactionConflictCancellation } from '../support/dependency-errors.ts';

describe('dependencyFailureOf', () => {
  for (const c of DEPENDENCY_ERRORS) {
    it(`${c.label} is a dependency failure, Retry-After ${c.retryAfter} s, with its attempts`, () => {
      const failure = dependencyFailureOf(c.make());
      expect(failure).toEqual({ name: c.label, attempts: 3, retryAfterSeconds: Number(c.retryAfter) });
    });
  }

  it('a transaction cancelled for conflicts that outlasted the retries is one (busy)', () => {
    expect(dependencyFailureOf(transactionConflictCancellation())).toMatchObject({
      name: 'TransactionCanceledException[TransactionConflict]',
      retryAfterSeconds: 1,
    });
  });

  it('a transaction cancelled by a condition, or by a validation error, is not', () => {
    const cancelled = (code: string) =>
      new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: code }] });
    expect(dependencyFailureOf(cancelled('ConditionalCheckFailed'))).toBeUndefined();
    expect(dependencyFailureOf(cancelled('ValidationError'))).toBeUndefined();
  });

  it('the request deadline is one (the dependency did not answer in time)', () => {
    expect(dependencyFailureOf(new RequestDeadlineExceeded())).toMatchObject({ name: 'RequestDeadlineExceeded', retryAfterSeconds: 5 });
  });

  it('finds the SDK error inside a wrapper (an error whose cause it is)', () => {
    const wrapped = new Error('Failed to save the record', { cause: DEPENDENCY_ERRORS[0]!.make() });
    expect(dependencyFailureOf(wrapped)).toMatchObject({ name: 'ThrottlingException', attempts: 3 });
  });

  it('bugs and refusals are not: validation errors, failed conditions, type errors', () => {
    const validation = new DynamoDBServiceException({
      name: 'ValidationException',
      $fault: 'client',
      message: 'One or more parameter values were invalid',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(dependencyFailureOf(validation)).toBeUndefined();
    expect(dependencyFailureOf(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))).toBeUndefined();
    expect(dependencyFailureOf(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeUndefined();
    expect(dependencyFailureOf('a string')).toBeUndefined();
    expect(dependencyFailureOf(new Error('failed', { cause: new TypeError('bug') }))).toBeUndefined();
  });
});
