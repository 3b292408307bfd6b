/**
 * The frame of every operation's handler: checks the caller's authorization context, gives the
 * handler parsed input, and maps its result or error to HTTP. Handlers stay thin: parse and
 * validate, call the domain, say what to return.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, ERROR_TYPES, authenticationRequired, insufficientScope, invalidParam, invalidRequest, type FieldError } from '../core/errors.ts';
import { withRequestDeadline } from '../data/budget.ts';
import { asServiceUnavailable } from './dependency-errors.ts';
import { CHILD_ID, routeByOperation, type OperationWithAction, type ProtectedOperation, type ProtectedRoute } from '../api/routes.ts';
import { contractOf, type BodyOf, type Contract, type QueryOf, type ResourceFor } from '../api/operations.ts';
import type { GenericSchema } from 'valibot';
import type { AnyResource } from '../model/declare.ts';
import { repeatedMember } from '../model/json-members.ts';
import { LIMITS } from '../core/field-limits.ts';
import type { CallerContext, IfMatch, Versioned } from '../domain/context.ts';
import { BodyBytes, bytesResponse, errorResponse, jsonResponse } from './respond.ts';
import { JSON_TYPE, negotiate, notAcceptable } from './negotiation.ts';
import { header } from './origin.ts';
import { etagOf, ifMatchOf, noneMatchFails } from './conditional.ts';
import { refuseQuery } from './query.ts';
import * as logger from '../core/log.ts';

export interface Request<O extends ProtectedOperation> {
  caller: CallerContext;
  /** The `{id}` path parameter. */
  id(): string;
  /** The `{payment_id}` path parameter: a nested resource's own id (`{id}` names its parent). */
  childId(): string;
  /** The query string, parsed by the operation's contract (lists only: given by their frame, `listRequest`). */
  query(): QueryOf<O>;
  /** The JSON body, parsed by the operation's contract (create and update). */
  body(): BodyOf<O>;
  /** The path this request was made to, as the caller sees it (stage prefix included). */
  path: string;
  /** The media type its success is sent as (the Accept's choice among the contract's; JSON for all but a list's CSV). */
  mediaType?: string;
  /** A list's: the absolute URL of the same list at `cursor` (a CSV page's `Link`). */
  pageUrl?(cursor: string): string;
  /**
   * If-Match as the versions it names (strong comparison); undefined when absent or `*`. Conditional
   * writes only (PATCH, DELETE, a step): given by their frames, `conditionalRequest`.
   */
  expectedVersion(): IfMatch;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
/** 200 with the resource and its ETag. */
export const current = (v: Versioned<unknown>): Reply => ({ status: 200, body: v.resource, headers: { ETag: etagOf(v.version) } });
export const created = (v: Versioned<{ id: string }>, collectionPath: string, status: 201 | 202 = 201): Reply => ({
  status,
  body: v.resource,
  headers: { Location: `${collectionPath}/${v.resource.id}`, ETag: etagOf(v.version) },
});

/**
 * How a POST, PATCH or DELETE handles retries (Idempotency-Key): it runs the handler with the
 * caller it gives. Injected by write-handler.ts, so the read functions' bundles carry none of it.
 */
export type RetryPolicy = (call: {
  operation: string;
  event: APIGatewayProxyEvent;
  request: { caller: CallerContext; path: string; id(): string; childId(): string; body(): unknown };
  /** The operation parses a body (`request.body()`, validated once). */
  hasBody: boolean;
  run: (caller: CallerContext) => Promise<Reply>;
}) => Promise<Reply>;

/** A read's policy: no retry to handle, so it runs the handler once, for the request's caller. */
const runOnce: RetryPolicy = ({ request, run }) => run(request.caller);

/**
 * How a handler reads its input beyond the path and headers, injected by the frame that needs it
 * (write-handler.ts a body, list-handler.ts a query, each with the parser), so a bundle carries
 * only its own: a retrieve or a delete neither reader nor parser, and a write no refusal of a body.
 */
export interface InputReaders {
  /**
   * The body, read first: as checked text (media type, size, UTF-8), then its JSON object
   * (`bodyReader`); or refused, unread, by a frame that takes none (`noBody`).
   */
  body: BodyReader;
  /** The query, each parameter given once (`singleValuedQuery`). */
  query?: (event: APIGatewayProxyEvent) => Record<string, string>;
  /** What checks the body or query against the contract's schema (`parseOrThrow`, model/parse.ts). */
  parse?: (schema: GenericSchema, input: unknown, noun?: 'field' | 'query parameter') => unknown;
  /** If-Match as the versions it names (`ifMatchHeader`): a conditional operation's (PATCH, DELETE, a step). */
  ifMatch?: typeof ifMatchHeader;
  /**
   * The request's members read from the query or If-Match (`listRequest`, `conditionalRequest`),
   * given by the frames that read those: a create's bundle holds neither.
   */
  request?: (event: APIGatewayProxyEvent, readers: InputReaders, contract: FrameContract) => ReadMembers;
}

