/**
 * Each function checks its own route's scope, whatever the authorizer let through: the frame
 * reads it from the row of the operation its handler names (shared/http/handler.ts), so this
 * calls every protected route's real handler module and compares with the route table's scope.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROTECTED_ROUTES, SCOPES, type ProtectedRoute } from '../../shared/api/routes.ts';
import { importHandler, lambdaContext, proxyEvent, useSharedTable, type ProxyHandler } from '../support/in-process.ts';

const handlers = new Map<string, ProxyHandler>();

beforeAll(async () => {
  useSharedTable('handler-scopes-test-cursor-signing-key');
  for (const route of PROTECTED_ROUTES) handlers.set(route.operation, await importHandler(route.entry));
});

/** A request to the route as the authorizer hands it on, with these scopes granted. */
function call(route: ProtectedRoute, scopes: readonly string[]) {
  const takesId = route.path.includes('{id}');
  const event = proxyEvent(`scopes-${randomUUID()}`, route.method, route.path.replace('{id}', 'x'), { resource: route.path, scopes, ...(takesId ? { id: 'x' } : {}) });
  return handlers.get(route.operation)!(event, lambdaContext());
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
