/**
 * Calling the handlers in this process, as the local gateway does: an API Gateway proxy event
 * (payload 1.0, as infra/local/gateway.ts builds it) with the authorizer's context, and a Lambda
 * context. The handlers are the repository's own modules (the gateway imports the same ones).
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { CHILD_ID, SCOPES, routeByOperation, type Operation, type Route } from '../../../shared/api/routes.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult>;

export interface Caller {
  workspaceId: string;
  apiClientId: string;
  scopes?: readonly string[];
}

export interface Request {
  operation: Operation;
  id?: string;
  /** A nested resource's own id, `{payment_id}` (`id` names its parent, the invoice). */
  childId?: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Another caller than the one invoking (a scenario that needs a workspace of its own each run). */
  caller?: Caller;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: any;
}

const handlers = new Map<string, Promise<ProxyHandler>>();

export function handlerOf(repoRoot: string, route: Route): Promise<ProxyHandler> {
  let loaded = handlers.get(route.entry);
  if (!loaded) {
    loaded = import(pathToFileURL(resolve(repoRoot, route.entry)).href).then((m: { handler: ProxyHandler }) => m.handler);
    handlers.set(route.entry, loaded);
  }
  return loaded;
}

/** The concrete path of a route with its `{id}` (and a nested resource's `{payment_id}`) filled in. */
export const pathOf = (route: Route, id?: string, childId?: string) =>
  route.path.replace('{id}', encodeURIComponent(id ?? '')).replace(`{${CHILD_ID}}`, encodeURIComponent(childId ?? ''));

export function proxyEvent(invoker: Caller, request: Request): APIGatewayProxyEvent {
  const caller = request.caller ?? invoker;
  const route = routeByOperation(request.operation);
  const path = pathOf(route, request.id, request.childId);
  const headers: Record<string, string> = { Host: '127.0.0.1', 'User-Agent': 'timebill-bench', ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] ??= 'application/json';
  const query = request.query && Object.keys(request.query).length > 0 ? request.query : null;
  const requestId = randomUUID();
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    pathParameters: request.id !== undefined ? { id: request.id, ...(request.childId !== undefined ? { [CHILD_ID]: request.childId } : {}) } : null,
    stageVariables: null,
    body: request.body === undefined ? null : JSON.stringify(request.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: {
        workspaceId: caller.workspaceId,
        apiClientId: caller.apiClientId,
        scopes: (caller.scopes ?? SCOPES).join(' '),
        tokenExpiresAt: Math.floor(Date.now() / 1000) + 3600,
        principalId: caller.apiClientId,
      },
      httpMethod: route.method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'timebill-bench' } as APIGatewayProxyEvent['requestContext']['identity'],
      path,
      protocol: 'HTTP/1.1',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: route.operation,
      resourcePath: route.path,
      stage: 'local',
    },
  } as APIGatewayProxyEvent;
}

export function lambdaContext(operation: string, memoryMb = 512): Context {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: operation,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${operation}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${operation}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function parseReply(result: APIGatewayProxyResult): Reply {
  let body: unknown = result.body;
  try {
    body = JSON.parse(result.body);
  } catch {
    /* not JSON */
  }
  return { status: result.statusCode, headers: (result.headers ?? {}) as Record<string, string>, body };
}

/** Calls a handler in this process and parses its reply. */
export async function invoke(repoRoot: string, caller: Caller, request: Request): Promise<Reply> {
  const route = routeByOperation(request.operation);
  const handler = await handlerOf(repoRoot, route);
  return parseReply(await handler(proxyEvent(caller, request), lambdaContext(route.operation)));
}

/** Like invoke, but fails unless the reply is a 2xx. */
export async function invokeOk(repoRoot: string, caller: Caller, request: Request): Promise<Reply> {
  const reply = await invoke(repoRoot, caller, request);
  if (reply.status < 200 || reply.status > 299) {
    throw new Error(`${request.operation}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply;
}