/** What `InputReaders.request` adds to a request. */
type ReadMembers = { query?: () => unknown; expectedVersion?: () => IfMatch; pageUrl?: (cursor: string) => string };

/** A list's request: `query()`, the query string parsed by the contract. */
export const listRequest: InputReaders['request'] = (event, readers, contract) => ({
  // Parsed once, however often it is read (a CSV page reads it for its columns too).
  query: once(() => readers.parse!(contract.query!, readers.query!(event), 'query parameter')),
});

/** A conditional write's request: `expectedVersion()`, from If-Match. */
export const conditionalRequest: InputReaders['request'] = (event, readers) => ({ expectedVersion: () => readers.ifMatch!(event) });

/** If-Match, read for the operations that honour it (write-handler.ts gives it to theirs): a create's bundle carries no ETag-list parsing. */
export const ifMatchHeader = (event: APIGatewayProxyEvent): IfMatch => ifMatchOf(header(event, 'if-match'));

/** What a frame reads of a contract: the schemas it parses with and the media types it answers in (the rest of it the OpenAPI document says). */
export type FrameContract = Pick<Contract, 'body' | 'bodyBytes' | 'query' | 'optionalBody' | 'mediaTypes'>;

/**
 * What a handler is made of: its route (the operation's row of the route table, whose scope it
 * checks), the contract it parses by (its schemas hold every rule of its input, those across
 * fields too), and the readers its kind of handler injects.
 */
export interface Frame<O extends ProtectedOperation> {
  route: ProtectedRoute & { operation: O };
  contract: FrameContract;
  readers: InputReaders;
}

/**
 * The frame of `operation`: its route, and the contract of the route's action over `resource`
 * (its declaration for a retrieve or a delete, its fields with the action's schema where the
 * contract parses fields). A create's frame (write-handler.ts) gives the create's contract
 * itself, so its bundle holds no other action's contract (shared/api/operations.ts).
 */
export function frameOf<O extends ProtectedOperation>(operation: O, resource: ResourceFor<O>, readers: InputReaders): Frame<O> {
  const route = routeByOperation(operation);
  // A protected route (tsc: every frame's operation is one) always has a contract.
  const contract = contractOf(route, resource as AnyResource)!;
  return { route, contract, readers };
}

/**
 * Another function that answers a media type of this operation (an invoice's PDF): the request,
 * once authorized and negotiated, is handed over to it as it came (shared/http/hand-over.ts).
 */
export interface HandOver {
  mediaType: string;
  to(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
}

/** A retrieve's or a document's handler: it reads nothing beyond the path and headers; a retrieve may hand a media type over to another function. */
export const defineHandler = <O extends OperationWithAction<'retrieve' | 'document'>>(operation: O, resource: ResourceFor<O>, run: (req: Request<O>) => Promise<Reply>, handOver?: HandOver) =>
  handlerOf(frameOf(operation, resource, NO_INPUT), run, runOnce, handOver);

/**
 * The handler of `frame`'s operation: checks the caller holds the route's scope, reads the
 * request with the frame's readers, runs `run` under the retry policy (a read's: once), and maps
 * its reply or error to HTTP.
 */
export function handlerOf<O extends ProtectedOperation>({ route, contract, readers }: Frame<O>, run: (req: Request<O>) => Promise<Reply>, retries: RetryPolicy = runOnce, handOver?: HandOver) {
  const { operation, scope } = route;
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const requestId = event.requestContext?.requestId ?? 'unknown';
    try {
      const caller = callerOf(event, scope, requestId);
      // Every operation answers JSON (errors too), a list CSV as well: an Accept that allows none of them is a 406.
      const offered = contract.mediaTypes ?? JSON_ONLY;
      const mediaType = negotiate(acceptOf(event), offered);
      if (!mediaType) throw notAcceptable(offered);
      // Only lists take query parameters; anywhere else one is a mistake worth saying.
      if (!contract.query) refuseQuery(event);
      if (mediaType === handOver?.mediaType) return await withRequestDeadline(() => handOver.to(event));
      // The body as text, checked once: what the retry fingerprint and the parser read alike. Reads
      // and deletes take none: one sent anyway is a mistake, refused before anything changes.
      const textEvent = readers.body.text(event, contract.bodyBytes ?? LIMITS.bodyBytes);
      const request = { ...requestOf<O>(textEvent, caller, contract, readers), mediaType };
      const reply = await withRequestDeadline(() =>
        retries({ operation, event: textEvent, request, hasBody: Boolean(contract.body), run: (who) => run({ ...request, caller: who }) }),
      );
      // An answer chosen by Accept (a list's CSV, an invoice's PDF): a cache keeps one per Accept.
      const headers = offered.length > 1 ? { Vary: 'Accept', ...reply.headers } : reply.headers;
      if (reply.body instanceof BodyBytes) {
        // A document's ETag is its bytes' own: If-None-Match naming it is a 304.
        return bytesResponse(noneMatchFails(header(event, 'if-none-match'), headers!.ETag!) ? 304 : 200, reply.body, requestId, headers!);
      }
      return jsonResponse(reply.status, reply.body, requestId, headers);
    } catch (error) {
      const unavailable = asServiceUnavailable(error, { operation, requestId });
      if (unavailable) return errorResponse(unavailable, requestId);
      if (!(error instanceof ApiError) || error.status >= 500) {
        logger.error('Unexpected error', { operation, requestId, error: error as Error });
      }
      return errorResponse(error, requestId);
    }
  };
}

