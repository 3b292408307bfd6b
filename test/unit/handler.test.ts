import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineHandler, ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { defineCreateHandler, defineDeleteHandler, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { withCreate, withListQuery, withUpdate } from '../../shared/model/define.ts';
import { client } from '../../shared/model/resources.ts';
import { SCHEMAS } from '../../shared/model/schemas.ts';

const handler = defineHandler('retrieveClient', client, async () => ok({ fine: true }));

const eventWith = (authorizer: Record<string, unknown>) =>
  ({ headers: {}, requestContext: { requestId: 'r-1', authorizer }, pathParameters: { id: 'cli_x' } }) as unknown as APIGatewayProxyEvent;

/** Retrieves use nothing of the Lambda context. */
const context = {} as Context;

const caller = { workspaceId: 'ws-1', apiClientId: 'c-1', scopes: 'clients:read' };

describe('the handler frame checks the expiry the authorizer passed on', () => {
  it('refuses a context without a numeric tokenExpiresAt with 401 (a token without exp)', async () => {
    for (const tokenExpiresAt of [undefined, 'NaN', 'abc', null]) {
      const response = await handler(eventWith({ ...caller, ...(tokenExpiresAt === undefined ? {} : { tokenExpiresAt }) }), context);
      expect(response.statusCode, String(tokenExpiresAt)).toBe(401);
      expect(JSON.parse(response.body).error.type).toBe('authentication_required');
    }
  });

  it('refuses an expired one and accepts a future one', async () => {
    expect((await handler(eventWith({ ...caller, tokenExpiresAt: Math.floor(Date.now() / 1000) - 1 }), context)).statusCode).toBe(401);
    expect((await handler(eventWith({ ...caller, tokenExpiresAt: Math.floor(Date.now() / 1000) + 60 }), context)).statusCode).toBe(200);
  });
});

describe('each frame reads only its own input', () => {
  it('defines each operation with its own kind of frame alone (tsc refuses another: frameChecks, compiled, never run)', () => {
    expect(typeof frameChecks).toBe('function');
  });

  it('a list reads its query with each parameter once; a retrieve refuses any', async () => {
    const list = defineListHandler('listClients', withListQuery({ ...client, entries: SCHEMAS.client.entries }), async (req) => ok(req.query()));
    const at = { ...caller, tokenExpiresAt: Math.floor(Date.now() / 1000) + 60 };
    const listEvent = (query: Record<string, string[]>) =>
      ({ ...eventWith(at), queryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.at(-1)])), multiValueQueryStringParameters: query }) as APIGatewayProxyEvent;
    const listed = await list(listEvent({ limit: ['5'] }), context);
    expect([listed.statusCode, JSON.parse(listed.body).limit]).toEqual([200, 5]);
    const twice = await list(listEvent({ limit: ['5', '6'] }), context);
    expect([twice.statusCode, JSON.parse(twice.body).error.errors]).toEqual([400, [{ param: 'limit', message: 'limit may be given only once' }]]);
    const retrieved = await handler({ ...listEvent({ limit: ['5'] }), pathParameters: { id: 'cli_x' } } as APIGatewayProxyEvent, context);
    expect([retrieved.statusCode, JSON.parse(retrieved.body).error.param]).toEqual([400, 'limit']);
  });
});

/**
 * Each kind of handler has its frame, which brings what only it reads (a list its query, a write
 * its retries, a body and If-Match): its operations are the ones whose route has its action, so
 * an operation defined with another frame does not compile, nor does a public one.
 */
function frameChecks() {
  const run = async () => ok({});
  const change = async () => ({ deleted: true as const, id: 'cli_x', object: 'client' });
  const fields = { ...client, entries: SCHEMAS.client.entries };
  defineHandler('retrieveClient', client, run);
  defineListHandler('listClients', withListQuery(fields), run);
  defineCreateHandler('createClient', withCreate(fields), change);
  defineWriteHandler('updateClient', withUpdate(fields), change);
  defineDeleteHandler('deleteClient', client, change);
  // @ts-expect-error a list reads its query: defineListHandler
  defineHandler('listClients', withListQuery(fields), run);
  // @ts-expect-error a create retries and reads a body: defineCreateHandler
  defineHandler('createClient', withCreate(fields), run);
  // @ts-expect-error an update reads If-Match too: defineWriteHandler
  defineCreateHandler('updateClient', withUpdate(fields), change);
  // @ts-expect-error a delete retries and reads If-Match, but no body: defineDeleteHandler
  defineWriteHandler('deleteClient', client, change);
  // @ts-expect-error a retrieve takes no retries: defineHandler
  defineDeleteHandler('retrieveClient', client, change);
  // @ts-expect-error the API description is public: it has no caller to frame
  defineHandler('getOpenApiDocument', client, run);
}
