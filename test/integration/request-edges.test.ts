/**
 * Request edges third-party tools send: two Authorization headers (refused: one hop could read
 * the first, another the last), an extension method (a JSON 404, as any method a path lacks), a
 * query parameter on the API description (400, as on every operation that takes none), an Accept
 * that allows no JSON (406, on every operation).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { baseUrl, call, expectError, workspace } from '../support/api.ts';
import { assertDeclaredStatus } from '../support/declared-statuses.ts';

/** The raw answer to a request written byte for byte: status, lower-cased head, parsed body. */
async function raw(request: string): Promise<{ status: number; head: string; body: any }> {
  const { port } = new URL(baseUrl());
  const socket = connect(Number(port), '127.0.0.1');
  const answer = new Promise<string>((done, fail) => {
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('end', () => done(text));
    socket.on('error', fail);
  });
  socket.write(request); // not end(): a half-closed socket is closed before a slow answer
  const text = await answer;
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), head: head.toLowerCase(), body: JSON.parse(body) };
}

const lines = (...headers: string[]) => `${headers.join('\r\n')}\r\nConnection: close\r\n\r\n`;

describe('two Authorization headers', () => {
  it('are refused with 400 naming Authorization on every spelling and order, storing nothing', async () => {
    const { api, token } = await workspace();
    const { token: other } = await workspace();
    const body = '{"company_name":"Twice","company_email":"a@b.test"}';
    const cases = [
      [`Authorization: Bearer ${token}`, `Authorization: Bearer ${token}`],
      [`Authorization: Bearer ${token}`, `authorization: Bearer ${other}`],
      [`Authorization: Bearer ${other}`, `Authorization: Bearer ${token}`],
      [`Authorization: Bearer not-a-token`, `Authorization: Bearer ${token}`],
      ['Authorization:', `Authorization: Bearer ${token}`],
      [`Authorization: Bearer ${token}`, 'Authorization: '],
    ];
    for (const [first, second] of cases) {
      const response = await raw(
        `POST /api/v1/clients HTTP/1.1\r\n${lines('Host: localhost', first!, second!, 'Content-Type: application/json', `Content-Length: ${body.length}`)}${body}`,
      );
      assertDeclaredStatus('POST', '/api/v1/clients', response.status);
      expect(response.status, `${first} / ${second}`).toBe(400);
      expect(response.body.error.type).toBe('invalid_request');
      expect(response.body.error.param).toBe('Authorization');
      expect(response.head).toContain(`x-request-id: ${response.body.error.request_id}`);
    }
    expect((await api.get('/clients')).body.data).toEqual([]);
    // One header is served as before.
    const one = await raw(`GET /api/v1/clients HTTP/1.1\r\n${lines('Host: localhost', `Authorization: Bearer ${token}`)}`);
    expect(one.status).toBe(200);
  });
});

describe('an extension method', () => {
  it('is a JSON 404 not_found on a known path and on an unknown one', async () => {
    const { token } = await workspace();
    for (const request of ['FOO /api/v1/time_entries', 'PURGE /api/v1/clients/cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'FOO /nowhere']) {
      const response = await raw(`${request} HTTP/1.1\r\n${lines('Host: localhost', `Authorization: Bearer ${token}`)}`);
      expect(response.status, request).toBe(404);
      expect(response.body.error.type).toBe('not_found');
      expect(response.head).toContain('content-type: application/json');
      expect(response.head).toContain(`x-request-id: ${response.body.error.request_id}`);
    }
  });

  it('a method that is not a token is still 400: not HTTP', async () => {
    const response = await raw(`F(O /api/v1/time_entries HTTP/1.1\r\n${lines('Host: localhost')}`);
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_request');
  });
});

describe('the API description', () => {
  it('refuses a query parameter with 400 naming it, and is served without one', async () => {
    const error = expectError(await call('GET', '/api/v1/openapi.json?foo=1&bar=2'), 400, 'invalid_request');
    expect(error.param).toBe('foo');
    expect(error.errors?.map((e) => e.param)).toEqual(['foo', 'bar']);
    expect((await call('GET', '/api/v1/openapi.json')).status).toBe(200);
  });
});

describe('Accept (RFC 9110)', () => {
  it('answers JSON to no Accept, */*, application/* and q-values that allow it; 406 not_acceptable (a JSON body) to one that allows no JSON, writing nothing', async () => {
    const { api, token } = await workspace();
    const client = (await api.post('/clients', { company_name: 'Accept Co', company_email: 'a@accept.test' })).body;
    for (const accept of ['*/*', 'application/*', 'application/json', 'text/csv;q=0.5, application/json;q=0.4']) {
      const response = await call('GET', `/api/v1/clients/${client.id}`, { token, headers: { Accept: accept } });
      expect([response.status, response.headers.get('content-type')], accept).toEqual([200, 'application/json; charset=utf-8']);
    }
    for (const accept of ['text/csv', 'application/pdf', 'application/json;q=0', 'text/*, application/*;q=0']) {
      const refused = expectError(await call('GET', `/api/v1/clients/${client.id}`, { token, headers: { Accept: accept } }), 406, 'not_acceptable');
      expect(refused.message, accept).toContain('application/json');
    }
    expectError(await call('POST', '/api/v1/clients', { token, body: { company_name: 'Not made', company_email: 'n@accept.test' }, headers: { Accept: 'text/csv' } }), 406, 'not_acceptable');
    expect((await api.get('/clients?search=not%20made')).body.data).toEqual([]);
    expectError(await call('GET', '/api/v1/openapi.json', { headers: { Accept: 'text/html' } }), 406, 'not_acceptable');
    expect((await call('GET', '/api/v1/openapi.json', { headers: { Accept: 'text/html, application/json;q=0.1' } })).status).toBe(200);
  });
});
