/**
 * Authentication and scopes, row by row of the contract: a missing header, every kind of bad
 * token, each route without its scope, write not granting read, Cognito's scope form, and the
 * workspace taken from the API client's registration only.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
// Every route but the public OpenAPI document needs a token.
import { PROTECTED_ROUTES as ROUTES, SCOPES, type Route, type Scope } from '../../shared/api/routes.ts';
import { issuerFromKey, LOCAL_ISSUER } from '../../infra/local/issuer.ts';
import { apiFor, call, createClient, expectError, token, workspace, type Api } from '../support/api.ts';

const REALM = 'Bearer realm="timebill-api"';
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;

const SAMPLE_ID: Record<string, string> = {
  clients: 'cli_00000000000000000000000000',
  projects: 'prj_00000000000000000000000000',
  time_entries: 'te_00000000000000000000000000',
  events: 'evt_00000000000000000000000000',
  webhook_endpoints: 'we_00000000000000000000000000',
};

/** A concrete request for a route: the path with a well-formed id, and a plausible body. */
function requestFor(route: Route): { method: string; path: string; body?: unknown } {
  const collection = route.path.split('/')[3]!;
  const path = route.path.replace('{id}', SAMPLE_ID[collection]!);
  if (route.method === 'POST' || route.method === 'PATCH') {
    const body =
      collection === 'clients'
        ? { company_name: 'Scoped', company_email: 'scoped@example.test' }
        : collection === 'projects'
          ? route.method === 'POST'
            ? { name: 'Scoped', client_id: SAMPLE_ID.clients, billing_type: 'Monthly' }
            : { name: 'Scoped' }
          : { client_id: SAMPLE_ID.clients, started_at: '2026-01-01T00:00:00Z', duration_minutes: 5 };
    return { method: route.method, path, body };
  }
  return { method: route.method, path };
}

function send(route: Route, headers: Record<string, string>) {
  const r = requestFor(route);
  return call(r.method, r.path, { headers, ...(r.body !== undefined ? { body: r.body } : {}) });
}

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

function expectInvalidToken(response: Awaited<ReturnType<typeof call>>, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(401);
  expectError(response, 401, 'authentication_required');
  expect(response.headers.get('www-authenticate'), what).toBe(INVALID_TOKEN);
}

function expectInsufficientScope(response: Awaited<ReturnType<typeof call>>, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(403);
  expectError(response, 403, 'insufficient_scope');
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge.startsWith(REALM), what).toBe(true);
  expect(challenge, what).toContain('error="insufficient_scope"');
}

/** The routes a few checks run on: a list, a retrieve, a create, an update and a delete. */
const SOME_ROUTES = ['listClients', 'retrieveProject', 'createProject', 'updateClient', 'deleteTimeEntry'].map(
  (op) => ROUTES.find((r) => r.operation === op)!,
);

