/**
 * The SDK's retries, against a fake fetch: 429 with Retry-After, 503 and network failures are
 * retried at most maxRetries times, waiting what Retry-After says, with one Idempotency-Key
 * across the attempts of a write; other failures are thrown at once as TimebillError.
 */
import { describe, expect, it } from 'vitest';
import { Timebill, TimebillError, etagOf, responseOf } from '../../sdk/src/index.ts';
import { parseRetryAfter } from '../../sdk/src/client.ts';

type Answer = Response | Error;
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const apiError = (status: number, type: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  json(status, { error: { type, message: `${type} happened`, request_id: `req-${status}`, ...extra } }, headers);
const client = { object: 'client', id: 'cli_01JD0000000000000000000000', company_name: 'Acme', company_email: 'a@acme.test' };

function fake(answers: Answer[], maxRetries?: number) {
  const calls: { url: string; method: string; headers: Record<string, string>; body: string | undefined }[] = [];
  const sleeps: number[] = [];
  const tb = new Timebill('tok', {
    baseUrl: 'https://api.test/api/v1/',
    ...(maxRetries === undefined ? {} : { maxRetries }),
    sleep: async (ms) => void sleeps.push(ms),
    fetch: async (url, init) => {
      calls.push({ url: String(url), method: init?.method ?? 'GET', headers: init?.headers as Record<string, string>, body: init?.body as string | undefined });
      const answer = answers.shift();
      if (!answer) throw new Error('the fake fetch ran out of answers');
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { tb, calls, sleeps };
}

describe('the SDK\'s requests', () => {
  it('sends the token, the JSON body and a generated Idempotency-Key; the result remembers its ETag', async () => {
    const { tb, calls } = fake([json(201, client, { ETag: '"1"', 'X-Request-Id': 'req-a' })]);
    const created = await tb.clients.create({ company_name: 'Acme', company_email: 'a@acme.test' });
    expect(created).toEqual(client);
    expect(calls[0]).toMatchObject({ url: 'https://api.test/api/v1/clients', method: 'POST', body: JSON.stringify({ company_name: 'Acme', company_email: 'a@acme.test' }) });
    expect(calls[0]!.headers).toMatchObject({ Authorization: 'Bearer tok', 'Content-Type': 'application/json' });
    expect(calls[0]!.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(etagOf(created)).toBe('"1"');
    expect(responseOf(created)).toEqual({ status: 201, etag: '"1"', requestId: 'req-a', idempotentReplayed: false });
  });

  it('sends If-Match from a result it returned, or from a string; refuses an object it has no ETag for', async () => {
    const { tb, calls } = fake([json(200, client, { ETag: '"4"' }), json(200, client, { ETag: '"5"' }), json(200, client, { ETag: '"6"' })]);
    const read = await tb.clients.retrieve(client.id);
    const updated = await tb.clients.update(client.id, { company_name: 'Acme 2' }, { ifMatch: read });
    await tb.clients.update(client.id, { company_name: 'Acme 3' }, { ifMatch: etagOf(updated)!, idempotencyKey: 'k-1' });
    expect(calls.map((c) => c.headers['If-Match'])).toEqual([undefined, '"4"', '"5"']);
    expect(calls[2]!.headers['Idempotency-Key']).toBe('k-1');
    expect(calls[0]!.headers['Idempotency-Key']).toBeUndefined();
    await expect(tb.clients.del(client.id, { ifMatch: { ...client } })).rejects.toThrow(/no ETag is known/);
  });

  it('retries a 429 after Retry-After seconds and a 503, with the same Idempotency-Key, then answers', async () => {
    const { tb, calls, sleeps } = fake([apiError(429, 'rate_limited', { 'Retry-After': '3' }), apiError(503, 'service_unavailable', { 'Retry-After': '1' }), json(201, client)]);
    await expect(tb.clients.create({ company_name: 'Acme', company_email: 'a@acme.test' }, { idempotencyKey: 'mine' })).resolves.toEqual(client);
    expect(sleeps).toEqual([3000, 1000]);
    expect(calls.map((c) => c.headers['Idempotency-Key'])).toEqual(['mine', 'mine', 'mine']);
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
  });

  it('waits at least Retry-After, and longer as a run of them goes on: the backoff grows past it', async () => {
    const answers = Array.from({ length: 5 }, () => apiError(503, 'service_unavailable', { 'Retry-After': '1' }));
    const { tb, sleeps } = fake([...answers, json(200, client)], 5);
    await expect(tb.clients.retrieve(client.id)).resolves.toEqual(client);
    expect(sleeps.slice(0, 3).every((ms) => ms >= 1000 && ms <= 2000)).toBe(true);
    expect(sleeps[3]).toBeGreaterThanOrEqual(2000);
    expect(sleeps[4]).toBeGreaterThanOrEqual(4000);
    expect(sleeps[4]).toBeLessThanOrEqual(8000);
  });

  it('retries a network failure with backoff, keeping the generated key across the attempts', async () => {
    const { tb, calls, sleeps } = fake([new TypeError('fetch failed'), apiError(503, 'service_unavailable'), json(200, { object: 'client', id: client.id, deleted: true })]);
    await expect(tb.clients.del(client.id)).resolves.toEqual({ object: 'client', id: client.id, deleted: true });
    expect(calls).toHaveLength(3);
    const keys = new Set(calls.map((c) => c.headers['Idempotency-Key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // No Retry-After: exponential backoff with jitter (0.25-0.5 s, then 0.5-1 s).
    expect(sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it('gives up after maxRetries (default 2) and throws the last failure as TimebillError', async () => {
    const { tb, calls } = fake([apiError(503, 'service_unavailable', { 'Retry-After': '1' }), apiError(503, 'service_unavailable', { 'Retry-After': '1' }), apiError(503, 'service_unavailable', { 'Retry-After': '2' })]);
    const error = await tb.clients.retrieve(client.id).catch((e: unknown) => e);
    expect(calls).toHaveLength(3);
    expect(error).toBeInstanceOf(TimebillError);
    expect(error).toMatchObject({ status: 503, type: 'service_unavailable', message: 'service_unavailable happened', requestId: 'req-503', retryAfter: 2 });

    const down = fake([new TypeError('fetch failed'), new TypeError('fetch failed')], 1);
    await expect(down.tb.events.retrieve('evt_x')).rejects.toMatchObject({ name: 'TimebillError', status: 0, type: 'connection_error' });
    expect(down.calls).toHaveLength(2);
  });

  it('does not retry other failures, a spent monthly quota, or a Retry-After beyond maxRetryDelayMs', async () => {
    const { tb, calls } = fake([
      apiError(400, 'invalid_request', {}, { param: 'company_email' }),
      apiError(429, 'quota_exceeded', { 'Retry-After': '5' }),
      apiError(429, 'rate_limited', { 'Retry-After': '3600' }),
    ]);
    await expect(tb.clients.create({ company_name: 'Acme', company_email: 'x' })).rejects.toMatchObject({ status: 400, type: 'invalid_request', param: 'company_email' });
    await expect(tb.clients.retrieve(client.id)).rejects.toMatchObject({ status: 429, type: 'quota_exceeded' });
    await expect(tb.clients.retrieve(client.id)).rejects.toMatchObject({ status: 429, type: 'rate_limited', retryAfter: 3600 });
    expect(calls).toHaveLength(3);
  });

  it('reports a response that is not the API\'s JSON error as invalid_response, with the X-Request-Id header', async () => {
    const { tb } = fake([new Response('<html>Bad gateway</html>', { status: 502, headers: { 'X-Request-Id': 'req-h' } })]);
    await expect(tb.clients.retrieve(client.id)).rejects.toMatchObject({ status: 502, type: 'invalid_response', requestId: 'req-h', param: null });
  });

  it('follows next_cursor lazily: a page is fetched only when the loop reaches it', async () => {
    const page = (ids: string[], next: string | null) => json(200, { object: 'list', data: ids.map((id) => ({ ...client, id })), has_more: next !== null, next_cursor: next });
    const { tb, calls } = fake([page(['a', 'b'], 'c1'), page(['c'], null)]);
    const seen: string[] = [];
    for await (const item of tb.clients.list({ status: 'ACTIVE', limit: 2 })) {
      seen.push(item.id);
      if (item.id === 'a') expect(calls).toHaveLength(1);
    }
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(calls.map((c) => c.url)).toEqual(['https://api.test/api/v1/clients?status=ACTIVE&limit=2', 'https://api.test/api/v1/clients?status=ACTIVE&limit=2&cursor=c1']);

    const paged = fake([page(['a'], 'c1'), page(['b'], null)]);
    const pages = [];
    for await (const p of paged.tb.clients.list().pages()) pages.push({ ids: p.data.map((c) => c.id), next: p.next_cursor });
    expect(pages).toEqual([{ ids: ['a'], next: 'c1' }, { ids: ['b'], next: null }]);
    expect(paged.calls.map((c) => c.url)).toEqual(['https://api.test/api/v1/clients', 'https://api.test/api/v1/clients?cursor=c1']);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T08:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Tue, 24 Nov 2026 08:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Tue, 24 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
