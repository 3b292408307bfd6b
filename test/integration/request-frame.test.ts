/**
 * The request frame of every operation, driven by the route table and the registry's fixtures
 * rather than written out per resource: JSON bodies and their media type and size, the fields an
 * update refuses, ids that name nothing, and request ids. A resource added to the registry and
 * the route table is covered here without a line of its own.
 */
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, isRegistryRoute } from '../../shared/api/routes.ts';
import { RESOURCES, RESOURCE_LIST, type ResourceKind } from '../../shared/model/resources.ts';
import { expectInvalid, requestIdOf, send } from '../support/assertions.ts';
import { expectError, workspace, type ApiResponse } from '../support/api.ts';
import { FIXTURES, collectionPath, createOne, pathFor, readBack, readyFor, unknownId } from '../support/fixtures.ts';

type Workspace = Awaited<ReturnType<typeof workspace>>;

const ROUTES_OF_RESOURCES = ROUTES.filter(isRegistryRoute);
const concrete = (path: string, id: string) => path.replace('/api/v1', '').replace('{id}', id);

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace('frame');
});

/** What a collection holds now (a singleton: the one object): a refused request must leave it as it was. */
async function snapshot(listPath: string) {
  const singleton = RESOURCE_LIST.some((r) => r.singleton && listPath === `/${r.collection}`);
  const response = await ws.api.get(singleton ? listPath : `${listPath}?limit=100`);
  expect(response.status).toBe(200);
  return singleton ? response.body : response.body.data;
}

describe.each(ROUTES_OF_RESOURCES.filter((r) => r.action === 'create' || r.action === 'update').map((r) => [r.operation, r] as const))(
  '%s: the JSON body',
  (_operation, route) => {
    let path: string;
    let listPath: string;
    let body: Record<string, unknown>;
    beforeAll(async () => {
      const fixture = FIXTURES[route.resource];
      const parentId = await fixture.parent?.(ws.api);
      listPath = collectionPath(route.resource, parentId);
      path = pathFor(route, route.action === 'update' ? await createOne(ws.api, route.resource) : undefined, parentId);
      body = route.action === 'update' ? fixture.change! : await fixture.body(ws.api);
    });

    it('refuses a body that is not a JSON object (400, param body), changing nothing', async () => {
      const before = await snapshot(listPath);
      for (const raw of ['{"a": 1,', '[]', '[{}]', '"x"', '42', 'null', 'true', '']) {
        const error = expectError(await send(route.method, path, ws.token, raw, 'application/json'), 400, 'invalid_request');
        expect(error.param, raw).toBe('body');
      }
      expectError(await send(route.method, path, ws.token, undefined, 'application/json'), 400, 'invalid_request');
      expect(await snapshot(listPath)).toEqual(before);
    });

    it('refuses a Content-Type other than JSON, or none, with 415', async () => {
      const before = await snapshot(listPath);
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'text/json', undefined]) {
        const error = expectError(await send(route.method, path, ws.token, JSON.stringify(body), contentType), 415, 'unsupported_media_type');
        expect(error.message).toMatch(/application\/json/);
      }
      expect(await snapshot(listPath)).toEqual(before);
    });

    it('refuses a body over 64 KiB with 413, changing nothing', async () => {
      const before = await snapshot(listPath);
      expectError(await send(route.method, path, ws.token, JSON.stringify({ ...body, pad: 'a'.repeat(70_000) }), 'application/json'), 413, 'payload_too_large');
      expect(await snapshot(listPath)).toEqual(before);
    });

    it('refuses any Content-Encoding but identity with 415, compressed or not, changing nothing', async () => {
      const before = await snapshot(listPath);
      const json = JSON.stringify(body);
      // A gzip body, a plain body that claims gzip (once read as JSON and stored), other codings.
      for (const [coding, raw] of [['gzip', gzipSync(json)], ['gzip', json], ['br', json], ['deflate, gzip', json], ['identity, gzip', json]] as const) {
        const error = expectError(await send(route.method, path, ws.token, raw, 'application/json', { 'Content-Encoding': coding }), 415, 'unsupported_media_type');
        expect(error.message).toBe(`The Content-Encoding ${coding} is not supported: send the body uncompressed, without Content-Encoding`);
      }
      expect(await snapshot(listPath)).toEqual(before);
      const identity = await send(route.method, path, ws.token, json, 'application/json', { 'Content-Encoding': 'identity' });
      expect(identity.status, JSON.stringify(identity.body)).toBe(route.action === 'create' ? 201 : 200);
    });

    it('accepts Content-Type application/json; charset=utf-8', async () => {
      const fresh = route.action === 'create' && FIXTURES[route.resource].singleUse ? await FIXTURES[route.resource].body(ws.api) : body;
      const response = await send(route.method, path, ws.token, JSON.stringify(fresh), 'application/json; charset=utf-8');
      expect(response.status, JSON.stringify(response.body)).toBe(route.action === 'create' ? 201 : 200);
    });
  },
);

