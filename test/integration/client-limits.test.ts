/**
 * Fair limits per API client (usage plans, emulated by infra/local/client-limits.ts): one
 * client over its limit gets 429 while another, at the same moment, gets only 200s; a flood of
 * invalid tokens spends its own bucket, not a real client's; a spent monthly quota is 429
 * quota_exceeded. Each case runs on a local gateway of its own with low limits (the shared
 * stack of the global setup has its limits lifted), in this worker, over the shared stack's
 * DynamoDB Local and token issuer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLocalGateway, type GatewayOptions } from '../../infra/local/gateway.ts';
import { LOCAL_AWS_ENV, freePort } from '../../infra/local/dynamodb.ts';
import { LOCAL_ISSUER, loadOrCreateIssuer } from '../../infra/local/issuer.ts';
import { JWKS_PATH, LOCAL_INVALID_TOKEN_API_KEY } from '../../infra/local/stack.ts';
import { registerApiClient } from '../../shared/data/api-clients.ts';
import { QUOTA_RETRY_AFTER_SECONDS } from '../../shared/core/plan-limits.ts';
import { expectError, token, type ApiResponse } from '../support/api.ts';
import { valueWithLogs } from '../support/logs.ts';

const servers: Server[] = [];

beforeAll(() => {
  // The authorizer and the handlers run in this worker: the same environment as the shared stack's.
  Object.assign(process.env, {
    ...LOCAL_AWS_ENV,
    TABLE_NAME: inject('tableName'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    CURSOR_SIGNING_KEY: readFileSync(join(inject('stateDir'), 'cursor-signing-key'), 'utf8').trim(),
    LOCAL_JWT_ISSUER: LOCAL_ISSUER,
    LOCAL_JWKS_URI: `${inject('baseUrl')}${JWKS_PATH}`,
    INVALID_TOKEN_API_KEY: LOCAL_INVALID_TOKEN_API_KEY,
  });
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

/** GET /api/v1/clients on a gateway of its own, with this bearer token (none when undefined). */
async function gateway(options: Omit<GatewayOptions, 'repoRoot'>): Promise<(bearer: string | undefined) => Promise<ApiResponse>> {
  const server = createLocalGateway({ repoRoot: resolve(import.meta.dirname, '../..'), invalidTokenKey: LOCAL_INVALID_TOKEN_API_KEY, ...options });
  servers.push(server);
  const port = await freePort();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done());
  });
  return async (bearer) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/clients`, bearer === undefined ? {} : { headers: { Authorization: `Bearer ${bearer}` } });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}

const newToken = () => token(`limits-${randomUUID().slice(0, 8)}`, ['clients:read']);
/** Well-formed, never valid, each one different (so no cached policy answers for it). */
const garbageToken = () => [randomBytes(12), randomBytes(24), randomBytes(32)].map((b) => b.toString('base64url')).join('.');

/** What a bucket refills at `perSecond` over the time since `startedAt` (whole seconds, rounded up): a loaded machine is slower, so it refills more. */
const refillSince = (startedAt: number, perSecond: number) => Math.ceil(((Date.now() - startedAt) / 1000) * perSecond);

function expectRateLimited(response: ApiResponse) {
  expectError(response, 429, 'rate_limited');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('one API client over its limit', () => {
  it('gets 429 rate_limited with Retry-After while another client, at the same moment, gets only 200s', async () => {
    // Each client: 5 at once, then 1 per second. The stage holds 15: were the noisy client's
    // refused requests charged to the stage, the quiet client would be refused too.
    const get = await gateway({ clientLimits: { override: { rateLimit: 1, burstLimit: 5 } }, throttling: { rateLimit: 1, burstLimit: 15 } });
    const [noisy, quiet] = await Promise.all([newToken(), newToken()]);

    const startedAt = Date.now();
    const flood = Promise.all(Array.from({ length: 40 }, () => get(noisy)));
    const calm: ApiResponse[] = [];
    for (let i = 0; i < 4; i++) calm.push(await get(quiet)); // while the flood is in flight
    const flooded = await flood;
    const refill = refillSince(startedAt, 1);

    expect(calm.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const refused = flooded.filter((r) => r.status === 429);
    const served = flooded.filter((r) => r.status === 200);
    expect(served.length + refused.length).toBe(40);
    expect(served.length).toBeGreaterThanOrEqual(5);
    expect(served.length).toBeLessThanOrEqual(5 + refill); // the burst, plus what refilled while the flood lasted
    for (const r of refused) expectRateLimited(r);
  });
});

describe('a flood of invalid tokens', () => {
  it("spends the invalid-token bucket only: a valid client's bucket is untouched, and the first invalid ones still get the contract's 401", async () => {
    const get = await gateway({
      clientLimits: { override: { rateLimit: 0.5, burstLimit: 4 }, invalidToken: { rateLimit: 0.5, burstLimit: 3, monthlyQuota: undefined } },
      throttling: { rateLimit: 1, burstLimit: 15 },
    });
    const valid = await newToken();

    const startedAt = Date.now();
    const flood = await Promise.all(Array.from({ length: 30 }, () => get(garbageToken())));
    const unauthorized = flood.filter((r) => r.status === 401);
    expect(unauthorized.length).toBeGreaterThanOrEqual(3);
    expect(unauthorized.length).toBeLessThanOrEqual(3 + refillSince(startedAt, 0.5)); // the burst, plus what refilled while the flood lasted
    for (const r of unauthorized) {
      expectError(r, 401, 'authentication_required');
      expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
    for (const r of flood.filter((x) => x.status !== 401)) expectRateLimited(r);

    // The valid client's whole burst is still there (4 at once), and so are the stage's tokens.
    const after = await Promise.all(Array.from({ length: 4 }, () => get(valid)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});

describe('a flood without a token', () => {
  it("spends the anonymous bucket only: a valid client's requests, sent at the same moment, are all served", async () => {
    // Stage and anonymous bucket alike: 15 at once, then 1 per second. Were tokenless requests
    // charged to the stage (as they were), the valid client's 10 would meet an empty stage bucket.
    const get = await gateway({ clientLimits: { override: { rateLimit: 1000, burstLimit: 1000 } }, throttling: { rateLimit: 1, burstLimit: 15 } });
    const valid = await newToken();
    const flood = await Promise.all(Array.from({ length: 200 }, () => get(undefined)));
    expect(flood.filter((r) => r.status === 401).length).toBeLessThanOrEqual(15 + 10); // the burst, plus refill on a slow machine
    for (const r of flood.filter((x) => x.status !== 401)) expectRateLimited(r);

    const served = await Promise.all(Array.from({ length: 10 }, () => get(valid)));
    expect(served.map((r) => r.status)).toEqual(Array(10).fill(200));
  });
});

describe('the monthly quota', () => {
  it('once spent, answers 429 quota_exceeded with Retry-After; other clients are served', async () => {
    const get = await gateway({ clientLimits: { override: { rateLimit: 1000, burstLimit: 1000 }, monthlyQuota: 3 } });
    const [spender, other] = await Promise.all([newToken(), newToken()]);
    for (let i = 0; i < 3; i++) expect((await get(spender)).status).toBe(200);
    const spent = await get(spender);
    const error = expectError(spent, 429, 'quota_exceeded');
    expect(error.message).toMatch(/monthly/);
    expect(spent.headers.get('retry-after')).toBe(String(QUOTA_RETRY_AFTER_SECONDS));
    expect((await get(other)).status).toBe(200);
  });
});

describe('an API client registered without an API key (before usage plans)', () => {
  it('is refused with 403 forbidden in the contract body, not API Gateway\'s bare "Forbidden", and logged as an error naming the fix', async () => {
    const get = await gateway({});
    const clientId = `legacy-${randomUUID().slice(0, 8)}`;
    const client = new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: LOCAL_AWS_ENV.AWS_REGION });
    try {
      await registerApiClient(DynamoDBDocumentClient.from(client), inject('tableName'), {
        api_client_id: clientId,
        workspace_id: clientId,
        name: 'Legacy',
        scopes: ['clients:read'],
      });
    } finally {
      client.destroy();
    }
    const issuer = loadOrCreateIssuer(join(inject('stateDir'), 'issuer'));
    const { value: response, lines } = await valueWithLogs(() => get(issuer.mint({ clientId, scopes: ['clients:read'] })));
    expectError(response, 403, 'forbidden');
    expect(lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR')).toEqual([
      expect.objectContaining({ level: 'ERROR', message: 'API client has no API key: run npm run integration:plan for it', apiClientId: clientId }),
    ]);
  });
});
