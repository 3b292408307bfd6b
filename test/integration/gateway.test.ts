/**
 * The rows of the contract that API Gateway itself answers: unknown routes and methods (404,
 * not its default 403), oversize bodies (413) and throttling (429 with Retry-After), all in the
 * contract's error shape with X-Request-Id.
 */
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGateway } from '../../infra/local/gateway.ts';
import { freePort } from '../../infra/local/dynamodb.ts';
import { randomUUID } from 'node:crypto';
import { call, createClient, expectError, token, validClient, workspace, type ApiResponse } from '../support/api.ts';

function expectGatewayError(response: ApiResponse, status: number, type: string, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(status);
  const error = expectError(response, status, type);
  expect(Object.keys(response.body), what).toEqual(['error']);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(response.headers.get('content-type') ?? '', what).toMatch(/^application\/json/);
  return error;
}

const UNKNOWN_PATHS = [
  '/',
  '/api/v1/nope',
  '/api/v2/clients',
  '/api/v1',
  '/api/v1/',
  '/api/v1/Clients',
  '/api/v1/clients/cli_00000000000000000000000000/projects',
  '/api/v1/time-entries',
  '/clients',
];

const UNKNOWN_METHODS: [string, string][] = [
  ['PUT', '/api/v1/clients'],
  ['DELETE', '/api/v1/clients'],
  ['PATCH', '/api/v1/clients'],
  ['POST', '/api/v1/clients/cli_00000000000000000000000000'],
  ['PUT', '/api/v1/clients/cli_00000000000000000000000000'],
  ['PUT', '/api/v1/projects/prj_00000000000000000000000000'],
  ['POST', '/api/v1/projects/prj_00000000000000000000000000'],
  ['POST', '/api/v1/time_entries/te_00000000000000000000000000'],
  ['PUT', '/api/v1/time_entries'],
  ['DELETE', '/api/v1/time_entries'],
];

describe('unknown routes and methods', () => {
  let tokenValue: string;
  beforeAll(async () => {
    tokenValue = (await workspace('gw')).token;
  });

  it('answers an unknown path with 404 not_found, with or without a token', async () => {
    for (const path of UNKNOWN_PATHS) {
      for (const method of ['GET', 'POST']) {
        const bare = await call(method, path, method === 'POST' ? { body: {} } : {});
        expectGatewayError(bare, 404, 'not_found', `${method} ${path} without a token`);
        const withToken = await call(method, path, { token: tokenValue, ...(method === 'POST' ? { body: {} } : {}) });
        expectGatewayError(withToken, 404, 'not_found', `${method} ${path} with a token`);
      }
    }
  });

  it('answers a method the path does not have with 404 not_found, with or without a token', async () => {
    for (const [method, path] of UNKNOWN_METHODS) {
      const body = method === 'GET' || method === 'DELETE' ? {} : { body: { name: 'x' } };
      expectGatewayError(await call(method, path, body), 404, 'not_found', `${method} ${path} without a token`);
      expectGatewayError(await call(method, path, { token: tokenValue, ...body }), 404, 'not_found', `${method} ${path} with a token`);
    }
  });

  it('answers a path whose id is not valid percent-encoding with 404, not 500', async () => {
    for (const path of ['/api/v1/clients/%E0%A4%A', '/api/v1/projects/%', '/api/v1/time_entries/%zz']) {
      expectGatewayError(await call('GET', path, { token: tokenValue }), 404, 'not_found', `${path} with a token`);
      expectGatewayError(await call('DELETE', path), 404, 'not_found', `${path} without a token`);
    }
  });

  it('answers an invalid token on an unknown route with 404, not 401', async () => {
    expectGatewayError(await call('GET', '/api/v1/nope', { token: 'a.b.c' }), 404, 'not_found', 'invalid token, unknown route');
  });
});

describe('request size', () => {
  let tokenValue: string;
  beforeAll(async () => {
    tokenValue = (await workspace('gw-size')).token;
  });

  it("answers a body over API Gateway's 10 MB with 413 payload_too_large", async () => {
    const huge = `{"company_name":"${'x'.repeat(10 * 1024 * 1024)}","company_email":"a@b.test"}`;
    const response = await call('POST', '/api/v1/clients', { token: tokenValue, rawBody: huge, headers: { 'Content-Type': 'application/json' } });
    expectGatewayError(response, 413, 'payload_too_large', '10 MB body');
    const bare = await call('POST', '/api/v1/clients', { rawBody: huge, headers: { 'Content-Type': 'application/json' } });
    expectGatewayError(bare, 413, 'payload_too_large', '10 MB body without a token');
  });

  it('answers a body over the documented body limit (but within the gateway limit) with 413 too, and creates nothing', async () => {
    const big = { company_name: 'Big', company_email: 'big@example.test', company_address: 'y'.repeat(70 * 1024) };
    const response = await call('POST', '/api/v1/clients', { token: tokenValue, body: big });
    expectGatewayError(response, 413, 'payload_too_large', '70 KB body');
    const list = await call('GET', '/api/v1/clients', { token: tokenValue });
    expect(list.body.data).toEqual([]);
  });

  it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
    const response = await call('POST', '/api/v1/clients', {
      token: tokenValue,
      rawBody: 'company_name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectGatewayError(response, 415, 'unsupported_media_type', 'form body');
  });
});

