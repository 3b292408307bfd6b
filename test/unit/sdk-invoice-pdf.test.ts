/**
 * The SDK's `invoices.retrievePdf` against a fake fetch (contract, "Business profile and the
 * invoice document"): a GET of `/invoices/{id}/document` with `Accept: application/pdf`, answered
 * as the PDF's bytes, unchanged (binary, not text), with their ETag; `ifNoneMatch` answered null
 * on a 304; errors as the SDK's other calls (`TimebillError`, retries), and a success that is
 * not a PDF an `invalid_response`.
 */
import { describe, expect, it } from 'vitest';
import { Timebill, TimebillError, etagOf, responseOf } from '../../sdk/src/index.ts';

const ID = 'inv_01JD0000000000000000000000';
/** A PDF's start, with the binary comment line PDF writers put after the header (bytes no UTF-8 decode keeps). */
const PDF = new Uint8Array([...new TextEncoder().encode('%PDF-1.7\n%'), 0xe2, 0xe3, 0xcf, 0xd3, 0x0a, 0x00, 0xff]);
const ETAG = '"q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c"';
const pdf = (bytes: Uint8Array = PDF, headers: Record<string, string> = {}) =>
  new Response(bytes, { status: 200, headers: { 'Content-Type': 'application/pdf', ETag: ETAG, 'X-Request-Id': 'req_pdf', ...headers } });
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** A Timebill whose fetch answers each request with the next of `answers` (the last one again once they run out); waits take no time. */
function fake(answers: Response[], maxRetries = 0) {
  const calls: { url: string; method: string; headers: Record<string, string>; body?: unknown }[] = [];
  const sleeps: number[] = [];
  const tb = new Timebill('tok', {
    baseUrl: 'https://api.test',
    maxRetries,
    sleep: async (ms) => void sleeps.push(ms),
    fetch: async (url, init) => {
      calls.push({ url: String(url), method: init?.method ?? 'GET', headers: init?.headers as Record<string, string>, body: init?.body });
      return (answers.length > 1 ? answers.shift()! : answers[0]!).clone();
    },
  });
  return { tb, calls, sleeps };
}

describe('invoices.retrievePdf', () => {
  it('GETs the invoice\'s document with Accept: application/pdf and answers its bytes as sent, with their ETag', async () => {
    const { tb, calls } = fake([pdf()]);
    const bytes = await tb.invoices.retrievePdf(ID);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...bytes]).toEqual([...PDF]);
    expect(etagOf(bytes)).toBe(ETAG);
    expect(responseOf(bytes)).toEqual({ status: 200, etag: ETAG, requestId: 'req_pdf', idempotentReplayed: false });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', url: `https://api.test/api/v1/invoices/${ID}/document`, body: undefined });
    expect(calls[0]!.headers).toEqual({ Authorization: 'Bearer tok', Accept: 'application/pdf' });
  });

  it('encodes the id in the path', async () => {
    const { tb, calls } = fake([pdf()]);
    await tb.invoices.retrievePdf('inv/1 2');
    expect(calls[0]!.url).toBe('https://api.test/api/v1/invoices/inv%2F1%202/document');
  });

  it('with ifNoneMatch (an ETag, or a PDF it returned) sends If-None-Match, and answers null on a 304, the new bytes on a 200', async () => {
    const { tb, calls } = fake([pdf(), new Response(null, { status: 304, headers: { ETag: ETAG } }), new Response(null, { status: 304 }), pdf(new TextEncoder().encode('%PDF-1.7 changed'), { ETag: '"other"' })]);
    const first = await tb.invoices.retrievePdf(ID);
    expect(await tb.invoices.retrievePdf(ID, { ifNoneMatch: first })).toBeNull();
    expect(await tb.invoices.retrievePdf(ID, { ifNoneMatch: ETAG })).toBeNull();
    const changed = await tb.invoices.retrievePdf(ID, { ifNoneMatch: first });
    expect(new TextDecoder().decode(changed!)).toBe('%PDF-1.7 changed');
    expect(etagOf(changed!)).toBe('"other"');
    expect(calls.map((c) => c.headers['If-None-Match'])).toEqual([undefined, ETAG, ETAG, ETAG]);
    await expect(tb.invoices.retrievePdf(ID, { ifNoneMatch: {} })).rejects.toThrow(/^ifNoneMatch: no ETag is known for this object/);
  });

  it('maps an error answer to a TimebillError (its status, type, message and request id), not retried', async () => {
    const { tb, calls } = fake([json(404, { error: { type: 'not_found', message: `No such invoice: ${ID}`, request_id: 'req_404' } })]);
    const error = await tb.invoices.retrievePdf(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimebillError);
    expect(error).toMatchObject({ status: 404, type: 'not_found', message: `No such invoice: ${ID}`, requestId: 'req_404' });
    expect(calls).toHaveLength(1);

    const refused = fake([json(406, { error: { type: 'not_acceptable', message: 'Not acceptable', request_id: 'req_406' } })]);
    await expect(refused.tb.invoices.retrievePdf(ID)).rejects.toMatchObject({ name: 'TimebillError', status: 406, type: 'not_acceptable' });
  });

  it('retries a 503 after its Retry-After, as the SDK\'s other calls do, then answers the bytes', async () => {
    const { tb, calls, sleeps } = fake([json(503, { error: { type: 'service_unavailable', message: 'busy' } }, { 'Retry-After': '1' }), pdf()], 2);
    expect([...(await tb.invoices.retrievePdf(ID))]).toEqual([...PDF]);
    expect(calls).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(1000);
  });

  it('answers a success that is not a PDF (a proxy\'s page) as an invalid_response, and a 304 it did not ask for as an error', async () => {
    const { tb } = fake([new Response('<html>Sign in</html>', { status: 200, headers: { 'Content-Type': 'text/html' } })]);
    await expect(tb.invoices.retrievePdf(ID)).rejects.toMatchObject({
      name: 'TimebillError',
      status: 200,
      type: 'invalid_response',
      message: 'The Timebill API answered 200 with text/html instead of PDF: <html>Sign in</html>',
    });
    await expect(fake([new Response(null, { status: 304 })]).tb.invoices.retrievePdf(ID)).rejects.toMatchObject({ status: 304, type: 'invalid_response' });
  });
});
