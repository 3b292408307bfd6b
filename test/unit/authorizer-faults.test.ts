/**
 * The authorizer fails (throws: API Gateway answers 503) instead of denying when it cannot reach
 * the issuer's signing keys or the registry; only a token that is really invalid is refused (401).
 * The JWKS is served by a real local server (down, failing, then up); the registry read is mocked
 * for its faults (DynamoDB Local cannot throttle).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../infra/local/dynamodb.ts';
import { LOCAL_ISSUER, issuerFromKey, loadOrCreateIssuer } from '../../infra/local/issuer.ts';
import { DEPENDENCY_ERRORS } from '../support/dependency-errors.ts';
import { valueWithLogs, withLogs } from '../support/logs.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'authorizer-faults-'));
const issuer = loadOrCreateIssuer(stateDir);
const stranger = issuerFromKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const jwksPort = await freePort();
let jwksStatus = 200;
let jwks: Server | undefined;

Object.assign(process.env, {
  TABLE_NAME: 'timebill-unit',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  LOCAL_JWT_ISSUER: LOCAL_ISSUER,
  LOCAL_JWKS_URI: `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`,
  AWS_LAMBDA_LOG_LEVEL: 'INFO',
  INVALID_TOKEN_API_KEY: 'unit-invalid-token-traffic',
});
const { handler } = await import('../../functions/authorizer.ts');

const ddb = mockClient(DynamoDBDocumentClient);
const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:local/local/GET/api/v1/clients';
const authorize = (token: string) => handler({ type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn });
const registered = (clientId: string, usageKey: string | null = `key-${clientId}`) => ({
  Item: { api_client_id: clientId, workspace_id: `ws-${clientId}`, name: 'x', scopes: [], created_at: '', ...(usageKey ? { usage_key: usageKey } : {}) },
});
const warningsOf = (lines: Record<string, unknown>[]) => lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR');

async function startJwks() {
  jwks = createServer((_req, res) => {
    res.statusCode = jwksStatus;
    res.setHeader('Content-Type', 'application/json');
    res.end(jwksStatus === 200 ? JSON.stringify(issuer.jwks) : '{"message":"unavailable"}');
  });
  await new Promise<void>((resolve) => jwks!.listen(jwksPort, '127.0.0.1', resolve));
}

describe('authorizer when its dependencies fail', () => {
  beforeEach(() => ddb.reset());
  afterEach(() => ddb.reset());
  afterAll(async () => {
    ddb.restore();
    jwks?.closeAllConnections();
    await new Promise((resolve) => (jwks ? jwks.close(resolve) : resolve(undefined)));
    rmSync(stateDir, { recursive: true, force: true });
  });

  // In order: the JWKS is down, then failing, then up (aws-jwt-verify caches it once fetched).
  it('JWKS unreachable: a valid token fails the authorizer (503), it is not denied (401)', async () => {
    ddb.on(GetCommand).resolves(registered('c1'));
    const { result, lines } = await withLogs(() => authorize(issuer.mint({ clientId: 'c1', scopes: ['clients:read'] })));
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason.message).not.toBe('Unauthorized');
    const failure = lines.find((l) => l.message === 'Dependency failure');
    expect(failure).toMatchObject({ dependency: 'jwks', errorName: 'FetchError', operation: 'authorizer' });
    expect(JSON.stringify(failure)).not.toContain('stack');
  });

  it('JWKS answering 503: fails too', async () => {
    jwksStatus = 503;
    await startJwks();
    const { result, lines } = await withLogs(() => authorize(issuer.mint({ clientId: 'c1', scopes: ['clients:read'] })));
    expect((result as PromiseRejectedResult).reason?.message).toBe('Service unavailable');
    expect(warningsOf(lines)).toEqual([expect.objectContaining({ level: 'ERROR', message: 'Dependency failure', dependency: 'jwks', operation: 'authorizer' })]);
  });

  it('JWKS up: a valid token of a registered client is allowed, with its API key and no warning', async () => {
    jwksStatus = 200;
    ddb.on(GetCommand).resolves(registered('c1'));
    const { result, lines } = await withLogs(() => authorize(issuer.mint({ clientId: 'c1', scopes: ['clients:read'] })));
    const allowed = (result as PromiseFulfilledResult<APIGatewayAuthorizerResult>).value;
    expect(allowed.context).toMatchObject({ workspaceId: 'ws-c1', apiClientId: 'c1' });
    expect(allowed.context?.authError).toBeUndefined();
    expect(allowed.usageIdentifierKey).toBe('key-c1');
    expect(warningsOf(lines)).toEqual([]);
  });

  it('a client registered without an API key is still authorized, and logged as an error naming the fix', async () => {
    ddb.on(GetCommand).resolves(registered('keyless', null));
    const { result, lines } = await withLogs(() => authorize(issuer.mint({ clientId: 'keyless', scopes: ['clients:read'] })));
    expect((result as PromiseFulfilledResult<APIGatewayAuthorizerResult>).value.context).toMatchObject({ apiClientId: 'keyless' });
    expect(warningsOf(lines)).toEqual([
      expect.objectContaining({ level: 'ERROR', message: 'API client has no API key: run npm run integration:plan for it', apiClientId: 'keyless' }),
    ]);
  });

  for (const c of DEPENDENCY_ERRORS) {
    it(`registry read failing with ${c.label}: fails (503), with one log line naming it`, async () => {
      const clientId = `reg-${c.label}`; // not in the registry cache yet
      ddb.on(GetCommand).rejects(c.make());
      const { result, lines } = await withLogs(() => authorize(issuer.mint({ clientId, scopes: ['clients:read'] })));
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason.message).toBe('Service unavailable');
      const failures = lines.filter((l) => l.message === 'Dependency failure');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ dependency: 'dynamodb', errorName: c.label, attempts: 3 });
    });
  }

  it('a bug in the registry read is not hidden as a 503 or a 401: it propagates', async () => {
    ddb.on(GetCommand).rejects(new TypeError('bug'));
    await expect(authorize(issuer.mint({ clientId: 'reg-bug', scopes: ['clients:read'] }))).rejects.toThrow('bug');
  });

  const refused = (result: APIGatewayAuthorizerResult) => expect(result.context?.authError).toBe('invalid_token');

  it('really invalid tokens are still refused (401), each with an INFO line saying why: wrong key, expired, unknown client, garbage', async () => {
    ddb.on(GetCommand).resolves({});
    const { lines } = await valueWithLogs(async () => {
      refused(await authorize(stranger.mint({ clientId: 'c1', scopes: ['clients:read'] })));
      refused(await authorize(issuer.mint({ clientId: 'c1', scopes: ['clients:read'], ttlSeconds: -60 })));
      refused(await authorize(issuer.mint({ clientId: 'unregistered', scopes: ['clients:read'] })));
      refused(await authorize('a.b.c'));
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'INFO', message: 'Token refused', reason: expect.stringContaining('not found in the JWKS') }),
      expect.objectContaining({ level: 'INFO', message: 'Token refused', reason: expect.stringContaining('Token expired') }),
      expect.objectContaining({ level: 'INFO', message: 'Token of an unregistered API client refused', apiClientId: 'unregistered' }),
      expect.objectContaining({ level: 'INFO', message: 'Token refused', reason: expect.stringContaining('Invalid JWT') }),
    ]);
  });
});
