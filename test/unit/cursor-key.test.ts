/**
 * The cursor signing key read at run time (shared/core/config.ts): in AWS through the Parameters and
 * Secrets extension's local HTTP server (played here by a server of the test), locally from the
 * environment. No AWS service is mocked: the extension is an HTTP server on localhost.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dependencyFailureOf } from '../../shared/data/faults.ts';
import { withLogs } from '../support/logs.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:CursorSigningKey-AbCdEf';
const KEY = 'k'.repeat(64);

/** What the extension answers next, and the requests it was sent. */
let answer: { status: number; body: unknown } = { status: 200, body: { ARN: SECRET_ARN, SecretString: KEY } };
const requests: IncomingMessage[] = [];
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req);
    res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ENV = { TABLE_NAME: 'timebill-unit', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'unit', AWS_SECRET_ACCESS_KEY: 'unit' };

/** The extension's environment as Lambda gives it, with a fresh copy of config.ts (its key not read yet). */
async function inAws() {
  vi.resetModules();
  delete process.env.CURSOR_SIGNING_KEY;
  Object.assign(process.env, ENV, {
    CURSOR_SIGNING_KEY_SECRET: SECRET_ARN,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String((server.address() as AddressInfo).port),
    AWS_SESSION_TOKEN: 'session-token',
  });
  return import('../../shared/core/config.ts');
}

beforeEach(() => {
  requests.length = 0;
  answer = { status: 200, body: { ARN: SECRET_ARN, SecretString: KEY } };
});

describe('cursor signing key', () => {
  it('is read once from the extension, by the secret ARN, with the session token', async () => {
    const { cursorSigningKey } = await inAws();
    expect(await Promise.all([cursorSigningKey(), cursorSigningKey()])).toEqual([KEY, KEY]);
    expect(await cursorSigningKey()).toBe(KEY);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe(`/secretsmanager/get?secretId=${encodeURIComponent(SECRET_ARN)}`);
    expect(requests[0]!.headers['x-aws-parameters-secrets-token']).toBe('session-token');
  });

  it('is read as a list function loads (Lambda\'s init phase), before its first request', async () => {
    await inAws();
    await import('../../functions/projects/list.ts');
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.url).toBe(`/secretsmanager/get?secretId=${encodeURIComponent(SECRET_ARN)}`);
  });

  it('is a dependency failure (503) when the extension or Secrets Manager fails, and is read again by the next request', async () => {
    const { cursorSigningKey } = await inAws();
    answer = { status: 500, body: { message: 'internal' } };
    const failure = await cursorSigningKey().then(() => undefined, (e: unknown) => e);
    expect(dependencyFailureOf(failure)).toMatchObject({ name: 'ServiceUnavailable' });
    answer = { status: 200, body: { SecretString: KEY } };
    expect(await cursorSigningKey()).toBe(KEY);
    expect(requests).toHaveLength(2);
  });

  it('is a configuration error, not a 503, when the function may not read the secret', async () => {
    const { cursorSigningKey } = await inAws();
    answer = { status: 400, body: { message: 'AccessDeniedException' } };
    const failure = await cursorSigningKey().then(() => undefined, (e: unknown) => e);
    expect((failure as Error).message).toMatch(/could not be read \(400\)/);
    expect(dependencyFailureOf(failure)).toBeUndefined();
  });

  it('refuses a key of fewer than 32 characters, wherever it comes from', async () => {
    const aws = await inAws();
    answer = { status: 200, body: { SecretString: 'short' } };
    await expect(aws.cursorSigningKey()).rejects.toThrow(/at least 32 characters/);
    vi.resetModules();
    delete process.env.CURSOR_SIGNING_KEY_SECRET;
    process.env.CURSOR_SIGNING_KEY = 'x'.repeat(31);
    await expect((await import('../../shared/core/config.ts')).cursorSigningKey()).rejects.toThrow(/at least 32 characters/);
  });

  it('is read from CURSOR_SIGNING_KEY where no secret is named (the local stack), never from the extension', async () => {
    vi.resetModules();
    delete process.env.CURSOR_SIGNING_KEY_SECRET;
    process.env.CURSOR_SIGNING_KEY = KEY;
    expect(await (await import('../../shared/core/config.ts')).cursorSigningKey()).toBe(KEY);
    expect(requests).toHaveLength(0);
  });

  it('a list given a cursor answers 503 with Retry-After, and logs the failure, when the key cannot be read', async () => {
    await inAws();
    answer = { status: 503, body: { message: 'unavailable' } };
    const { handler } = (await import('../../functions/clients/list.ts')) as { handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; headers?: Record<string, string>; body: string }> };
    const event = {
      httpMethod: 'GET',
      path: '/api/v1/clients',
      resource: '/api/v1/clients',
      headers: {},
      queryStringParameters: { cursor: 'abc' },
      multiValueQueryStringParameters: { cursor: ['abc'] },
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'r-1', path: '/api/v1/clients', authorizer: { workspaceId: 'ws', apiClientId: 'c', scopes: 'clients:read', tokenExpiresAt: Math.floor(Date.now() / 1000) + 600 } },
    };
    const context = { awsRequestId: 'a', getRemainingTimeInMillis: () => 10_000 };
    const { result, lines } = await withLogs(() => handler(event, context));
    const response = (result as PromiseFulfilledResult<Awaited<ReturnType<typeof handler>>>).value;
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(JSON.parse(response.body).error.type).toBe('service_unavailable');
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: 'Dependency failure', dependency: 'secretsmanager', errorName: 'ServiceUnavailable', operation: 'listClients' })]);
  });
});
