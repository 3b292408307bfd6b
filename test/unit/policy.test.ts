import { describe, expect, it } from 'vitest';
import { apiStageArn, invalidTokenPolicy, policyFor } from '../../shared/auth/policy.ts';
import { grantedScopes } from '../../shared/auth/scopes.ts';
import { isAllowed, matchPath } from '../../infra/local/gateway.ts';
import { PROTECTED_ROUTES, ROUTES, accessOf } from '../../shared/api/routes.ts';

const base = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod';
const arnOf = (method: string, path: string) => `${base}/${method}${path}`;
const concretePath = (path: string) => path.replace('{id}', 'cli_01M7YN6FC9FCH8W24JAA49XGS6');

describe('scopes', () => {
  it('accepts bare scopes and those of this API\'s resource server, and ignores the rest', () => {
    expect(grantedScopes('clients:read timebill-api/projects:write openid other:read', 'timebill-api').sort()).toEqual(['clients:read', 'projects:write']);
    expect(grantedScopes(undefined, 'timebill-api')).toEqual([]);
    expect(grantedScopes('https://api.example.com/time_entries:read', 'https://api.example.com')).toEqual(['time_entries:read']);
  });

  it('grants nothing for another resource server\'s scope or any other prefix', () => {
    for (const claim of ['other-api/clients:write', 'a/b/clients:write', '/clients:write', 'timebill-api/x/clients:write', 'timebill-apiclients:write', 'TIMEBILL-API/clients:write', 'clients:write/']) {
      expect(grantedScopes(claim, 'timebill-api'), claim).toEqual([]);
    }
    expect(grantedScopes('timebill-api/clients:write', 'other-api')).toEqual([]);
  });
});

describe('authorizer policy', () => {
  it('names the API and stage of the method ARN', () => {
    expect(apiStageArn(`${base}/GET/api/v1/clients`)).toBe(base);
    expect(() => apiStageArn('nonsense')).toThrow();
    expect(() => apiStageArn('arn:aws:execute-api:eu-west-1:1:abc')).toThrow();
    expect(() => apiStageArn('xarn:aws:execute-api:eu-west-1:1:abc/prod/GET/x')).toThrow();
  });

  it('allows exactly the routes the scopes grant, whichever route was called first', () => {
    const policy = policyFor(`${base}/GET/api/v1/projects`, 'client-1', ['clients:read'], { workspaceId: 'acme' });
    for (const route of PROTECTED_ROUTES) {
      expect(isAllowed(policy, arnOf(route.method, concretePath(route.path)))).toBe(route.scope === 'clients:read');
    }
  });

  it("carries the API client's API key as usageIdentifierKey, so API Gateway throttles by its usage plan", () => {
    expect(policyFor(`${base}/GET/api/v1/clients`, 'c', ['clients:read'], {}, 'key-of-client-c-0123456789').usageIdentifierKey).toBe(
      'key-of-client-c-0123456789',
    );
    expect(policyFor(`${base}/GET/api/v1/clients`, 'c', ['clients:read'], {})).not.toHaveProperty('usageIdentifierKey');
  });

  it('is an IAM policy document API Gateway accepts: its version, the invoke action, one statement', () => {
    // The local policy evaluator reads only Effect and Resource: these would fail only in AWS.
    const allow = policyFor(`${base}/GET/api/v1/projects`, 'client-1', ['clients:read'], { workspaceId: 'acme' });
    expect(allow.principalId).toBe('client-1');
    expect(allow.context).toEqual({ workspaceId: 'acme' });
    expect(allow.policyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: [`${base}/GET/api/v1/clients`, `${base}/GET/api/v1/clients/*`] }],
    });
    const deny = policyFor(`${base}/GET/api/v1/projects`, 'client-1', [], {});
    expect(deny.policyDocument).toEqual({ Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${base}/*` }] });
    const invalid = invalidTokenPolicy(`${base}/GET/api/v1/projects`, 'invalid-token-key-0123456789');
    expect(invalid.usageIdentifierKey).toBe('invalid-token-key-0123456789');
    expect(invalid.principalId).toBe('invalid-token');
    expect(invalid.policyDocument.Version).toBe('2012-10-17');
    expect(invalid.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: PROTECTED_ROUTES.map((r) => `${base}/${r.method}${r.path.replaceAll(/\{[^}]+\}/g, '*')}`) }]);
  });

  it('does not let a write scope read', () => {
    const policy = policyFor(`${base}/POST/api/v1/clients`, 'c', ['clients:write'], {});
    expect(isAllowed(policy, arnOf('GET', '/api/v1/clients'))).toBe(false);
    expect(isAllowed(policy, arnOf('POST', '/api/v1/clients'))).toBe(true);
    expect(isAllowed(policy, arnOf('DELETE', '/api/v1/clients/cli_1'))).toBe(true);
  });

  it('denies everything when no scope applies', () => {
    const policy = policyFor(`${base}/GET/api/v1/clients`, 'c', [], {});
    for (const route of PROTECTED_ROUTES) expect(isAllowed(policy, arnOf(route.method, concretePath(route.path)))).toBe(false);
  });

  it('lets an invalid token through to the handler, marked, so it can answer 401 invalid_token', () => {
    const policy = invalidTokenPolicy(`${base}/GET/api/v1/clients`, 'invalid-token-key-0123456789');
    expect(policy.context).toEqual({ authError: 'invalid_token' });
    // Metered and throttled on the invalid-token key, never on a real integration's.
    expect(policy.usageIdentifierKey).toBe('invalid-token-key-0123456789');
    for (const route of PROTECTED_ROUTES) expect(isAllowed(policy, arnOf(route.method, concretePath(route.path)))).toBe(true);
    expect(isAllowed(policy, arnOf('PUT', '/api/v1/clients'))).toBe(false);
  });

  it('does not let a collection grant leak to sub-resources of other methods', () => {
    const policy = policyFor(`${base}/GET/api/v1/clients`, 'c', ['projects:read'], {});
    expect(isAllowed(policy, arnOf('GET', '/api/v1/clients'))).toBe(false);
    expect(isAllowed(policy, arnOf('GET', '/api/v1/projects/prj_1'))).toBe(true);
  });
});

describe('route table', () => {
  it('matches paths and extracts the id', () => {
    expect(matchPath('/api/v1/clients/{id}', '/api/v1/clients/cli_1')).toEqual({ id: 'cli_1' });
    expect(matchPath('/api/v1/clients/{id}', '/api/v1/clients/')).toBeUndefined();
    expect(matchPath('/api/v1/clients/{id}', '/api/v1/clients/a/b')).toBeUndefined();
    expect(matchPath('/api/v1/clients', '/api/v1/clients')).toEqual({});
  });

  it('has one route per operation and method-path pair, each with a scope of its resource', () => {
    expect(new Set(ROUTES.map((r) => r.operation)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
    for (const r of PROTECTED_ROUTES) {
      expect(r.scope.endsWith(r.method === 'GET' ? ':read' : ':write')).toBe(true);
      expect(accessOf(r)).toBe(r.method === 'GET' ? 'read' : 'write');
    }
    // The only public route is the API description, and it touches no data.
    expect(ROUTES.filter((r) => r.scope === null).map((r) => [r.operation, accessOf(r)])).toEqual([['getOpenApiDocument', 'none']]);
  });
});
