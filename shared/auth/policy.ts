/**
 * The authorizer's IAM policy. It allows every route the token's scopes grant (derived from
 * the route table), not just the route being called: API Gateway caches the policy per token
 * and applies it to every later route, so it must be right for all of them.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { PROTECTED_ROUTES, policyResource, type Scope } from '../api/routes.ts';

/** `arn:aws:execute-api:region:account:api/stage/GET/api/v1/clients` → `arn:...:api/stage`. */
export function apiStageArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn?.startsWith('arn:') || !stage) throw new Error('Unexpected method ARN');
  return `${apiArn}/${stage}`;
}

export type AuthorizerContext = Record<string, string | number | boolean>;

/**
 * `usageKey` is the API client's API key value: API Gateway meters and throttles the request by
 * the usage plan that holds it (apiKeySourceType AUTHORIZER). Without one, every method answers 403.
 */
export function policyFor(
  methodArn: string,
  principalId: string,
  scopes: readonly Scope[],
  context: AuthorizerContext,
  usageKey?: string,
): APIGatewayAuthorizerResult {
  const base = apiStageArn(methodArn);
  const allowed = PROTECTED_ROUTES.filter((r) => scopes.includes(r.scope)).map((r) => `${base}/${policyResource(r)}`);
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement:
        allowed.length > 0
          ? [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: allowed }]
          : [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${base}/*` }],
    },
    context,
    ...(usageKey ? { usageIdentifierKey: usageKey } : {}),
  };
}

/**
 * Every route allowed, so that the handler itself answers 401 with `error="invalid_token"`. The
 * API key of all invalid-token traffic keeps that 401 (an Allow without a key would be API
 * Gateway's 403) and throttles garbage tokens in a plan of their own (shared/core/plan-limits.ts).
 */
export function invalidTokenPolicy(methodArn: string, usageKey: string): APIGatewayAuthorizerResult {
  const base = apiStageArn(methodArn);
  return {
    principalId: 'invalid-token',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: PROTECTED_ROUTES.map((r) => `${base}/${policyResource(r)}`) }],
    },
    context: { authError: 'invalid_token' },
    usageIdentifierKey: usageKey,
  };
}
