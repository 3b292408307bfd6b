/**
 * HTTP-level rules found by a hostile caller: a declared charset other than UTF-8,
 * nosniff/HSTS on every response whoever answers, oversized headers answered in the contract's
 * shape, and idempotent replays identical to the byte.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { send } from '../support/assertions.ts';
import { baseUrl, call, expectError, token, workspace } from '../support/api.ts';
import { assertDeclaredStatus } from '../support/declared-statuses.ts';

const HSTS = 'max-age=31536000; includeSubDomains';

describe('charset', () => {
  it('refuses a charset other than UTF-8 with 415 naming it, storing nothing', async () => {
    const { api, token: t } = await workspace();
    const body = '{"company_name":"Caf\u00e9","company_email":"a@b.test"}';
    for (const charset of ['iso-8859-1', 'ISO-8859-1', '"windows-1252"', 'utf-16']) {
      const error = expectError(await send('POST', '/clients', t, body, `application/json; charset=${charset}`), 415, 'unsupported_media_type');
      expect(error.message).toContain(charset.replaceAll('"', ''));
    }
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    const client = await api.get('/clients');
    expect(client.status).toBe(200);
  });

  it('accepts UTF-8 in any spelling, and keeps é', async () => {
    const { api, token: t } = await workspace();
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; CHARSET=utf8']) {
      const created = await send('POST', '/clients', t, '{"company_name":"Caf\u00e9","company_email":"a@b.test"}', contentType);
      expect(created.status, contentType).toBe(201);
      expect(created.body.company_name).toBe('Caf\u00e9');
    }
    expect((await api.get('/clients')).body.data).toHaveLength(3);
  });
});

describe('security headers', () => {
  it('are on every response: handlers, gateway responses, the OpenAPI document and the local endpoints', async () => {
    const { token: t, api } = await workspace();
    const responses = {
      'handler 200': await api.get('/clients'),
      'handler 400': await api.get('/clients?limit=0'),
      'handler 404': await api.get('/clients/cli_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      'gateway 401': await call('GET', '/api/v1/clients'),
      'gateway 404': await call('GET', '/api/v1/nope', { token: t }),
      'gateway 403': await call('POST', '/api/v1/clients', { token: await token(`ws-${randomUUID().slice(0, 8)}`, ['clients:read']), body: {} }),
      'openapi document': await call('GET', '/api/v1/openapi.json'),
      'local token endpoint': await call('POST', '/_local/token', { body: { workspace: 'x', scopes: [] } }),
      'local JWKS': await call('GET', '/.well-known/jwks.json'),
    };
    for (const [what, response] of Object.entries(responses)) {
      expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(response.headers.get('strict-transport-security'), what).toBe(HSTS);
    }
  });
});

describe('oversized request headers', () => {
  it('are answered 431 with the JSON error body', async () => {
    const response = await fetch(`${baseUrl()}/api/v1/clients`, { headers: { 'X-Padding': 'a'.repeat(20 * 1024) } });
    expect(response.status).toBe(431);
    assertDeclaredStatus('GET', '/api/v1/clients', response.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = (await response.json()) as { error: { type: string; message: string; request_id: string } };
    expect(body.error.type).toBe('request_headers_too_large');
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
    // The server still answers the next request.
    expect((await fetch(`${baseUrl()}/api/v1/openapi.json`)).status).toBe(200);
  });
});

describe('idempotent replay', () => {
  it('returns the first status, body bytes, ETag and Location', async () => {
    const { token: t } = await workspace();
    const key = randomUUID();
    const post = (body: string) =>
      fetch(`${baseUrl()}/api/v1/projects`, { method: 'POST', headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body });
    const client = await fetch(`${baseUrl()}/api/v1/clients`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
      body: '{"company_name":"Z","company_email":"z@z.test"}',
    });
    const clientId = ((await client.json()) as { id: string }).id;
    const body = JSON.stringify({ name: 'Replay', client_id: clientId, billing_type: 'Monthly', hourly_rate: 12.5, description: 'é \u{1F600}' });
    const first = await post(body);
    const firstText = await first.text();
    assertDeclaredStatus('POST', '/api/v1/projects', first.status);
    const retry = await post(body);
    const retryText = await retry.text();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.status).toBe(first.status);
    expect(retryText).toBe(firstText);
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
  });
});
