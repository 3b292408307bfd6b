/**
 * The registry bounds what a client may do: the authorizer grants the token's scopes that the
 * client's registration also holds, so narrowing a registration takes effect once the
 * authorizer's registry cache (REGISTRY_CACHE_MS) has passed, not when the tokens expire.
 * Real DynamoDB Local (the registry) and a local JWKS server (the issuer); only the clock is faked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_AWS_ENV, freePort } from '../../infra/local/dynamodb.ts';
import { LOCAL_ISSUER, loadOrCreateIssuer } from '../../infra/local/issuer.ts';
import { keys } from '../../shared/data/keys.ts';
import { registerApiClient } from '../../shared/data/api-clients.ts';
import { startLocalTable, type LocalTable } from '../support/local-table.ts';

const TABLE_NAME = 'timebill-registry-scopes';
const stateDir = mkdtempSync(join(tmpdir(), 'registry-scopes-'));
const issuer = loadOrCreateIssuer(stateDir);
let localTable: LocalTable | undefined;
let jwks: Server | undefined;
let db: DynamoDBDocumentClient;
let authorize: (token: string, route?: string) => Promise<APIGatewayAuthorizerResult>;
let cacheMs: number;

beforeAll(async () => {
  localTable = await startLocalTable(TABLE_NAME);
  db = DynamoDBDocumentClient.from(localTable.client);
  const port = await freePort();
  jwks = createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(issuer.jwks));
  });
  await new Promise<void>((resolve) => jwks!.listen(port, '127.0.0.1', resolve));
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME,
    DYNAMODB_ENDPOINT: localTable.local.endpoint,
    LOCAL_JWT_ISSUER: LOCAL_ISSUER,
    INVALID_TOKEN_API_KEY: 'invalid-token-registry-scopes-key',
    LOCAL_JWKS_URI: `http://127.0.0.1:${port}/.well-known/jwks.json`,
  });
  const authorizer = await import('../../functions/authorizer.ts');
  cacheMs = authorizer.REGISTRY_CACHE_MS;
  authorize = (token, route = 'GET/api/v1/clients') =>
    authorizer.handler({ type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: `arn:aws:execute-api:us-east-1:000000000000:api/local/${route}` });
});

afterAll(async () => {
  vi.useRealTimers();
  jwks?.closeAllConnections();
  await new Promise((resolve) => (jwks ? jwks.close(resolve) : resolve(undefined)));
  await localTable?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** A registration as integration:create makes it: with its API key (one without is another test's case, and logs an error). */
const withKey = (clientId: string) => ({ api_key_id: `key-${clientId}`, usage_key: `usage-${clientId}` });

const allowed = (result: APIGatewayAuthorizerResult) => {
  const statements = result.policyDocument.Statement as Array<{ Effect: string; Resource: string | string[] }>;
  return statements.filter((s) => s.Effect === 'Allow').flatMap((s) => [s.Resource].flat().map((r) => r.split('/').slice(2).join('/')));
};

describe('the registry bounds a client’s scopes', () => {
  it('a token grants only the scopes its registration also holds', async () => {
    await registerApiClient(db, TABLE_NAME, { api_client_id: 'c-bounded', workspace_id: 'acme', name: 'x', ...withKey('c-bounded'), scopes: ['clients:read'] });
    const result = await authorize(issuer.mint({ clientId: 'c-bounded', scopes: ['clients:read', 'clients:write', 'projects:read'] }));
    expect(result.context?.scopes).toBe('clients:read');
    expect(allowed(result).every((r) => r.startsWith('GET/api/v1/clients'))).toBe(true);
    expect(allowed(result).length).toBeGreaterThan(0);
  });

  it('narrowing the registration takes effect within the registry cache, while the token is still valid', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date());
    await registerApiClient(db, TABLE_NAME, { api_client_id: 'c-narrowed', workspace_id: 'acme', name: 'x', ...withKey('c-narrowed'), scopes: ['clients:read', 'clients:write'] });
    const token = issuer.mint({ clientId: 'c-narrowed', scopes: ['clients:read', 'clients:write'], ttlSeconds: 3600 });
    expect((await authorize(token)).context?.scopes).toBe('clients:read clients:write');

    await db.send(new UpdateCommand({ TableName: TABLE_NAME, Key: keys.apiClient('c-narrowed'), UpdateExpression: 'SET scopes = :s', ExpressionAttributeValues: { ':s': ['clients:read'] } }));
    // Within the cache bound the old scopes may still apply; past it, never.
    vi.setSystemTime(Date.now() + cacheMs + 1_000);
    const after = await authorize(token);
    expect(after.context?.scopes).toBe('clients:read');
    expect(allowed(after).some((r) => r.startsWith('POST/'))).toBe(false);
    vi.useRealTimers();
  });

  it('a registration without scopes grants nothing', async () => {
    await registerApiClient(db, TABLE_NAME, { api_client_id: 'c-empty', workspace_id: 'acme', name: 'x', ...withKey('c-empty'), scopes: [] });
    const result = await authorize(issuer.mint({ clientId: 'c-empty', scopes: ['clients:read'] }));
    expect(result.context?.scopes).toBe('');
    expect(allowed(result)).toEqual([]);
  });
});