/** The authorizer's context. Its absence, or an invalid-token mark, is a 401 (see docs/decisions). */
function callerOf(event: APIGatewayProxyEvent, scope: string, requestId: string): CallerContext {
  // RFC 9110 allows Authorization once: with two, one hop may read the first and another the last.
  if (headerValues(event, 'authorization').length > 1) throw invalidParam('Authorization', TWO_CREDENTIALS);
  const auth = event.requestContext?.authorizer ?? {};
  const workspaceId = auth.workspaceId;
  if (auth.authError || typeof workspaceId !== 'string' || workspaceId === '') throw authenticationRequired(true);
  // API Gateway caches the policy for minutes; a token that expired meanwhile is refused here.
  const expiresAt = Number(auth.tokenExpiresAt);
  if (!Number.isFinite(expiresAt)) throw authenticationRequired(true, 'The access token has no expiry (exp) and is refused');
  if (expiresAt * 1000 <= Date.now()) throw authenticationRequired(true, 'The access token has expired');
  const scopes = String(auth.scopes ?? '').split(' ').filter(Boolean);
  if (!scopes.includes(scope)) throw insufficientScope(scope);
  return { workspaceId, apiClientId: String(auth.apiClientId), scopes, requestId };
}

function requestOf<O extends ProtectedOperation>(event: APIGatewayProxyEvent, caller: CallerContext, contract: FrameContract, readers: InputReaders): Request<O> {
  return {
    caller,
    path: event.requestContext?.path ?? event.path,
    id: () => event.pathParameters?.id ?? '',
    childId: () => event.pathParameters?.[CHILD_ID] ?? '',
    // A list's query(), a conditional write's expectedVersion(): from the frames that read them.
    ...(readers.request?.(event, readers, contract) as Pick<Request<O>, 'query' | 'expectedVersion' | 'pageUrl'>),
    body: once(() => readers.parse!(contract.body!, contract.optionalBody && isEmptyBody(event) ? {} : readers.body.json!(event)) as BodyOf<O>),
  };
}

/** `compute`'s result (or error) on every call: the body is validated once, however often it is read. */
function once<T>(compute: () => T): () => T {
  let outcome: { value: T } | { error: unknown } | undefined;
  return () => {
    outcome ??= (() => {
      try {
        return { value: compute() };
      } catch (error) {
        return { error };
      }
    })();
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  };
}

const isEmptyBody = (event: APIGatewayProxyEvent) => event.body === null || event.body === undefined || event.body === '';

/** How a frame reads a request's body: its text first, checked, then (a frame that parses it) its JSON. */
export interface BodyReader {
  /** The body as checked text, at most `maxBytes` (the contract's `bodyBytes`, else LIMITS.bodyBytes). */
  text: (event: APIGatewayProxyEvent, maxBytes: number) => APIGatewayProxyEvent;
  json?: (event: APIGatewayProxyEvent) => unknown;
}

/** The body reader of a frame that takes none (retrieve, list, delete): one sent is refused, unread. */
export const noBody: BodyReader = {
  text: (event) => {
    if (!isEmptyBody(event)) throw invalidParam('body', 'This operation takes no request body: send the request without one');
    return event;
  },
};

/** What a retrieve reads beyond the path and headers: nothing. */
const NO_INPUT: InputReaders = { body: noBody };

/**
 * The query, each parameter given once. API Gateway decodes the query string before the handler
 * sees it, turning bytes that are not UTF-8 (`%FF`) into U+FFFD: a name or value holding U+FFFD is
 * refused, so `?search=%FF` never matches what it did not say.
 */
