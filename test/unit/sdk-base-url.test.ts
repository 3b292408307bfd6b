/**
 * The SDK takes the base URL as the OpenAPI document's `servers` gives it (the origin, or the
 * stage's URL) as well as with `/api/v1`: every spelling calls the same URLs.
 */
import { describe, expect, it } from 'vitest';
import { Timebill } from '../../sdk/src/index.ts';

async function urlCalled(baseUrl: string): Promise<string> {
  let called = '';
  const tb = new Timebill('tok', {
    baseUrl,
    fetch: async (url) => {
      called = String(url);
      return new Response(JSON.stringify({ object: 'list', data: [], has_more: false, next_cursor: null }), { status: 200 });
    },
  });
  await tb.clients.list({ limit: 1 }).toArray();
  return called;
}

describe('the base URL', () => {
  it('may be a server URL of the document, or end in /api/v1, with or without a trailing slash', async () => {
    for (const [base, origin] of [
      ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
      ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000'],
      ['http://127.0.0.1:3000/api/v1', 'http://127.0.0.1:3000'],
      ['http://127.0.0.1:3000/api/v1/', 'http://127.0.0.1:3000'],
      ['https://abc.execute-api.us-east-1.amazonaws.com/prod', 'https://abc.execute-api.us-east-1.amazonaws.com/prod'],
      ['https://abc.execute-api.us-east-1.amazonaws.com/prod/api/v1', 'https://abc.execute-api.us-east-1.amazonaws.com/prod'],
    ] as const) {
      expect(await urlCalled(base), base).toBe(`${origin}/api/v1/clients?limit=1`);
    }
  });
});
