import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineHandler, ok } from '../../shared/http/handler.ts';
import { client } from '../../shared/resources/registry.ts';

const handler = defineHandler('retrieveClient', 'retrieve', client, async () => ok({ fine: true }));

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
