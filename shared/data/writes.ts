/**
 * Write helpers shared by the resources: update-expression building, transactions retried on
 * conflicts, and reading the item DynamoDB hands back when a condition fails.
 */
import { ConditionalCheckFailedException, TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from './dynamo.ts';

export interface UpdateParts {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** `SET #a = :a, ...` for every field given (null stores DynamoDB NULL: the field is cleared). */
export function setExpression(fields: Record<string, unknown>): UpdateParts {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  return { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** The item a failed condition returned (ReturnValuesOnConditionCheckFailure: ALL_OLD), if any. */
export function itemOfConditionFailure(error: unknown): Record<string, unknown> | undefined | null {
  if (error instanceof ConditionalCheckFailedException) {
    return error.Item ? unmarshall(error.Item) : undefined;
  }
  return null; // not a condition failure
}

export type CancellationCode = string | undefined;

export interface CancelledTransaction {
  codes: CancellationCode[];
  items: (Record<string, unknown> | undefined)[];
}

const MAX_TRANSACTION_ATTEMPTS = 6;

/**
 * Runs a transaction; retries (with jittered backoff) only when DynamoDB cancelled it for a
 * conflict with a concurrent transaction. Other cancellations come back to the caller, which
 * knows what each condition meant.
 */
export async function transactWrite(input: TransactWriteCommandInput): Promise<CancelledTransaction | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand(input));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const codes = reasons.map((r) => (r.Code === 'None' ? undefined : r.Code));
      const conflicted = codes.some((c) => c === 'TransactionConflict');
      const conditionFailed = codes.some((c) => c === 'ConditionalCheckFailed');
      if (conflicted && !conditionFailed && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await sleep(Math.random() * 25 * 2 ** attempt);
        continue;
      }
      if (!conditionFailed) {
        // A conflict that outlasted our retries ends as a 503 (faults.ts); say how hard we tried.
        if (conflicted) error.$metadata = { ...error.$metadata, attempts: attempt };
        throw error;
      }
      return {
        codes,
        items: reasons.map((r) => (r.Item ? unmarshall(r.Item as Record<string, AttributeValue>) : undefined)),
      };
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The If-Match part of a condition expression over the attribute `ref` (e.g. `#version`):
 * `ref IN (:if_match_0, ...)`, with its values; none when there is no precondition. An empty
 * list compares with a version no item has, so it can only fail.
 */
export function versionCondition(ifMatch: readonly number[] | undefined, ref: string): { expression: string; values: Record<string, number> } | undefined {
  if (ifMatch === undefined) return undefined;
  const versions = ifMatch.length > 0 ? ifMatch : [-1];
  const values = Object.fromEntries(versions.map((version, i) => [`:if_match_${i}`, version]));
  return { expression: `${ref} IN (${Object.keys(values).join(', ')})`, values };
}