export function singleValuedQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const errors: FieldError[] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if ((values ?? []).some((value) => value.includes(REPLACEMENT)) || name.includes(REPLACEMENT)) {
      errors.push({ param: name, message: `${name} is not valid UTF-8: percent-encode the UTF-8 bytes of the text` });
    } else if (values && values.length > 1) {
      errors.push({ param: name, message: `${name} may be given only once` });
    }
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return { ...(event.queryStringParameters ?? {}) } as Record<string, string>;
}

const REPLACEMENT = '\uFFFD';

const JSON_ONLY = [JSON_TYPE];

/** The request's Accept, its values joined as one list (RFC 9110 lets it be sent in several lines); undefined when absent. */
export const acceptOf = (event: APIGatewayProxyEvent): string | undefined => {
  const values = headerValues(event, 'accept');
  return values.length === 0 ? header(event, 'accept') : values.join(',');
};

const TWO_CREDENTIALS = 'Authorization is given more than once: send one access token, in one Authorization header';

/** Every value of a header, however its name is spelled (API Gateway keeps each spelling apart). */
function headerValues(event: APIGatewayProxyEvent, name: string): string[] {
  const wanted = name.toLowerCase();
  return Object.entries(event.multiValueHeaders ?? {}).flatMap(([key, values]) => (key.toLowerCase() === wanted ? (values ?? []) : []));
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;
const UTF8 = /^utf-?8$/i;

/** A charset parameter of a media type that is not UTF-8 (quotes removed), if any: a reader that takes another of the repeated parameter would decode otherwise. */
function foreignCharsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1');
    if (!UTF8.test(charset)) return charset;
  }
  return undefined;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The event with its body as text. API Gateway passes the body's bytes base64-encoded (every media
 * type is binary to it, infra/names.ts BINARY_MEDIA_TYPES), so bytes that are not UTF-8 are seen
 * here and refused (RFC 8259 §8.1), never stored as U+FFFD.
 */
function withTextBody(event: APIGatewayProxyEvent, maxBytes: number): APIGatewayProxyEvent {
  if (event.body === null || event.body === undefined || event.body === '') return event;
  checkMediaType(event);
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : undefined;
  if ((bytes?.length ?? Buffer.byteLength(event.body, 'utf8')) > maxBytes) {
    throw new ApiError('payload_too_large', ERROR_TYPES.payload_too_large, `The request body must be at most ${maxBytes} bytes`);
  }
  if (!bytes) return event; // text already (a direct invocation, a test)
  let body: string;
  try {
    body = STRICT_UTF8.decode(bytes);
  } catch {
    throw invalidParam('body', 'The request body is not valid UTF-8: send the text encoded as UTF-8');
  }
  return { ...event, body, isBase64Encoded: false };
}

function checkMediaType(event: APIGatewayProxyEvent) {
  const contentType = header(event, 'content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new ApiError('unsupported_media_type', ERROR_TYPES.unsupported_media_type, 'Send the request body as JSON with Content-Type: application/json');
  }
  const charset = foreignCharsetOf(contentType);
  if (charset !== undefined) {
    // Decoding the bytes as UTF-8 anyway would store mojibake (é as U+FFFD); say which charset is refused.
    throw new ApiError('unsupported_media_type', ERROR_TYPES.unsupported_media_type, `The charset ${named(charset)} is not supported: send the body in UTF-8 (Content-Type: application/json; charset=utf-8)`);
  }
  // No content coding is decoded (docs/api.md): a compressed body read as JSON would be garbage,
  // and decoding one would need a bound after decompression for a 64 KiB body that gains little.
  const coding = header(event, 'content-encoding')?.trim();
  if (coding && /[^\s,]/.test(coding.replace(/identity/gi, ''))) {
    throw new ApiError('unsupported_media_type', ERROR_TYPES.unsupported_media_type, `The Content-Encoding ${named(coding)} is not supported: send the body uncompressed, without Content-Encoding`);
  }
}

/** A header's value as a message may repeat it: short and of plain characters, or `given`. */
const named = (value: string) => (/^[\w.:+, -]{1,40}$/.test(value) ? value : 'given');

/** The JSON object of a body made text by withTextBody. */
function jsonBody(event: APIGatewayProxyEvent): unknown {
  checkMediaType(event);
  const text = event.body ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidParam('body', 'The request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParam('body', 'The request body must be a JSON object');
  }
  const repeated = repeatedMember(text);
  if (repeated !== undefined) {
    throw invalidParam(repeated, `${repeated} is given more than once: send each member once (a reader that takes the first would see another request)`);
  }
  return parsed;
}

/** How a handler that parses a body reads it (injected by write-handler.ts). */
export const bodyReader: BodyReader = { text: withTextBody, json: jsonBody };