describe('authentication', () => {
  let realKey: KeyObject;
  let ws: { id: string; token: string; api: Api };

  beforeAll(async () => {
    realKey = createPrivateKey(readFileSync(join(inject('stateDir'), 'issuer', 'private-key.pem')));
    ws = await workspace('auth');
  });

  it('answers a missing Authorization header on every route with 401 and a challenge without error=', async () => {
    for (const route of ROUTES) {
      const response = await send(route, {});
      expect(response.status, route.operation).toBe(401);
      const error = expectError(response, 401, 'authentication_required');
      expect(error.message).toMatch(/token/i);
      const challenge = response.headers.get('www-authenticate');
      expect(challenge, route.operation).toBe(REALM);
      expect(challenge).not.toContain('error=');
    }
  });

  it('answers a malformed Authorization header with 401 invalid_token', async () => {
    const valid = ws.token;
    const headers = [
      'Basic x',
      'Basic dXNlcjpwYXNz',
      `Token ${valid}`,
      valid, // no scheme
      'Bearer',
      'Bearer abc',
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
      `Bearer ${valid}.extra`,
      `Bearer ${valid.slice(0, -4)}`,
      `Bearer ${valid}x`,
      `Bearer ${valid} ${valid}`,
    ];
    for (const authorization of headers) {
      for (const route of SOME_ROUTES) expectInvalidToken(await send(route, { Authorization: authorization }), `${authorization.slice(0, 30)} on ${route.operation}`);
    }
  });

  it('refuses a wrongly signed token, a token of another issuer, an ID token and an unsigned token', async () => {
    const clientId = `local-${ws.id}`;
    const { privateKey: otherKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const [header, payload] = issuerFromKey(realKey).mint({ clientId, scopes: SCOPES }).split('.');
    const unsignedHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    // The real signature of one token pasted on another's claims.
    const foreignSignature = issuerFromKey(realKey).mint({ clientId, scopes: ['clients:read'] }).split('.')[2];
    const cases: Record<string, string> = {
      'wrongly signed': issuerFromKey(otherKey).mint({ clientId, scopes: SCOPES }),
      'wrong issuer': issuerFromKey(realKey, 'https://issuer.evil.example').mint({ clientId, scopes: SCOPES }),
      'ID token': issuerFromKey(realKey).mint({ clientId, scopes: SCOPES, extra: { token_use: 'id' } }),
      'alg none': `${unsignedHeader}.${payload}.AAAA`,
      'signature of another token': `${header}.${payload}.${foreignSignature}`,
      'not yet valid': issuerFromKey(realKey).mint({ clientId, scopes: SCOPES, extra: { nbf: Math.floor(Date.now() / 1000) + 3600 } }),
    };
    for (const [what, t] of Object.entries(cases)) {
      for (const route of SOME_ROUTES) expectInvalidToken(await send(route, bearer(t)), `${what} on ${route.operation}`);
    }
    // The same claims properly signed by the real issuer are accepted.
    const good = await call('GET', '/api/v1/clients', { token: issuerFromKey(realKey, LOCAL_ISSUER).mint({ clientId, scopes: SCOPES }) });
    expect(good.status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const expired = await token(ws.id, SCOPES, -60);
    for (const route of SOME_ROUTES) expectInvalidToken(await send(route, bearer(expired)), `expired on ${route.operation}`);
    const justExpired = issuerFromKey(realKey).mint({ clientId: `local-${ws.id}`, scopes: SCOPES, ttlSeconds: -1 });
    expectInvalidToken(await call('GET', '/api/v1/clients', { token: justExpired }), 'expired a second ago');
  });

  it('refuses a token that expires while its policy is cached', async () => {
    const short = await token(ws.id, SCOPES, 2);
    expect((await call('GET', '/api/v1/clients', { token: short })).status).toBe(200);
    const exp = JSON.parse(Buffer.from(short.split('.')[1]!, 'base64url').toString()).exp as number;
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 100));
    expectInvalidToken(await call('GET', '/api/v1/clients', { token: short }), 'expired after caching');
  });

  it('refuses a token without exp, on every route', async () => {
    const forever = issuerFromKey(realKey).mint({ clientId: `local-${ws.id}`, scopes: SCOPES, extra: { exp: undefined } });
    expect(JSON.parse(Buffer.from(forever.split('.')[1]!, 'base64url').toString())).not.toHaveProperty('exp');
    for (const route of SOME_ROUTES) expectInvalidToken(await send(route, bearer(forever)), `no exp on ${route.operation}`);
  });

  it('refuses a validly signed token of an unregistered API client', async () => {
    const unknown = issuerFromKey(realKey).mint({ clientId: 'unregistered-x', scopes: SCOPES });
    for (const route of SOME_ROUTES) expectInvalidToken(await send(route, bearer(unknown)), `unregistered on ${route.operation}`);
    const noClientId = issuerFromKey(realKey).mint({ clientId: `local-${ws.id}`, scopes: SCOPES, extra: { client_id: undefined } });
    expectInvalidToken(await call('GET', '/api/v1/clients', { token: noClientId }), 'no client_id claim');
  });

  it('accepts the scheme in any case', async () => {
    const response = await call('GET', '/api/v1/clients', { headers: { Authorization: `bearer ${ws.token}` } });
    expect(response.status).toBe(200);
  });

  it('puts the request id on every response, success or error, as X-Request-Id', async () => {
    const ok = await ws.api.get('/clients');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toMatch(/\S/);
    const [e1, e2] = await Promise.all([call('GET', '/api/v1/clients'), call('GET', '/api/v1/clients', { token: 'a.b.c' })]);
    const id1 = expectError(e1, 401, 'authentication_required').request_id;
    const id2 = expectError(e2, 401, 'authentication_required').request_id;
    expect(id1).not.toBe(id2);
    expect(id1).not.toBe(ok.headers.get('x-request-id'));
  });
});

