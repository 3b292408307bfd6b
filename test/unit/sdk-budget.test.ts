/**
 * The time budget of DynamoDB calls (docs/decisions/0007-dependency-failures.md), tested against
 * a server that never answers or drops every connection: the real SDK client, as the functions
 * build it, gives up after its bounded attempts, and a request never starts an attempt past its
 * deadline. The bounds asserted are the budget's worst cases, not speed targets.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mode: 'hang' | 'reset' = 'hang';
let requests = 0;
const sockets = new Set<Socket>();
const server: Server = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  if (mode === 'reset') return socket.resetAndDestroy();
  socket.on('data', (chunk) => {
    if (chunk.toString('latin1').startsWith('POST ')) requests++; // one per attempt; never answered
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;

Object.assign(process.env, {
  TABLE_NAME: 'timebill-unit',
  DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
});
const { dynamo, dynamoClient } = await import('../../shared/data/dynamo.ts');
const { FUNCTION_TIMEOUT_SECONDS, SDK_BUDGET, worstAttemptMs, worstCallMs, worstRequestMs, withRequestDeadline, RequestDeadlineExceeded } = await import('../../shared/data/budget.ts');
const { dependencyFailureOf } = await import('../../shared/data/faults.ts');

const get = () => dynamo().send(new GetCommand({ TableName: 'timebill-unit', Key: { PK: 'a', SK: 'b' } }));

async function failure(call: () => Promise<unknown>): Promise<{ error: Error & { $metadata?: { attempts?: number } }; ms: number }> {
  const started = Date.now();
  try {
    await call();
  } catch (error) {
    return { error: error as Error, ms: Date.now() - started };
  }
  throw new Error('the call succeeded');
}

describe('the SDK budget', { timeout: 60_000 }, () => {
  beforeAll(() => {
    requests = 0;
  });
  afterAll(async () => {
    dynamo().destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('on paper: a request ends well inside the function timeout, however many calls it makes', () => {
    expect(worstAttemptMs()).toBe(SDK_BUDGET.connectTimeoutMs + SDK_BUDGET.requestTimeoutMs);
    expect(worstRequestMs()).toBeLessThanOrEqual(FUNCTION_TIMEOUT_SECONDS * 1000 - 1000);
    // One call alone, all attempts timing out, fits too.
    expect(worstCallMs()).toBeLessThanOrEqual(FUNCTION_TIMEOUT_SECONDS * 1000 - 1000);
  });

  it('the client does not copy each call through the logger middleware, which would only feed a discarding logger', () => {
    const middleware = dynamoClient().middlewareStack.identify();
    expect(middleware.some((name) => name.startsWith('retryMiddleware'))).toBe(true);
    expect(middleware.filter((name) => name.startsWith('loggerMiddleware'))).toEqual([]);
  });

  it('a DynamoDB that never answers: the call makes exactly maxAttempts attempts, then a TimeoutError (503)', async () => {
    mode = 'hang';
    requests = 0;
    const { error, ms } = await failure(get);
    expect(error.name).toBe('TimeoutError');
    expect(error.$metadata?.attempts).toBe(SDK_BUDGET.maxAttempts);
    expect(requests).toBe(SDK_BUDGET.maxAttempts);
    expect(ms).toBeGreaterThanOrEqual(SDK_BUDGET.maxAttempts * SDK_BUDGET.requestTimeoutMs - 50);
    expect(ms).toBeLessThanOrEqual(worstCallMs() + 500);
    expect(dependencyFailureOf(error)).toMatchObject({ name: 'TimeoutError', attempts: SDK_BUDGET.maxAttempts, retryAfterSeconds: 5 });
  });

  it('a DynamoDB that drops connections: bounded attempts, then a 503-class error', async () => {
    mode = 'reset';
    const { error, ms } = await failure(get);
    expect(error.$metadata?.attempts).toBe(SDK_BUDGET.maxAttempts);
    expect(dependencyFailureOf(error)).toMatchObject({ retryAfterSeconds: 5 });
    expect(ms).toBeLessThanOrEqual(worstCallMs());
  });

  it('past the request deadline no attempt starts: a request that began long ago gives up after its current attempt', async () => {
    mode = 'hang';
    requests = 0;
    // The request began so long ago that only the first attempt starts before its deadline (1 s
    // from now: room for a loaded machine; a second attempt could start only after requestTimeoutMs).
    const startedAt = Date.now() - SDK_BUDGET.requestDeadlineMs + 1000;
    const { error, ms } = await failure(() => withRequestDeadline(get, startedAt));
    expect(error).toBeInstanceOf(RequestDeadlineExceeded);
    expect(requests).toBe(1);
    expect(ms).toBeLessThanOrEqual(worstAttemptMs() + SDK_BUDGET.backoffCapMs(1) + 500);
    expect(dependencyFailureOf(error)).toMatchObject({ name: 'RequestDeadlineExceeded', retryAfterSeconds: 5 });
  });
});
