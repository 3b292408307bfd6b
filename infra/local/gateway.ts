/**
 * The local gateway: an HTTP server that behaves as API Gateway (REST API, Lambda proxy
 * integration, payload 1.0) does for this API. It reads the same route table and gateway-response
 * definitions as the CDK stack, calls the same TOKEN authorizer (caching its policy per token for
 * the same TTL), evaluates the policy against the method ARN, applies the usage plans' per-client
 * limits (./client-limits.ts) and then the stage's bucket, and invokes the same handlers. Requests
 * without a token, or with an invalid one, have buckets of their own: they never spend the stage's
 * tokens that valid API clients draw on.
 */
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  Context,
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { AUTHORIZER_ENTRY, ROUTES, routeByOperation, type Operation, type Route } from '../../shared/api/routes.ts';
import { useHandOverStandIn } from '../../shared/http/hand-over.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, FUNCTION_MEMORY_MB, STAGE_THROTTLING } from '../names.ts';
import { FUNCTION_TIMEOUT_SECONDS } from '../../shared/data/budget.ts';
import { gatewayResponse, gatewayResponseTemplate, type GatewayResponseType } from '../../shared/http/gateway-responses.ts';
import { dependencyFailureOf } from '../../shared/data/faults.ts';
import { SECURITY_HEADERS } from '../../shared/http/security-headers.ts';
import { errorResponse } from '../../shared/http/respond.ts';
import { ApiError, ERROR_TYPES } from '../../shared/core/errors.ts';
import { clientLimiter, tokenBucket, type ClientLimitOptions } from './client-limits.ts';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface LocalRoute {
  method: string;
  path: string;
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void>;
}

export interface GatewayOptions {
  repoRoot: string;
  /** Extra routes outside the API (the local JWKS and token endpoints); no authorizer. */
  localRoutes?: LocalRoute[];
  throttling?: { rateLimit: number; burstLimit: number };
  /**
   * The bucket of requests that carry no token (and of the public routes): their own, so that a
   * flood of them never spends the stage's tokens that API clients draw on. Default: `throttling`'s
   * limits. In AWS the firewall refuses a protected route without a bearer token before the stage.
   */
  anonymousThrottling?: { rateLimit: number; burstLimit: number };
  /** The usage plans' per-client limits; defaults are the plans of shared/core/plan-limits.ts. */
  clientLimits?: ClientLimitOptions;
  /** The API key the authorizer returns for invalid tokens (its own small plan); INVALID_TOKEN_API_KEY by default. */
  invalidTokenKey?: string;
  authorizerCacheTtlSeconds?: number;
  /** How long a request's body may take to arrive once its headers have (BODY_TIMEOUT_MS by default). */
  bodyTimeoutMs?: number;
  /** Called once the handler of a request that may write (any method but GET and HEAD) has answered or failed. */
  afterWriteRequest?: () => void;
}

/** API Gateway's own limit on a request's size; the handlers enforce a smaller body limit. */
const GATEWAY_MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/**
 * Idle connections stay open longer than the pools of common clients keep them (60 s and less),
 * so a client never reuses a connection the server is closing ("other side closed"). Node counts
 * an idle connection's wait for the next request's headers too: that bound stays above it.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;
/** A body that has not arrived whole by then is cut off with 408: a slow sender holds no socket longer. */
export const BODY_TIMEOUT_MS = 10_000;

/** API Gateway's maximum integration timeout. */
const GATEWAY_INTEGRATION_TIMEOUT_MS = 29_000;

const ACCOUNT = '000000000000';
const API_ID = 'local';
const STAGE = 'local';
const methodArn = (method: string, path: string) => `arn:aws:execute-api:us-east-1:${ACCOUNT}:${API_ID}/${STAGE}/${method}${path}`;

