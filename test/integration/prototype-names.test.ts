/**
 * Names a caller chooses are ordinary names: a query parameter or a header named after an
 * Object.prototype property (`constructor`, `__proto__`, …) is never a 5xx on any route. An
 * unknown query parameter is a 400 naming it; a header nobody reads changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, type Route } from '../../shared/api/routes.ts';
import { RESOURCES } from '../../shared/model/resources.ts';
import { call, expectError, workspace, type Api } from '../support/api.ts';
import { FIXTURES, collectionPath, unknownId } from '../support/fixtures.ts';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', '__defineGetter__'] as const;

/** A request to `route` that is valid but for what a test adds: unknown ids, a valid body. */
async function requestOf(route: Route, api: Api): Promise<{ path: string; body?: unknown }> {
  // Time summaries take a range: the rest of the query is what the test adds.
  if (route.resource === 'time_summary') return { path: `${route.path}?from=2026-01-01&to=2026-02-01` };
  if (route.resource === 'billing_run_result') return { path: route.path.replace('{id}', unknownId('billing_run')) };
  const id = route.resource === null || route.resource === 'event' ? 'evt_01ARZ3NDEKTSV4RRFFQ69G5FAV' : unknownId(route.resource);
  const path = route.path.replace('{id}', id);
  if (route.action === 'create' || route.action === 'start') return { path, body: await FIXTURES[route.resource].body(api) };
  if (route.action === 'update') return { path, body: FIXTURES[route.resource].change };
  return { path };
}

describe('names of Object.prototype properties', () => {
  it('as a query parameter: 400 naming the parameter on every route, never a 5xx', async () => {
    const { api, token } = await workspace();
    for (const route of ROUTES) {
      const { path, body } = await requestOf(route, api);
      for (const name of NAMES) {
        const response = await call(route.method, `${path}${path.includes('?') ? '&' : '?'}${name}=1`, { token, body });
        const error = expectError(response, 400, 'invalid_request');
        expect(error.param, `${route.operation} ?${name}`).toBe(name);
      }
      // All of them at once, some twice: each is named once.
      const all = await call(route.method, `${path}${path.includes('?') ? '&' : '?'}${NAMES.map((n) => `${n}=1&${n}=2`).join('&')}`, { token, body });
      const error = expectError(all, 400, 'invalid_request');
      expect(error.errors?.map((e) => e.param).sort(), route.operation).toEqual([...NAMES].sort());
    }
  });

  it('as a header: answered as the same request without it, on every route', async () => {
    const { api, token } = await workspace();
    const headers = Object.fromEntries(NAMES.map((name) => [name, '1']));
    for (const route of ROUTES) {
      const { path, body } = await requestOf(route, api);
      const plain = await call(route.method, path, { token, body });
      // A create whose body makes one item only (an invoice) is sent again with a fresh one.
      const again = route.action === 'create' && FIXTURES[route.resource].singleUse ? (await requestOf(route, api)).body : body;
      const hostile = await call(route.method, path, { token, body: again, headers });
      expect(plain.status, route.operation).toBeLessThan(500);
      expect(hostile.status, route.operation).toBe(plain.status);
      expect(hostile.body?.error?.type, route.operation).toBe(plain.body?.error?.type);
    }
  });

  it('a list filter given with such a name is still refused, the others still apply', async () => {
    const { api } = await workspace();
    for (const kind of (Object.keys(RESOURCES) as (keyof typeof RESOURCES)[]).filter((k) => !FIXTURES[k].singleton)) {
      // A nested list's query is refused before its parent is looked up; a singleton has no list.
      const response = await api.get(`${collectionPath(kind, unknownId('invoice'))}?limit=5&constructor=x`);
      expect(expectError(response, 400, 'invalid_request').param).toBe('constructor');
    }
  });
});