describe('scopes', () => {
  let realKey: KeyObject;
  let wsId: string;
  let full: Api;

  beforeAll(async () => {
    realKey = createPrivateKey(readFileSync(join(inject('stateDir'), 'issuer', 'private-key.pem')));
    const ws = await workspace('scopes');
    wsId = ws.id;
    full = ws.api;
  });

  it('refuses each of the 43 routes to a token holding every scope but its own (403 insufficient_scope)', async () => {
    expect(ROUTES).toHaveLength(43);
    for (const route of ROUTES) {
      const others = SCOPES.filter((s) => s !== route.scope);
      const t = await token(wsId, others);
      expectInsufficientScope(await send(route, bearer(t)), `${route.operation} without ${route.scope}`);
      // The same token is still good on the routes its scopes grant (its cached policy covers them).
      const granted = ROUTES.find((r) => r.scope !== route.scope && r.method === 'GET' && !r.path.includes('{id}'))!;
      expect((await send(granted, bearer(t))).status, `${granted.operation} with ${others.join(',')}`).toBe(200);
      expectInsufficientScope(await send(route, bearer(t)), `${route.operation} without ${route.scope}, cached policy`);
    }
  });

  it('lets each route through with only its own scope (the feed, beside the read scope of one collection it shows)', async () => {
    for (const route of ROUTES) {
      const t = await token(wsId, route.scope === 'events:read' ? [route.scope, 'clients:read'] : [route.scope]);
      const response = await send(route, bearer(t));
      expect([401, 403], `${route.operation} with ${route.scope}: ${JSON.stringify(response.body)}`).not.toContain(response.status);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('x-request-id')).toMatch(/\S/);
    }
  });

  it('does not let a write scope read, nor a read scope write', async () => {
    const pairs: [Scope, string, string][] = [
      ['clients:write', 'GET', '/api/v1/clients'],
      ['clients:write', 'GET', `/api/v1/clients/${SAMPLE_ID.clients}`],
      ['projects:write', 'GET', '/api/v1/projects'],
      ['projects:write', 'GET', `/api/v1/projects/${SAMPLE_ID.projects}`],
      ['time_entries:write', 'GET', '/api/v1/time_entries'],
      ['time_entries:write', 'GET', `/api/v1/time_entries/${SAMPLE_ID.time_entries}`],
      ['clients:read', 'POST', '/api/v1/clients'],
      ['clients:read', 'DELETE', `/api/v1/clients/${SAMPLE_ID.clients}`],
      ['projects:read', 'PATCH', `/api/v1/projects/${SAMPLE_ID.projects}`],
      ['time_entries:read', 'DELETE', `/api/v1/time_entries/${SAMPLE_ID.time_entries}`],
      ['clients:read', 'GET', '/api/v1/projects'],
      ['projects:read', 'GET', '/api/v1/time_entries'],
      // The feed needs events:read (beside a collection's read scope, event-visibility.test.ts), and events:read reads nothing else.
      ['clients:read', 'GET', '/api/v1/events'],
      ['webhook_endpoints:read', 'GET', `/api/v1/events/${SAMPLE_ID.events}`],
      ['events:read', 'GET', '/api/v1/clients'],
    ];
    for (const [scope, method, path] of pairs) {
      const t = await token(wsId, [scope]);
      const body = method === 'GET' || method === 'DELETE' ? {} : { body: { name: 'x' } };
      expectInsufficientScope(await call(method, path, { token: t, ...body }), `${method} ${path} with ${scope}`);
    }
  });

  it('refuses every route to a valid token with no API scope at all', async () => {
    const t = issuerFromKey(realKey).mint({ clientId: `local-${wsId}`, scopes: ['openid', 'timebill-api/admin', 'clients:readwrite'] });
    for (const route of ROUTES) expectInsufficientScope(await send(route, bearer(t)), `${route.operation} with no API scope`);
  });

  it("grants nothing for another resource server's scopes or any other prefix, and the token endpoint passes them unchanged", async () => {
    for (const scope of ['other-api/clients:write', 'a/b/clients:write', '/clients:write', 'timebill-api/x/clients:write']) {
      const t = await token(wsId, [scope, 'clients:read']);
      expect(JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).scope).toBe(`${scope} clients:read`);
      const before = (await full.get('/clients?limit=100')).body.data.length;
      expectInsufficientScope(await call('POST', '/api/v1/clients', { token: t, body: { company_name: 'No', company_email: 'no@example.test' } }), scope);
      expect((await full.get('/clients?limit=100')).body.data.length).toBe(before);
      expect((await call('GET', '/api/v1/clients', { token: t })).status).toBe(200);
    }
  });

  it("accepts scopes in Cognito's resource-server form", async () => {
    const client = await createClient(full, { company_name: 'Cognito Scoped' });
    const t = issuerFromKey(realKey).mint({ clientId: `local-${wsId}`, scopes: ['timebill-api/clients:read', 'timebill-api/projects:write'] });
    const api = apiFor(t);
    const list = await api.get('/clients?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(client.id);
    expect((await api.get(`/clients/${client.id}`)).status).toBe(200);
    const project = await api.post('/projects', { name: 'Via Cognito', client_id: client.id, billing_type: 'Retainer' });
    expect(project.status).toBe(201);
    expect(project.body.workspace_id).toBe(wsId);
    expectInsufficientScope(await api.post('/clients', { company_name: 'No', company_email: 'no@example.test' }), 'clients:write not granted');
    expectInsufficientScope(await api.get('/projects'), 'projects:read not granted');
    expectInsufficientScope(await api.get('/time_entries'), 'time_entries:read not granted');
  });

  it('takes the workspace from the API client registration, never from claims or headers', async () => {
    const other = await workspace('scopes-other');
    const mine = await createClient(full, { company_name: 'Mine' });
    const theirs = await createClient(other.api, { company_name: 'Theirs' });
    const t = issuerFromKey(realKey).mint({
      clientId: `local-${wsId}`,
      scopes: SCOPES,
      extra: { workspace_id: other.id, 'custom:workspace_id': other.id },
    });
    const response = await call('GET', '/api/v1/clients?limit=100', { token: t, headers: { 'X-Workspace-Id': other.id } });
    expect(response.status).toBe(200);
    const ids = response.body.data.map((c: { id: string }) => c.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    for (const c of response.body.data) expect(c.workspace_id).toBe(wsId);
    expectError(await call('GET', `/api/v1/clients/${theirs.id}`, { token: t }), 404, 'not_found');
  });
});