export function createLocalGateway(options: GatewayOptions): Server {
  const handlers = new Map<string, Promise<ProxyHandler>>();
  const loadHandler = (entry: string) => {
    let loaded = handlers.get(entry);
    if (!loaded) {
      loaded = import(pathToFileURL(resolve(options.repoRoot, entry)).href).then((m: { handler: ProxyHandler }) => m.handler);
      handlers.set(entry, loaded);
    }
    return loaded;
  };
  // A function's hand-over to another (an invoice's PDF: shared/http/hand-over.ts) calls that
  // function's handler with the event, as Lambda's Invoke does in AWS.
  useHandOverStandIn(async (operation, event) => {
    const route = routeByOperation(operation as Operation);
    return (await loadHandler(route.entry))(event, lambdaContext(route, event.requestContext.requestId));
  });
  let authorizer: Promise<AuthorizerHandler> | undefined;
  const policyCache = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();
  const cacheTtlMs = (options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS) * 1000;
  const bucket = tokenBucket(options.throttling ?? STAGE_THROTTLING);
  const anonymous = tokenBucket(options.anonymousThrottling ?? options.throttling ?? STAGE_THROTTLING);
  const invalidTokenKey = options.invalidTokenKey ?? process.env.INVALID_TOKEN_API_KEY ?? '';
  const clients = clientLimiter(invalidTokenKey, options.clientLimits);

  const server = createServer((req, res) => {
    const requestId = randomUUID();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const reply = (type: GatewayResponseType, fallbackStatus: number, context: Record<string, string> = {}) =>
      sendGatewayResponse(res, type, fallbackStatus, { '$context.requestId': requestId, ...context });
    readBody(req, GATEWAY_MAX_REQUEST_BYTES, options.bodyTimeoutMs ?? BODY_TIMEOUT_MS)
      .then(async (body) => {
        if (body === TOO_SLOW) return sendRequestTimeout(res, requestId);
        if (body === undefined) return reply('REQUEST_TOO_LARGE', 413);
        const url = new URL(req.url ?? '/', 'http://localhost');
        const method = req.method ?? 'GET';
        const local = options.localRoutes?.find((r) => r.method === method && r.path === url.pathname);
        if (local) return local.handle(req, body, res);

        const matched = findRoute(method, url.pathname);
        if (!matched) return reply('MISSING_AUTHENTICATION_TOKEN', 404);
        // Sent twice, the first non-empty one: the function refuses two (400), whichever is empty.
        const authorization = req.rawHeaders.filter((_, i) => i % 2 === 1 && /^authorization$/i.test(req.rawHeaders[i - 1]!)).find((v) => v.trim() !== '');
        // Without a token there is no API client: the anonymous bucket applies, never the stage's.
        if ((matched.route.scope === null || !authorization) && !anonymous.take()) return reply('THROTTLED', 429);
        if (matched.route.scope === null) {
          const handler = await loadHandler(matched.route.entry);
          const event = proxyEvent(req, url, matched.route, matched.params, body, requestId, undefined);
          return sendProxyResult(res, await handler(event, lambdaContext(matched.route, requestId)), requestId);
        }

        if (!authorization) return reply('UNAUTHORIZED', 401);
        const arn = methodArn(method, url.pathname);
        let policy = policyCache.get(authorization);
        if (!policy || policy.until <= Date.now()) {
          authorizer ??= import(pathToFileURL(resolve(options.repoRoot, AUTHORIZER_ENTRY)).href).then((m: { handler: AuthorizerHandler }) => m.handler);
          let result: APIGatewayAuthorizerResult;
          try {
            result = await (await authorizer)({ type: 'TOKEN', authorizationToken: authorization, methodArn: arn });
          } catch (error) {
            // As API Gateway: any other error thrown by the authorizer (a dependency failure) is this response.
            return error instanceof Error && error.message === 'Unauthorized' ? reply('UNAUTHORIZED', 401) : reply('AUTHORIZER_CONFIGURATION_ERROR', 503);
          }
          policy = { result, until: Date.now() + cacheTtlMs };
          if (cacheTtlMs > 0) policyCache.set(authorization, policy);
        }
        if (!isAllowed(policy.result, arn)) {
          return reply('ACCESS_DENIED', 403, {
            '$context.httpMethod': method,
            '$context.resourcePath': matched.route.path,
            '$context.authorizer.scopes': String(policy.result.context?.scopes ?? ''),
          });
        }
        // Every authorized method requires an API key, taken from the authorizer (apiKeySourceType AUTHORIZER).
        const usageKey = policy.result.usageIdentifierKey;
        if (!usageKey) return reply('INVALID_API_KEY', 403);
        const limitHit = clients.admit(usageKey, policy.result.context?.usagePlan);
        if (limitHit) return reply(limitHit, 429);
        // An invalid token's requests spend their own plan's bucket only, never the stage's.
        if (usageKey !== invalidTokenKey && !bucket.take()) return reply('THROTTLED', 429);

        const event = proxyEvent(req, url, matched.route, matched.params, body, requestId, policy.result);
        const handler = await loadHandler(matched.route.entry);
        let result: APIGatewayProxyResult;
        try {
          result = await withTimeout(handler(event, lambdaContext(matched.route, requestId)), GATEWAY_INTEGRATION_TIMEOUT_MS);
        } catch (error) {
          if (error === TIMEOUT) return reply('INTEGRATION_TIMEOUT', 503);
          console.error('Handler threw', error);
          return reply('DEFAULT_5XX', 502);
        } finally {
          if (method !== 'GET' && method !== 'HEAD') options.afterWriteRequest?.();
        }
        sendProxyResult(res, result, requestId);
      })
      .catch((error: unknown) => {
        if (res.headersSent) return;
        // The local token route writes the registry: DynamoDB Local gone is a 503 there too.
        const failure = dependencyFailureOf(error);
        if (failure) return reply('INTEGRATION_FAILURE', 503);
        console.error('Local gateway failure', error);
        reply('DEFAULT_5XX', 500);
      });
  });
  server.on('clientError', answerUnparsableRequest);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // The whole request: its headers, then its body within the body bound (readBody).
  server.requestTimeout = HEADERS_TIMEOUT_MS + (options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
  return server;
}

/**
 * Requests Node cannot parse never reach the handler above; Node would answer them with an empty
 * body. Answer in the contract's error shape instead: 431 for headers over Node's limit (16 KiB),
 * 404 not_found for a method Node does not know (an extension method such as `FOO` is a valid
 * RFC 9110 token, and no path has it), 400 for anything else that is not HTTP.
 */
export function answerUnparsableRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const noRoute = gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
  const [status, type, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request_headers_too_large', 'The request headers are too large: send smaller headers (at most 16 KiB in all)']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', REQUEST_TIMEOUT_MESSAGE]
        : error.code === 'HPE_INVALID_METHOD' && EXTENSION_METHOD.test(error.rawPacket?.toString('latin1') ?? '')
          ? [noRoute.statusCode!, noRoute.errorType, noRoute.message]
          : [400, 'invalid_request', 'The request is not valid HTTP'];
  const body = JSON.stringify({ error: { type, message, request_id: requestId } });
  const headers = {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    ...SECURITY_HEADERS,
    'X-Request-Id': requestId,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/** A request line whose method is an RFC 9110 token (`FOO /path HTTP/1.1`). */
const EXTENSION_METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/1\.[01]\r?\n/;

const REQUEST_TIMEOUT_MESSAGE = 'The request did not arrive in time: send the whole request without pausing';

/** 408 in the contract's error shape, and the connection closed: the rest of a slow body is never read. */
function sendRequestTimeout(res: ServerResponse, requestId: string) {
  res.setHeader('Connection', 'close');
  sendProxyResult(res, errorResponse(new ApiError('request_timeout', ERROR_TYPES.request_timeout, REQUEST_TIMEOUT_MESSAGE), requestId), requestId);
}

function findRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}

/** Matches a concrete request path against a route's resource path; returns the path parameters. */
export function matchPath(resourcePath: string, requestPath: string): Record<string, string> | undefined {
  const want = resourcePath.split('/');
  const got = requestPath.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    const actual = got[i]!;
    if (segment.startsWith('{') && segment.endsWith('}')) {
      if (actual === '') return undefined;
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined; // not valid percent-encoding: names nothing
      }
      params[segment.slice(1, -1)] = decoded;
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

/** IAM evaluation as API Gateway does it: an explicit Deny wins; otherwise an Allow is needed. */
export function isAllowed(result: APIGatewayAuthorizerResult, arn: string): boolean {
  let allowed = false;
  for (const statement of result.policyDocument.Statement) {
    const s = statement as { Effect: string; Resource?: string | string[] };
    const resources = Array.isArray(s.Resource) ? s.Resource : s.Resource ? [s.Resource] : [];
    if (!resources.some((pattern) => arnMatches(pattern, arn))) continue;
    if (s.Effect === 'Deny') return false;
    if (s.Effect === 'Allow') allowed = true;
  }
  return allowed;
}

function arnMatches(pattern: string, arn: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return regex.test(arn);
}

function proxyEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  params: Record<string, string>,
  body: Buffer,
  requestId: string,
  auth: APIGatewayAuthorizerResult | undefined,
): APIGatewayProxyEvent {
  // Names are the caller's: collected in Maps, so `constructor` or `__proto__` is a name like any
  // other, and handed over as the plain objects API Gateway's JSON event gives a Lambda function.
  const headers = new Map<string, string>();
  const multiValueHeaders = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers.set(name, value);
    multiValueHeaders.set(name, [...(multiValueHeaders.get(name) ?? []), value]);
  }
  const query = new Map<string, string>();
  const multiQuery = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    query.set(name, value);
    multiQuery.set(name, [...(multiQuery.get(name) ?? []), value]);
  }
  const hasQuery = query.size > 0;
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: route.method,
    headers: Object.fromEntries(headers),
    multiValueHeaders: Object.fromEntries(multiValueHeaders),
    queryStringParameters: hasQuery ? Object.fromEntries(query) : null,
    multiValueQueryStringParameters: hasQuery ? Object.fromEntries(multiQuery) : null,
    pathParameters: Object.keys(params).length > 0 ? params : null,
    stageVariables: null,
    // As API Gateway with BINARY_MEDIA_TYPES (every type): the bytes as sent, base64-encoded.
    body: body.length > 0 ? body.toString('base64') : null,
    isBase64Encoded: body.length > 0,
    requestContext: {
      accountId: ACCOUNT,
      apiId: API_ID,
      authorizer: auth ? { ...auth.context, principalId: auth.principalId } : null,
      httpMethod: route.method,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: req.headers['user-agent'] ?? null } as APIGatewayProxyEvent['requestContext']['identity'],
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: route.operation,
      resourcePath: route.path,
      stage: STAGE,
    },
  };
}

