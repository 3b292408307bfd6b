/**
 * Lambda TOKEN authorizer. Verifies the access token (Cognito in AWS; the local issuer
 * locally; both with aws-jwt-verify), resolves the API client's workspace from the registry,
 * and returns a policy allowing exactly the routes granted by both the token's scopes and the
 * registry's (the registry bounds what a client may do), with the API
 * client's API key as usageIdentifierKey (its usage plan throttles it; shared/core/plan-limits.ts).
 */
import { get } from 'node:http';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { CognitoJwtVerifier, JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { FetchError } from 'aws-jwt-verify/error';
import * as logger from '../shared/core/log.ts';
import { authorizerConfig, invalidTokenUsageKey } from '../shared/core/config.ts';
import { dynamo, tableName } from '../shared/data/dynamo.ts';
import { REGISTRY_CACHE_SECONDS, findApiClient } from '../shared/data/api-clients.ts';
import { grantedScopes } from '../shared/auth/scopes.ts';
import type { Scope } from '../shared/api/routes.ts';
import { invalidTokenPolicy, policyFor } from '../shared/auth/policy.ts';
import { AuthorizerDependencyFailure, isKeyFetchFailure } from '../shared/auth/dependency-failure.ts';
import { dependencyFailureOf } from '../shared/data/faults.ts';
import { withRequestDeadline } from '../shared/data/budget.ts';
import { DEFAULT_PLAN } from '../shared/core/plan-limits.ts';

const settings = authorizerConfig();
const invalidTokenKey = invalidTokenUsageKey();

const isAccessToken = ({ payload }: { payload: Record<string, unknown> }) => {
  if (payload.token_use !== 'access') throw new Error('Not an access token');
};

const verifier =
  'COGNITO_USER_POOL_ID' in settings
    ? CognitoJwtVerifier.create({ userPoolId: settings.COGNITO_USER_POOL_ID, tokenUse: 'access', clientId: null })
    : JwtVerifier.create(
        { issuer: settings.LOCAL_JWT_ISSUER, audience: null, jwksUri: settings.LOCAL_JWKS_URI, customJwtCheck: isAccessToken },
        // The library fetches over https only; the local issuer serves its JWKS on loopback http.
        { jwksCache: new SimpleJwksCache({ fetcher: { fetch: loopbackGet } }) },
      );

/** A plain node:http GET (not fetch(), whose client costs tens of ms to start in a cold process). */
function loopbackGet(uri: string): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    get(uri, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new FetchError(uri, `JWKS answered ${response.statusCode}`));
        const body = Buffer.concat(chunks);
        resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
      });
    }).on('error', (error) => reject(new FetchError(uri, error.message)));
  });
}

/**
 * Registrations change rarely; a short cache spares a read on most cold policy evaluations. It is
 * also the bound on how long a narrowed (or revoked) registration keeps its old scopes here; API
 * Gateway's policy cache (AUTHORIZER_CACHE_TTL_SECONDS) adds its own.
 */
export const REGISTRY_CACHE_MS = REGISTRY_CACHE_SECONDS * 1000;
interface Registered {
  workspaceId: string;
  usageKey: string | undefined;
  plan: string;
  /** What the registry allows this client, whatever its tokens say. */
  scopes: readonly Scope[];
}
const registryCache = new Map<string, Registered & { until: number }>();

/**
 * Drops a client's cached registration, so its next policy reads the registry again. The local
 * token endpoint calls it after it widens a local client's scopes: the new token works at once.
 * (In AWS a changed registration takes effect within REGISTRY_CACHE_MS, as documented.)
 */
export function forgetRegistration(apiClientId: string): void {
  registryCache.delete(apiClientId);
}

async function registrationOf(apiClientId: string): Promise<Registered | undefined> {
  const cached = registryCache.get(apiClientId);
  if (cached && cached.until > Date.now()) return cached;
  let registration;
  try {
    registration = await withRequestDeadline(() => findApiClient(dynamo(), tableName(), apiClientId));
  } catch (error) {
    const failure = dependencyFailureOf(error);
    if (failure) throw new AuthorizerDependencyFailure('dynamodb', failure.name, failure.attempts);
    throw error;
  }
  if (!registration) return undefined;
  // Registered scopes are bare (`clients:read`); anything unknown, or no list at all, grants nothing.
  const registered = Array.isArray(registration.scopes) ? registration.scopes.join(' ') : '';
  const found = {
    workspaceId: registration.workspace_id,
    usageKey: registration.usage_key,
    plan: registration.plan ?? DEFAULT_PLAN,
    scopes: grantedScopes(registered, settings.RESOURCE_SERVER_IDENTIFIER),
  };
  registryCache.set(apiClientId, { ...found, until: Date.now() + REGISTRY_CACHE_MS });
  return found;
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+) *$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * When a dependency fails the authorizer throws (API Gateway: AUTHORIZER_CONFIGURATION_ERROR,
 * answered 503 with Retry-After, and nothing cached) instead of denying: a denial would be a 401
 * that API Gateway caches for minutes, for every tenant, with no alarm.
 */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    return await authorize(event);
  } catch (error) {
    if (!(error instanceof AuthorizerDependencyFailure)) throw error;
    logger.error('Dependency failure', { dependency: error.dependency, errorName: error.errorName, operation: 'authorizer', attempts: error.attempts ?? null });
    throw new Error('Service unavailable'); // any message but 'Unauthorized'
  }
};

async function authorize(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(event.authorizationToken);
  if (!token) return invalidTokenPolicy(event.methodArn, invalidTokenKey);
  let payload: Record<string, unknown>;
  try {
    payload = (await verifier.verify(token)) as unknown as Record<string, unknown>;
  } catch (error) {
    // The signing keys could not be fetched: not the token's fault.
    // (aws-jwt-verify's errors are named by their class only.)
    if (isKeyFetchFailure(error)) throw new AuthorizerDependencyFailure('jwks', (error as Error).constructor.name, undefined);
    logger.info('Token refused', { reason: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown' });
    return invalidTokenPolicy(event.methodArn, invalidTokenKey);
  }
  // A token must expire: one without a numeric exp is refused (aws-jwt-verify checks exp only when present).
  if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) {
    logger.info('Token refused', { reason: 'no exp claim' });
    return invalidTokenPolicy(event.methodArn, invalidTokenKey);
  }
  const apiClientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
  const registration = apiClientId ? await registrationOf(apiClientId) : undefined;
  if (!apiClientId || !registration) {
    logger.info('Token of an unregistered API client refused', { apiClientId });
    return invalidTokenPolicy(event.methodArn, invalidTokenKey);
  }
  // Registered before usage plans: API Gateway will answer 403 until `npm run integration:plan` gives it a key.
  if (!registration.usageKey) logger.error('API client has no API key: run npm run integration:plan for it', { apiClientId });
  // The token's scopes, bounded by the registry's: narrowing an integration's scopes in the
  // registry takes effect within the caches' bound, not after the tokens it already holds expire.
  const scopes = grantedScopes(payload.scope, settings.RESOURCE_SERVER_IDENTIFIER).filter((scope) => registration.scopes.includes(scope));
  return policyFor(
    event.methodArn,
    apiClientId,
    scopes,
    {
      workspaceId: registration.workspaceId,
      apiClientId,
      scopes: scopes.join(' '),
      tokenExpiresAt: Number(payload.exp),
      // Read by the local gateway's per-client buckets; API Gateway finds the plan by the key.
      usagePlan: registration.plan,
    },
    registration.usageKey,
  );
}
