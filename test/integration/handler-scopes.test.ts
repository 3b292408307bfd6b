/**
 * Each function checks its own route's scope, whatever the authorizer let through: the frame
 * derives it from the resource and action a handler names (shared/http/handler.ts), so this
 * calls every protected route's real handler module and compares with the route table's scope.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { PROTECTED_ROUTES, SCOPES, type ProtectedRoute } from '../../shared/routes.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const handlers = new Map<string, Handler>();

beforeAll(async () => {
  Object.assign(process.env, {
    TABLE_NAME: inject('tableName'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    CURSOR_SIGNING_KEY: 'handler-scopes-test-cursor-signing-key',
  });
  for (const route of PROTECTED_ROUTES) {
    const url = pathToFileURL(resolve(import.meta.dirname, '../..', route.entry)).href;
    handlers.set(route.operation, ((await import(/* @vite-ignore */ url)) as { handler: Handler }).handler);
  }
});

/** A request to the route as the authorizer hands it on, with these scopes granted. */
function call(route: ProtectedRoute, scopes: readonly string[]) {
  const path = route.path.replace('{id}', 'x');
  const event = {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: route.path.includes('{id}') ? { id: 'x' } : null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: randomUUID(),
      path,
      authorizer: { workspaceId: `scopes-${randomUUID()}`, apiClientId: 'local-scopes', scopes: scopes.join(' '), tokenExpiresAt: Math.floor(Date.now() / 1000) + 3600 },
    },
  } as unknown as APIGatewayProxyEvent;
  const deadline = Date.now() + 10_000;
  return handlers.get(route.operation)!(event, { awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now() } as Context);
}

describe('the scope each function checks', () => {
  it.each(PROTECTED_ROUTES.map((route) => [route.operation, route] as const))('%s: is its route\'s, refused with 403 when every other scope is granted', async (_name, route) => {
    const refused = await call(route, SCOPES.filter((scope) => scope !== route.scope));
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).error.type).toBe('insufficient_scope');
    expect(refused.headers?.['WWW-Authenticate']).toContain(`scope="${route.scope}"`);
    // Its own scope gets past the check (whatever the request then answers: 400, 404, 200); the
    // feed also needs a collection it may show (events.md: you see only what you could read).
    const passed = await call(route, route.resource === 'event' ? [route.scope, 'clients:read'] : [route.scope]);
    expect(passed.statusCode, passed.body).not.toBe(403);
  });
});