/** The parts of a Lambda context the handlers use (Powertools reads the remaining time). */
function lambdaContext(route: Route, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_SECONDS * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: route.operation,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${route.operation}`,
    memoryLimitInMB: String(FUNCTION_MEMORY_MB),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${route.operation}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function sendProxyResult(res: ServerResponse, result: APIGatewayProxyResult, requestId: string) {
  res.statusCode = result.statusCode;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, values.map(String));
  res.setHeader('x-amzn-RequestId', requestId);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** Renders a gateway response from its shared definition, `$context` substituted as API Gateway does. */
function sendGatewayResponse(res: ServerResponse, type: GatewayResponseType, fallbackStatus: number, context: Record<string, string>) {
  const requestId = context['$context.requestId']!;
  const definition = gatewayResponse(type);
  res.statusCode = definition.statusCode ?? fallbackStatus;
  for (const [name, value] of Object.entries(definition.headers)) res.setHeader(name, value);
  for (const name of Object.keys(definition.contextHeaders)) res.setHeader(name, requestId);
  res.setHeader('x-amzn-RequestId', requestId);
  res.setHeader('x-amzn-ErrorType', type);
  // Longest names first: `$context.authorizer.scopes` before any shorter name it starts with.
  const names = Object.keys(context).sort((a, b) => b.length - a.length);
  res.end(names.reduce((body, name) => body.replaceAll(name, jsonText(context[name]!)), gatewayResponseTemplate(definition)));
}

/** A value as it may stand inside a JSON string (API Gateway substitutes without escaping; ours are plain). */
function jsonText(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

const TOO_SLOW = Symbol('too slow');

/**
 * The body; undefined once it passes `limit` bytes (the rest is drained, not kept); TOO_SLOW when
 * it has not ended within `timeoutMs`.
 */
function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer | undefined | typeof TOO_SLOW> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const timer = setTimeout(() => resolvePromise(TOO_SLOW), timeoutMs);
    timer.unref();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolvePromise(tooLarge ? undefined : Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const TIMEOUT = Symbol('timeout');
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(TIMEOUT), ms);
      timer.unref();
    }),
  ]);
}
