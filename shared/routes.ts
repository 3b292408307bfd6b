/**
 * The route table: the one source of truth for every operation of the API.
 * The CDK stack, the authorizer's policy, the local gateway and the OpenAPI document all read it.
 */
export const SCOPES = [
  'clients:read',
  'clients:write',
  'projects:read',
  'projects:write',
  'time_entries:read',
  'time_entries:write',
  'events:read',
  'webhook_endpoints:read',
  'webhook_endpoints:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable operation name; also the Lambda function's logical name. */
  readonly operation: string;
  readonly method: HttpMethod;
  /** API Gateway resource path; `{id}` is the only path parameter. */
  readonly path: string;
  /** The scope the token must hold; null for the one public route (the OpenAPI document). */
  readonly scope: Scope | null;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** What the function may do to the table (least privilege in the CDK stack). */
  readonly access: 'read' | 'write' | 'none';
}

const route = (
  operation: string,
  method: HttpMethod,
  path: string,
  scope: Scope | null,
  entry: string,
): Route => ({
  operation,
  method,
  path,
  scope,
  entry: `functions/${entry}.ts`,
  access: scope === null ? 'none' : method === 'GET' ? 'read' : 'write',
});

export const API_PREFIX = '/api/v1';

export const ROUTES: readonly Route[] = [
  route('listClients', 'GET', `${API_PREFIX}/clients`, 'clients:read', 'clients/list'),
  route('retrieveClient', 'GET', `${API_PREFIX}/clients/{id}`, 'clients:read', 'clients/retrieve'),
  route('createClient', 'POST', `${API_PREFIX}/clients`, 'clients:write', 'clients/create'),
  route('updateClient', 'PATCH', `${API_PREFIX}/clients/{id}`, 'clients:write', 'clients/update'),
  route('deleteClient', 'DELETE', `${API_PREFIX}/clients/{id}`, 'clients:write', 'clients/delete'),
  route('listProjects', 'GET', `${API_PREFIX}/projects`, 'projects:read', 'projects/list'),
  route('retrieveProject', 'GET', `${API_PREFIX}/projects/{id}`, 'projects:read', 'projects/retrieve'),
  route('createProject', 'POST', `${API_PREFIX}/projects`, 'projects:write', 'projects/create'),
  route('updateProject', 'PATCH', `${API_PREFIX}/projects/{id}`, 'projects:write', 'projects/update'),
  route('deleteProject', 'DELETE', `${API_PREFIX}/projects/{id}`, 'projects:write', 'projects/delete'),
  route('listTimeEntries', 'GET', `${API_PREFIX}/time_entries`, 'time_entries:read', 'time-entries/list'),
  route('retrieveTimeEntry', 'GET', `${API_PREFIX}/time_entries/{id}`, 'time_entries:read', 'time-entries/retrieve'),
  route('logTimeEntry', 'POST', `${API_PREFIX}/time_entries`, 'time_entries:write', 'time-entries/log'),
  route('deleteTimeEntry', 'DELETE', `${API_PREFIX}/time_entries/{id}`, 'time_entries:write', 'time-entries/delete'),
  route('listEvents', 'GET', `${API_PREFIX}/events`, 'events:read', 'events/list'),
  route('retrieveEvent', 'GET', `${API_PREFIX}/events/{id}`, 'events:read', 'events/retrieve'),
  route('listWebhookEndpoints', 'GET', `${API_PREFIX}/webhook_endpoints`, 'webhook_endpoints:read', 'webhook-endpoints/list'),
  route('retrieveWebhookEndpoint', 'GET', `${API_PREFIX}/webhook_endpoints/{id}`, 'webhook_endpoints:read', 'webhook-endpoints/retrieve'),
  route('createWebhookEndpoint', 'POST', `${API_PREFIX}/webhook_endpoints`, 'webhook_endpoints:write', 'webhook-endpoints/create'),
  route('updateWebhookEndpoint', 'PATCH', `${API_PREFIX}/webhook_endpoints/{id}`, 'webhook_endpoints:write', 'webhook-endpoints/update'),
  route('deleteWebhookEndpoint', 'DELETE', `${API_PREFIX}/webhook_endpoints/{id}`, 'webhook_endpoints:write', 'webhook-endpoints/delete'),
  // Public: integrators fetch the API description before they have a token.
  route('getOpenApiDocument', 'GET', `${API_PREFIX}/openapi.json`, null, 'openapi'),
];

/** The routes that need a token (all but the public ones). */
export const PROTECTED_ROUTES = ROUTES.filter((r): r is Route & { scope: Scope } => r.scope !== null);

export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/** Seconds API Gateway caches an authorizer's policy for a token (the local gateway does the same). */
export const AUTHORIZER_CACHE_TTL_SECONDS = 300;

export function routeByOperation(operation: string): Route {
  const found = ROUTES.find((r) => r.operation === operation);
  if (!found) throw new Error(`No route for operation ${operation}`);
  return found;
}

/** Matches a concrete request path against a route's resource path; returns the path parameters. */
export function matchPath(resourcePath: string, requestPath: string): Record<string, string> | undefined {
  const want = resourcePath.split('/');
  const got = requestPath.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    const actual = got[i]!;
    if (segment.startsWith('{') && segment.endsWith('}')) {
      if (actual === '') return undefined;
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined; // not valid percent-encoding: names nothing
      }
      params[segment.slice(1, -1)] = decoded;
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

/** The execute-api resource pattern of a route (`GET/api/v1/clients/*`), used in authorizer policies. */
export function policyResource(r: Route): string {
  return `${r.method}${r.path.replace(/\{[^}]+\}/g, '*')}`;
}

/** Stage-wide throttling (API Gateway's token bucket); the local gateway applies the same. */
export const STAGE_THROTTLING = { rateLimit: 100, burstLimit: 200 } as const;

/** API Gateway's own limit on a request's size; the handlers enforce a smaller body limit. */
export const GATEWAY_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** Each function's timeout: well under API Gateway's 29 s, so a stuck call ends as a function error. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** API Gateway's maximum integration timeout. */
export const GATEWAY_INTEGRATION_TIMEOUT_MS = 29_000;
