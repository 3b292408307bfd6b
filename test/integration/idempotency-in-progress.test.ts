/**
 * A retry that arrives while the first request still runs: deterministic here, by holding the
 * first request open in process (over HTTP the window is too short to hit on purpose).
 * Runs against the DynamoDB Local of the test stack.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Context } from 'aws-lambda';
import { ApiError } from '../../shared/errors.ts';
import type { Reply } from '../../shared/http/handler.ts';
import { JsonText } from '../../shared/http/respond.ts';

let runIdempotently: typeof import('../../shared/http/idempotency.ts').runIdempotently;

beforeAll(async () => {
  Object.assign(process.env, {
    TABLE_NAME: inject('tableName'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  ({ runIdempotently } = await import('../../shared/http/idempotency.ts'));
});

const caller = () => ({ workspaceId: `ws-${randomUUID().slice(0, 8)}`, apiClientId: 'local-test', scopes: [], requestId: 'r' });
const lambdaContext = (ms: number) => {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};
const reply: Reply = { status: 201, body: { object: 'client', id: 'cli_x' }, headers: { Location: '/api/v1/clients/cli_x' } };
/** What the runner hands back: the body as the JSON text first sent, replayed byte for byte. */
const sent = { ...reply, body: new JsonText(JSON.stringify(reply.body)) };

describe('a retry while the first request runs', () => {
  it('is refused with 409 idempotency_key_in_use and Retry-After, then replayed once the first is done', async () => {
    const who = caller();
    const key = randomUUID();
    const fingerprint = { operation: 'createClient', id: null, body: { company_name: 'A' } };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const first = runIdempotently(who, key, fingerprint, lambdaContext(10_000), async () => {
      runs++;
      await held;
      return reply;
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the in-progress mark is written

    const retry = await runIdempotently(who, key, fingerprint, lambdaContext(10_000), async () => {
      runs++;
      return reply;
    }).catch((error: unknown) => error);
    expect(retry).toBeInstanceOf(ApiError);
    expect((retry as ApiError).type).toBe('idempotency_key_in_use');
    expect((retry as ApiError).status).toBe(409);
    expect((retry as ApiError).headers['Retry-After']).toBe('1');

    release();
    expect(await first).toEqual(sent);
    const replayed = await runIdempotently(who, key, fingerprint, lambdaContext(10_000), async () => {
      runs++;
      return reply;
    });
    expect(replayed.headers?.['Idempotent-Replayed']).toBe('true');
    expect(replayed.body).toEqual(sent.body);
    expect(runs).toBe(1);
  });

  it('does not block a retry once the first attempt\'s invocation has timed out', async () => {
    const who = caller();
    const key = randomUUID();
    const fingerprint = { operation: 'createClient', id: null, body: {} };
    // The first attempt "crashes": its invocation had 200 ms left and never completes.
    void runIdempotently(who, key, fingerprint, lambdaContext(200), () => new Promise<Reply>(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const retry = await runIdempotently(who, key, fingerprint, lambdaContext(10_000), async () => reply);
    expect(retry).toEqual(sent);
  });
});