describe('throttling (a gateway of its own, 1 request per second, burst 1)', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createLocalGateway({ repoRoot: resolve(import.meta.dirname, '../..'), throttling: { rateLimit: 1, burstLimit: 1 } });
    const port = await freePort();
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => done());
    });
    url = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  /** Requests without a token: the throttled gateway answers them itself, no handler runs in this worker. */
  async function get(path: string): Promise<ApiResponse> {
    const response = await fetch(`${url}${path}`);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  it('answers over the rate with 429 rate_limited and Retry-After, then recovers', async () => {
    // A burst of 7 at once: the bucket's one token, plus what refilled while they were answered
    // (none on an idle machine, a token a second on a loaded one), gets through; the rest are 429.
    const startedAt = Date.now();
    const burst = await Promise.all(Array.from({ length: 7 }, (_, i) => get(i % 2 === 0 ? '/api/v1/clients' : '/api/v1/projects')));
    const refill = Math.ceil((Date.now() - startedAt) / 1000);
    const passed = burst.filter((r) => r.status !== 429);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    expect(passed.length).toBeLessThanOrEqual(1 + refill);
    for (const r of passed) expectGatewayError(r, 401, 'authentication_required', 'within the burst');
    const throttled = burst.filter((r) => r.status === 429);
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    for (const r of throttled) {
      const error = expectGatewayError(r, 429, 'rate_limited', 'over the burst');
      expect(error.request_id).toBe(r.headers.get('x-request-id'));
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const retryAfter = throttled[0]!.headers.get('retry-after');
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);

    // After Retry-After seconds the bucket has refilled.
    await new Promise((done) => setTimeout(done, Number(retryAfter) * 1000 + 150));
    expectGatewayError(await get('/api/v1/time_entries'), 401, 'authentication_required', 'after Retry-After');
  });

  it('still answers an unknown route with 404 when throttling', async () => {
    await get('/api/v1/clients');
    const responses = await Promise.all([get('/api/v1/nope'), get('/'), get('/api/v2/clients')]);
    for (const r of responses) expectGatewayError(r, 404, 'not_found', 'unknown route while throttled');
  });
});

describe('the stack told of each write request (a gateway of its own)', () => {
  it("calls afterWriteRequest once a write request's handler has answered, whatever it answered; never for a read or a request refused before the handler", async () => {
    let writes = 0;
    const server = createLocalGateway({ repoRoot: resolve(import.meta.dirname, '../..'), afterWriteRequest: () => writes++ });
    const port = await freePort();
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => done());
    });
    try {
      const bearer = await token(`nudge-${randomUUID().slice(0, 8)}`, ['clients:read', 'clients:write']);
      const send = (method: string, body?: unknown, authorization: string | undefined = `Bearer ${bearer}`) =>
        fetch(`http://127.0.0.1:${port}/api/v1/clients`, {
          method,
          headers: { ...(authorization ? { Authorization: authorization } : {}), 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }).then((response) => response.status);
      expect(await send('GET')).toBe(200);
      expect(writes).toBe(0);
      expect(await send('POST', validClient({ company_name: 'Nudged' }))).toBe(201);
      expect(writes).toBe(1);
      expect(await send('POST', { company_name: '' })).toBe(400); // answered by the handler, which wrote nothing
      expect(writes).toBe(2);
      expect(await send('POST', validClient(), '')).toBe(401); // no token: the gateway refuses it before any handler
      expect(writes).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});

describe('query parameters outside lists', () => {
  it('are refused with 400 naming them, on retrieve, update and delete alike', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    for (const response of [
      await api.get(`/clients/${client.id}?expand=projects`),
      await api.patch(`/clients/${client.id}?dry_run=1`, { status: 'ACTIVE' }),
      await api.delete(`/clients/${client.id}?force=true`),
    ]) {
      const error = expectError(response, 400, 'invalid_request');
      expect(error.errors).toHaveLength(1);
      expect(error.message).toMatch(/is not a known query parameter/);
    }
    // Nothing was changed or deleted by the refused requests.
    expect((await api.get(`/clients/${client.id}`)).body).toEqual(client);
  });
});