describe.each(ROUTES_OF_RESOURCES.filter((r) => r.action === 'update').map((r) => [r.operation, r] as const))('%s: refused fields', (_operation, route) => {
  const resource = RESOURCES[route.resource];
  let item: Record<string, unknown>;
  beforeAll(async () => {
    item = await createOne(ws.api, route.resource);
  });

  /** What no update may set: the common read-only fields, the resource's own, and its immutable ones. */
  const refused = ['id', 'object', 'workspace_id', 'created_at', 'updated_at', ...Object.keys(resource.readOnly ?? {}), ...Object.keys(resource.immutable ?? {})];

  it.each(refused)('refuses %s (400 naming it), alone or beside a valid change, applying neither', async (field) => {
    const value = item[field] ?? 'x';
    for (const body of [{ [field]: value }, { ...FIXTURES[route.resource].change, [field]: value }]) {
      const error = expectInvalid(await ws.api.patch(concrete(route.path, String(item.id)), body), [field]);
      expect(error.param).toBe(field);
    }
    expect((await ws.api.get(concrete(route.path, String(item.id)))).body).toEqual(readBack(route.resource, item));
  });

  it('refuses an unknown field as such', async () => {
    const error = expectInvalid(await ws.api.patch(concrete(route.path, String(item.id)), { colour: 'blue' }), ['colour']);
    expect(error.message).toBe('colour is not a known field');
  });
});

describe.each(ROUTES_OF_RESOURCES.filter((r) => r.path.includes('{id}')).map((r) => [r.operation, r] as const))('%s: ids', (_operation, route) => {
  const other = RESOURCE_LIST.find((r) => r.kind !== route.resource)!.kind as ResourceKind;
  it.each([
    ['an unknown id', () => unknownId(route.resource)],
    ['a malformed id', () => 'nope'],
    ['an id of another kind', () => unknownId(other)],
  ])('answers 404 not_found for %s', async (_name, id) => {
    const body = route.action === 'update' ? JSON.stringify(FIXTURES[route.resource].change) : undefined;
    // Every id of the path (a payment's invoice and its own) is the one tried.
    const path = route.path.replace('/api/v1', '').replaceAll(/\{[^}]+\}/g, id());
    const error = expectError(await send(route.method, path, ws.token, body, body ? 'application/json' : undefined), 404, 'not_found');
    expect(error.message).toContain(id());
  });
});

describe('request ids', () => {
  it('are distinct on every response of every operation, success or error, and repeated in error bodies', async () => {
    const responses: ApiResponse[] = [];
    for (const kind of Object.keys(FIXTURES) as ResourceKind[]) {
      const shared = await createOne(ws.api, kind);
      for (const route of ROUTES_OF_RESOURCES.filter((r) => r.resource === kind && r.action !== 'create' && r.action !== 'start')) {
        // A resource with a lifecycle (invoices) gets an item made ready for each action.
        const item = FIXTURES[kind].ready ? await readyFor(ws.api, kind, route.action) : shared;
        // A batch makes one of the resource (its create's body) among its entries.
        const batch = route.action === 'createMany' ? { entries: [await FIXTURES[kind].body(ws.api)] } : undefined;
        const body = route.action === 'update' ? JSON.stringify(FIXTURES[kind].change) : batch ? JSON.stringify(batch) : undefined;
        const path = pathFor(route, item);
        responses.push(await send(route.method, path, ws.token, body, body ? 'application/json' : undefined));
        // The same operation failing: a deleted or unknown id, or a list with an unknown parameter.
        // A singleton's path names no id, nor a batch's: their failing requests have a query they do not take.
        const failing = route.action === 'list' || route.action === 'createMany' || FIXTURES[kind].singleton ? `${path}?colour=blue` : pathFor(route, { ...item, id: unknownId(kind) });
        const error = await send(route.method, failing, ws.token, body, body ? 'application/json' : undefined);
        expectError(error, error.status, error.body.error.type);
        responses.push(error);
      }
    }
    expect(responses.filter((r) => r.status < 300).length).toBe(responses.length / 2);
    const ids = responses.map(requestIdOf);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
