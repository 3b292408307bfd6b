/**
 * Handlers run in the test process over the shared stack's DynamoDB Local: the environment their
 * configuration reads at load, the handler module of a route, and the event and context API
 * Gateway and Lambda would hand it.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { expect, inject } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { SCOPES, routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { useHandOverStandIn } from '../../shared/http/hand-over.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult>;

/**
 * The environment of a function over the shared stack's table; call it before importing a handler.
 * A hand-over to another function (an invoice's PDF) calls that function's handler here, as the
 * local stack does.
 */
export function useSharedTable(cursorKey: string, extra: Record<string, string> = {}) {
  Object.assign(process.env, {
    TABLE_NAME: inject('tableName'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    ...LOCAL_AWS_ENV,
    CURSOR_SIGNING_KEY: cursorKey,
    ...extra,
  });
  useHandOverStandIn(async (operation, event) => (await importHandler(routeByOperation(operation as Operation).entry))(event, lambdaContext()));
}

/** The handler module of a route (`entry` as the route table gives it). */
export async function importHandler(entry: string): Promise<ProxyHandler> {
  const url = pathToFileURL(resolve(import.meta.dirname, '../..', entry)).href;
  return ((await import(/* @vite-ignore */ url)) as { handler: ProxyHandler }).handler;
}

/** A request as the authorizer hands it on: a valid token of workspace `ws` with `scopes` (all by default). */
export function proxyEvent(
  ws: string,
  method: string,
  path: string,
  options: { id?: string; body?: unknown; headers?: Record<string, string>; scopes?: readonly string[]; resource?: string } = {},
): APIGatewayProxyEvent {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return {
    resource: options.resource ?? path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: options.id ? { id: options.id } : null,
    stageVariables: null,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    isBase64Encoded: false,
    requestContext: {
      requestId: randomUUID(),
      path,
      authorizer: {
        workspaceId: ws,
        apiClientId: `local-${ws}`,
        scopes: (options.scopes ?? SCOPES).join(' '),
        tokenExpiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** A Lambda context with 10 s left. */
export const lambdaContext = (): Context => {
  const deadline = Date.now() + 10_000;
  return { awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};

/**
 * Calls the loaded handlers as API Gateway would: `invoke` answers the status, headers and parsed
 * body; `ok` expects a 2xx and answers the body.
 */
export function handlerCalls(handlers: Partial<Record<Operation, ProxyHandler>>) {
  const invoke = async (operation: Operation, e: APIGatewayProxyEvent) => {
    const result = await handlers[operation]!(e, lambdaContext());
    return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) as any };
  };
  const ok = async (operation: Operation, e: APIGatewayProxyEvent) => {
    const r = await invoke(operation, e);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  return { invoke, ok };
}
