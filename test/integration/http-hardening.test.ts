/**
 * HTTP-level rules found by a hostile caller: a declared charset other than UTF-8 and bytes
 * that are not UTF-8, members given twice, nosniff/HSTS on every response whoever answers,
 * oversized headers and slow bodies answered in the contract's shape, sockets kept open longer
 * than client pools keep them, the OpenAPI document cached per host, and idempotent replays
 * identical to the byte.
 */
import { randomUUID } from 'node:crypto';
import { request, type Server } from 'node:http';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid, send } from '../support/assertions.ts';
import { baseUrl, call, createClient, expectError, token, workspace, type ApiResponse } from '../support/api.ts';
import { assertDeclaredStatus } from '../support/declared-statuses.ts';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, createLocalGateway } from '../../infra/local/gateway.ts';
import { freePort } from '../../infra/local/dynamodb.ts';

const HSTS = 'max-age=31536000; includeSubDomains';

describe('charset', () => {
  it('refuses a charset other than UTF-8 with 415 naming it, storing nothing', async () => {
    const { api, token: t } = await workspace();
    const body = '{"company_name":"Caf\u00e9","company_email":"a@b.test"}';
    // A charset given twice is refused when either is not UTF-8: a reader that took the other would decode otherwise.
    for (const charset of ['iso-8859-1', 'ISO-8859-1', '"windows-1252"', 'utf-16', 'utf-8; charset=latin1']) {
      const error = expectError(await send('POST', '/clients', t, body, `application/json; charset=${charset}`), 415, 'unsupported_media_type');
      expect(error.message).toContain(charset.replaceAll('"', '').split('=').at(-1)!);
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

/** A request whose body is these bytes, as sent. */
async function sendBytes(method: string, path: string, t: string, bytes: Uint8Array): Promise<ApiResponse> {
  const response = await fetch(`${baseUrl()}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' }, body: bytes });
  assertDeclaredStatus(method, `/api/v1${path}`, response.status);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const bytesOf = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('bytes that are not UTF-8', () => {
  // A lone Latin-1 é, an overlong "/", an encoded surrogate, a stray continuation byte, a truncated sequence.
  const INVALID: Record<string, number[]> = { latin1: [0xe9], overlong: [0xc0, 0xaf], surrogate: [0xed, 0xa0, 0x80], continuation: [0x80], truncated: [0xe2, 0x82] };

  it('are refused in a body with 400 param body on POST and PATCH, storing and changing nothing', async () => {
    const { api, token: t } = await workspace();
    for (const [what, bytes] of Object.entries(INVALID)) {
      const body = bytesOf('{"company_name":"caf', bytes, '","company_email":"a@b.co"}');
      const error = expectInvalid(await sendBytes('POST', '/clients', t, body), ['body']);
      expect(error.message, what).toMatch(/UTF-8/);
    }
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    const client = await createClient(api, { company_name: 'Before' });
    for (const bytes of Object.values(INVALID)) {
      expectInvalid(await sendBytes('PATCH', `/clients/${client.id}`, t, bytesOf('{"company_name":"x', bytes, '"}')), ['body']);
    }
    expect((await api.get(`/clients/${client.id}`)).body.company_name).toBe('Before');
  });

  it('keep valid UTF-8 to the byte, a U+FFFD sent as such included', async () => {
    const { token: t } = await workspace();
    const created = await sendBytes('POST', '/clients', t, bytesOf('{"company_name":"caf\u00e9 \ufffd \u{1F600}","company_email":"a@b.co"}'));
    expect(created.status).toBe(201);
    expect(created.body.company_name).toBe('caf\u00e9 \ufffd \u{1F600}');
  });

  it('are refused in the query string (?search=%FF), matching nothing', async () => {
    const { api } = await workspace();
    await createClient(api, { company_name: 'caf\ufffd' });
    expectInvalid(await api.get('/clients?search=%FF'), ['search']);
    expectInvalid(await api.get('/clients?search=%C0%AF&limit=5'), ['search']);
    expectInvalid(await api.get('/events?%ED%A0%80=1'), ['\ufffd\ufffd\ufffd']);
    expect((await api.get('/clients?search=caf')).body.data).toHaveLength(1);
  });
});

describe('a member given twice', () => {
  it('is refused with 400 naming it, at any depth, however it is escaped, storing and changing nothing', async () => {
    const { api, token: t } = await workspace();
    const post = (body: string) => send('POST', '/clients', t, body, 'application/json');
    expectInvalid(await post('{"company_name":"A","company_email":"a@b.co","status":"LOST","status":"ACTIVE"}'), ['status']);
    expectInvalid(await post('{"company_name":"A","company_email":"a@b.co","\\u0073tatus":"LOST","status":"ACTIVE"}'), ['status']);
    const endpoint = { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] };
    const nested = `{"url":"${endpoint.url}","enabled_events":["*"],"description":{"a":1,"a":2}}`;
    expectInvalid(await send('POST', '/webhook_endpoints', t, nested, 'application/json'), ['description.a']);
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    expect((await api.get('/webhook_endpoints')).body.data).toHaveLength(0);
    const client = await createClient(api, { status: 'LEAD' });
    expectInvalid(await send('PATCH', `/clients/${client.id}`, t, '{"status":"LOST","status":"ACTIVE"}', 'application/json'), ['status']);
    expect((await api.get(`/clients/${client.id}`)).body.status).toBe('LEAD');
    // The same name in sibling objects is not a repeat.
    const project = await send('POST', '/projects', t, `{"name":"P","client_id":"${client.id}","billing_type":"Monthly"}`, 'application/json');
    expect(project.status).toBe(201);
  });
});

describe('the local gateway\'s sockets', () => {
  it('keep an idle connection longer than client pools do, with the headers timeout above it', async () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(65_000);
    expect(HEADERS_TIMEOUT_MS).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
    const keepAlive = await new Promise<string | undefined>((done, fail) => {
      const req = request(`${baseUrl()}/api/v1/openapi.json`, { agent: false, headers: { Connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => done(String(res.headers['keep-alive'])));
      });
      req.on('error', fail);
      req.end();
    });
    expect(keepAlive).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  });

  describe('a body that trickles in (a gateway of its own, bound 300 ms)', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createLocalGateway({ repoRoot: resolve(import.meta.dirname, '../..'), bodyTimeoutMs: 300 });
      port = await freePort();
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(port, '127.0.0.1', () => done());
      });
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    });

    it('is cut off with 408 in the error shape, and the connection closed', async () => {
      const socket = connect(port, '127.0.0.1');
      const answer = new Promise<string>((done, fail) => {
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('close', () => done(text));
        socket.on('error', fail);
      });
      // 10 of the 1,000 bytes announced, then nothing: the gateway does not wait for the rest.
      socket.write('POST /api/v1/clients HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"company_');
      const [head, body] = (await answer).split('\r\n\r\n') as [string, string];
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head.toLowerCase()).toContain('connection: close');
      assertDeclaredStatus('POST', '/api/v1/clients', 408);
      const error = (JSON.parse(body) as { error: { type: string; message: string; request_id: string } }).error;
      expect(error.type).toBe('request_timeout');
      expect(head.toLowerCase()).toContain(`x-request-id: ${error.request_id}`);
    });
  });
});

describe('the OpenAPI document', () => {
  it('says it varies by the host it names, as shared caches keep it', async () => {
    const response = await call('GET', '/api/v1/openapi.json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('vary')).toMatch(/\bHost\b/);
    expect(response.body.servers).toEqual([{ url: baseUrl() }]);
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
