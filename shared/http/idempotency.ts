/**
 * Idempotent retries of POST and PATCH, on Powertools for AWS Lambda's idempotency utility
 * with its DynamoDB persistence layer, in our single table (see docs/decisions/0005).
 *
 * The first reply (status, headers, body) is stored under the caller's key, scoped to its
 * workspace and API client, for 24 hours, and replayed to a retry with `Idempotent-Replayed:
 * true`. A refused request (any error) stores nothing, so it can be corrected and retried.
 */
import type { Context } from 'aws-lambda';
import { header, type Reply, type RetryPolicy } from './handler.ts';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { ApiError, invalidParam } from '../errors.ts';
import { JsonText } from './respond.ts';
import { dynamoClient, tableName } from '../data/dynamo.ts';
import { keys } from '../data/keys.ts';
import { TABLE } from '../data/table.ts';
import type { CallerContext } from '../domain/context.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;


interface IdempotencyPayload {
  key: string;
  /** What the key was first used for; a retry must match it exactly. */
  fingerprint: { operation: string; id: string | null; body: unknown };
}

const config = new IdempotencyConfig({
  eventKeyJmesPath: 'key',
  payloadValidationJmesPath: 'fingerprint',
  expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  throwOnNoIdempotencyKey: true,
  responseHook: (response) => {
    const reply = response as unknown as Reply;
    return { ...reply, headers: { ...reply.headers, 'Idempotent-Replayed': 'true' } } as never;
  },
});

/**
 * A reply as stored: the body as the JSON text first sent. DynamoDB keeps no key order in a map,
 * so a stored object would come back with its keys reordered; text comes back byte for byte.
 */
interface StoredReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

type Runner = (payload: IdempotencyPayload, run: () => Promise<Reply>) => Promise<StoredReply>;

/** One persistence layer per workspace: its records live in a partition of the workspace's own. */
const runners = new Map<string, Runner>();
const MAX_CACHED_WORKSPACES = 256;

function runnerFor(workspaceId: string): Runner {
  let runner = runners.get(workspaceId);
  if (runner) return runner;
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: tableName(),
    keyAttr: TABLE.partitionKey,
    sortKeyAttr: TABLE.sortKey,
    staticPkValue: keys.idempotencyPartition(workspaceId),
    expiryAttr: TABLE.ttlAttribute,
    awsSdkV3Client: dynamoClient(),
  });
  runner = makeIdempotent(async (_payload: IdempotencyPayload, run: () => Promise<Reply>): Promise<StoredReply> => {
    const reply = await run();
    return { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}), body: JSON.stringify(reply.body) };
  }, {
    persistenceStore,
    config,
    keyPrefix: 'IDEMPOTENCY',
  }) as Runner;
  if (runners.size >= MAX_CACHED_WORKSPACES) runners.delete(runners.keys().next().value!);
  runners.set(workspaceId, runner);
  return runner;
}

export function idempotencyKeyOf(headerValue: string | undefined): string | undefined {
  if (headerValue === undefined) return undefined;
  if (!KEY_PATTERN.test(headerValue)) {
    throw invalidParam(IDEMPOTENCY_KEY_HEADER, `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters, e.g. a UUID`);
  }
  return headerValue;
}

export async function runIdempotently(
  caller: CallerContext,
  key: string,
  fingerprint: IdempotencyPayload['fingerprint'],
  lambdaContext: Context,
  run: () => Promise<Reply>,
): Promise<Reply> {
  // The in-progress mark expires with the invocation, so a crashed attempt does not block retries.
  config.registerLambdaContext(lambdaContext);
  try {
    const stored = await runnerFor(caller.workspaceId)({ key: `${caller.workspaceId}/${caller.apiClientId}/${key}`, fingerprint }, run);
    // Records written before bodies were stored as text hold the object itself.
    return { ...stored, body: typeof stored.body === 'string' ? new JsonText(stored.body) : stored.body };
  } catch (error) {
    if (error instanceof IdempotencyValidationError) {
      throw new ApiError(
        'idempotency_key_reused',
        `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request in the last 24 hours: use a new key for a new request`,
        { param: IDEMPOTENCY_KEY_HEADER },
      );
    }
    if (error instanceof IdempotencyAlreadyInProgressError) {
      throw new ApiError('idempotency_key_in_use', `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed: retry shortly`, {
        param: IDEMPOTENCY_KEY_HEADER,
        headers: { 'Retry-After': '1' },
      });
    }
    // Powertools rethrows what the request itself threw (our ApiErrors) unchanged.
    throw error;
  }
}

/** The retry policy of every POST and PATCH: idempotent when the caller sends a key. */
export const idempotentRetries: RetryPolicy = async ({ operation, event, context, caller, run }) => {
  const key = idempotencyKeyOf(header(event, IDEMPOTENCY_KEY_HEADER));
  if (key === undefined) return run();
  const fingerprint = { operation, id: event.pathParameters?.id ?? null, body: fingerprintOf(event.body) };
  return runIdempotently(caller, key, fingerprint, context, run);
};

/** The body as a retry must repeat it: parsed JSON (so key order and spacing do not matter), or the raw text. */
function fingerprintOf(body: string | null): unknown {
  if (body === null) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
