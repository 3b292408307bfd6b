/**
 * Builds the OpenAPI 3.1 document from the route table, the request schemas (valibot) and the
 * response schemas: nothing in it is written by hand, so it cannot drift from the code.
 * `npm run openapi` writes it to docs/openapi.json, which the deployed and local APIs serve.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ROUTES, SCOPES, STAGE_THROTTLING, type Route } from '../shared/routes.ts';
import { LIMITS } from '../shared/schemas/fields.ts';
import { PLAN_NAMES, describePlan } from '../shared/limits.ts';
import {
  ClientList,
  ClientObject,
  DeleteResult,
  ErrorBody,
  EventList,
  EventObject,
  ProjectList,
  ProjectObject,
  TimeEntryList,
  TimeEntryObject,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointObject,
} from '../shared/schemas/objects.ts';
import { EVENT_TYPES } from '../shared/events/types.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../shared/events/signature.ts';
import { IDEMPOTENCY_TTL_SECONDS } from '../shared/http/idempotency.ts';
import { RESOURCE_SERVER_IDENTIFIER } from '../infra/names.ts';
import { ANY_OPERATION, OPERATION_DOCS, PROTECTED_OPERATION, VERSIONED_SCHEMAS, type ResponseSchemaName } from './openapi-operations.ts';
import { MAX_IF_MATCH_TAGS } from '../shared/http/conditional.ts';

type Json = Record<string, unknown>;

function jsonSchema(schema: v.GenericSchema): Json {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  return rest;
}

/**
 * Request schemas say their defaults in words, not with `default`: code generators such as
 * openapi-typescript read `default` as "always present" and would make the field required.
 */
function describeDefaults(schema: Json): Json {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) return schema;
  const described = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      if (!('default' in property)) return [name, property];
      const { default: value, ...rest } = property;
      const said = `Default: ${JSON.stringify(value)}.`;
      return [name, { ...rest, description: rest.description ? `${String(rest.description)} ${said}` : said }];
    }),
  );
  return { ...schema, properties: described };
}

const RESPONSE_SCHEMAS: Record<ResponseSchemaName | 'Error', v.GenericSchema> = {
  Client: ClientObject,
  Project: ProjectObject,
  TimeEntry: TimeEntryObject,
  ClientList,
  ProjectList,
  TimeEntryList,
  DeleteResult,
  Event: EventObject,
  EventList,
  WebhookEndpoint: WebhookEndpointObject,
  WebhookEndpointCreated,
  WebhookEndpointList,
  Error: ErrorBody,
};

const ERROR_RESPONSES: Record<number, { name: string; description: string; headers?: string[] }> = {
  400: {
    name: 'InvalidRequest',
    description:
      'invalid_request: the request (body, query, cursor or header) is not valid, a query parameter was sent where the operation takes none, or a body where it takes none (GET, DELETE); `errors` lists every failing field',
  },
  401: {
    name: 'AuthenticationRequired',
    description: 'authentication_required: no token, or a token that is malformed, expired, wrongly signed or of an unknown API client',
    headers: ['WWW-Authenticate'],
  },
  403: {
    name: 'InsufficientScope',
    description:
      'insufficient_scope: the token lacks the scope of the operation; or forbidden: the web application firewall refused the request (its body has request_id null)',
    headers: ['WWW-Authenticate'],
  },
  404: { name: 'NotFound', description: 'not_found: no such resource in your workspace (or no such route)' },
  409: {
    name: 'Conflict',
    description: 'conflict: a delete refused by a guard; or idempotency_key_in_use: the first request with this Idempotency-Key still runs',
    headers: ['Retry-After'],
  },
  412: { name: 'PreconditionFailed', description: 'precondition_failed: the resource changed since the ETag sent in If-Match' },
  413: { name: 'PayloadTooLarge', description: `payload_too_large: the body is over ${LIMITS.bodyBytes} bytes` },
  415: { name: 'UnsupportedMediaType', description: 'unsupported_media_type: send the body as application/json, in UTF-8 (any other charset is refused)' },
  422: { name: 'IdempotencyKeyReused', description: 'idempotency_key_reused: the Idempotency-Key was used for a different request' },
  431: { name: 'RequestHeadersTooLarge', description: 'request_headers_too_large: the request headers are over the limit (local stack: 16 KiB in all)' },
  429: {
    name: 'RateLimited',
    description:
      'rate_limited: over a rate limit (your API client\'s plan, the stage\'s, or the firewall\'s per-address rule); slow down and retry after Retry-After seconds. ' +
      `quota_exceeded: your API client's monthly quota is spent (it renews on the 1st, 00:00 UTC). Limits per API client by plan: ${PLAN_NAMES.map((plan) => `${plan}: ${describePlan(plan)}`).join('; ')}. ` +
      'Every API client has its own limits: another client\'s traffic never uses them.',
    headers: ['Retry-After'],
  },
  500: { name: 'InternalError', description: 'internal_error: an unexpected error (a bug); quote the request id' },
  503: {
    name: 'ServiceUnavailable',
    description:
      'service_unavailable: a dependency throttled, failed or did not answer in time; retry after Retry-After seconds (a POST or PATCH with the same Idempotency-Key). See "When to retry" in the API guide',
    headers: ['Retry-After'],
  },
};

const HEADERS: Json = {
  'X-Request-Id': { description: 'Identifies the request; errors repeat it as error.request_id', schema: { type: 'string' } },
  Location: { description: 'Path of the created resource', schema: { type: 'string' } },
  ETag: { description: 'Version of the resource; send it as If-Match to change or delete only that version', schema: { type: 'string', pattern: '^"\\d+"$' } },
  'Idempotent-Replayed': { description: 'true when this is the stored response of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } },
  'WWW-Authenticate': { description: 'Bearer challenge, with error="invalid_token" or error="insufficient_scope"', schema: { type: 'string' } },
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const oauthScope = (scope: string) => `${RESOURCE_SERVER_IDENTIFIER}/${scope}`;

function queryParameters(schema: v.GenericSchema): Json[] {
  const properties = (jsonSchema(schema).properties ?? {}) as Record<string, Json>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    schema:
      name === 'limit'
        ? { type: 'integer', minimum: 1, maximum: LIMITS.pageSizeMax, description: `Page size. Default: ${LIMITS.pageSizeDefault}.` }
        : property,
    ...(name === 'cursor' ? { description: 'The next_cursor of the previous page of the same list and filters; opaque' } : {}),
  }));
}

function operationObject(route: Route): Json {
  const doc = OPERATION_DOCS[route.operation];
  if (!doc) throw new Error(`No OpenAPI description for ${route.operation}`);
  const isPublic = route.scope === null;
  const retriable = route.method === 'POST' || route.method === 'PATCH';
  const versioned = route.method === 'PATCH' || route.method === 'DELETE';
  const parameters: Json[] = [];
  if (route.path.includes('{id}')) parameters.push(ref('parameters', 'Id'));
  if (doc.query) parameters.push(...queryParameters(doc.query));
  if (retriable) parameters.push(ref('parameters', 'IdempotencyKey'));
  if (versioned) parameters.push(ref('parameters', 'IfMatch'));

  const responses: Json = {};
  if (isPublic) {
    responses['200'] = { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } };
  } else if (doc.success) {
    const single = VERSIONED_SCHEMAS.includes(doc.success.schema);
    responses[String(doc.success.status)] = {
      description: doc.success.status === 201 ? 'Created' : 'OK',
      headers: {
        'X-Request-Id': ref('headers', 'X-Request-Id'),
        ...(doc.success.status === 201 ? { Location: ref('headers', 'Location') } : {}),
        ...(single ? { ETag: ref('headers', 'ETag') } : {}),
        ...(retriable ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
      },
      content: { 'application/json': { schema: ref('schemas', doc.success.schema) } },
    };
  }
  const statuses = [...new Set([...doc.errors, ...ANY_OPERATION, ...(isPublic ? [] : PROTECTED_OPERATION)])];
  for (const status of statuses.sort()) responses[String(status)] = ref('responses', ERROR_RESPONSES[status]!.name);

  return {
    operationId: route.operation,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security: isPublic ? [] : [{ oauth2: [oauthScope(route.scope!)] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', doc.body.name) } } } }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationObject(route);
  }
  const requestSchemas = Object.fromEntries(
    Object.values(OPERATION_DOCS)
      .filter((d) => d.body)
      .map((d) => [d.body!.name, describeDefaults(jsonSchema(d.body!.schema))]),
  );
  const responseSchemas = Object.fromEntries(Object.entries(RESPONSE_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'timebill API',
      version: '1.0.0',
      description: [
        'Clients, projects and time entries of a time-tracking and billing workspace.',
        'Authenticate with an OAuth 2.0 access token (client-credentials grant) in `Authorization: Bearer <token>`; each operation needs one scope, and a write scope does not include read.',
        'Lists are newest first with opaque cursors. Every error has the `Error` shape. POST and PATCH accept an `Idempotency-Key` (kept 24 hours); PATCH and DELETE accept `If-Match` with an `ETag`.',
        `Each API client has its own limits, by plan (${PLAN_NAMES.map((plan) => `${plan}: ${describePlan(plan)}`).join('; ')}); over them the answer is 429 \`rate_limited\` or \`quota_exceeded\` with \`Retry-After\`. The whole stage allows ${STAGE_THROTTLING.rateLimit} requests per second (bursts of ${STAGE_THROTTLING.burstLimit}).`,
      ].join('\n\n'),
    },
    servers: [
      { url: 'https://{apiId}.execute-api.{region}.amazonaws.com/prod', variables: { apiId: { default: 'your-api-id' }, region: { default: 'us-east-1' } } },
      { url: 'http://127.0.0.1:3000', description: 'The local stack (npm start)' },
    ],
    tags: [{ name: 'Clients' }, { name: 'Projects' }, { name: 'Time entries' }, { name: 'Events' }, { name: 'Webhook endpoints' }, { name: 'API description' }],
    paths,
    webhooks: webhooks(),
    components: {
      schemas: { ...responseSchemas, ...requestSchemas },
      parameters: {
        Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.idLength } },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: `Makes a retry safe: the first response is stored for ${IDEMPOTENCY_TTL_SECONDS / 3600} hours and replayed to a retry with the same key and body`,
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: `\`*\` (any existing version), or a comma-separated list of up to ${MAX_IF_MATCH_TAGS} ETags (\`"7", "8"\`), compared strongly (RFC 9110): the change happens only if one of them is exactly the current ETag; weak tags (\`W/"7"\`) never match. Otherwise 412; a header of neither form is 400`,
          schema: { type: 'string', examples: ['"3"', '"3", "4"', '*'] },
        },
      },
      headers: HEADERS,
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map((r) => [
          r.name,
          {
            description: r.description,
            headers: {
              'X-Request-Id': ref('headers', 'X-Request-Id'),
              ...Object.fromEntries((r.headers ?? []).map((h) => [h, ref('headers', h)])),
            },
            content: { 'application/json': { schema: ref('schemas', 'Error') } },
          },
        ]),
      ),
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: `Amazon Cognito access tokens. Request scopes as \`${RESOURCE_SERVER_IDENTIFIER}/<scope>\`; the token endpoint is the stack's TokenEndpoint output.`,
          flows: {
            clientCredentials: {
              tokenUrl: 'https://your-domain.auth.us-east-1.amazoncognito.com/oauth2/token',
              scopes: Object.fromEntries(SCOPES.map((s) => [oauthScope(s), `${s.endsWith(':read') ? 'List and retrieve' : 'Create, update and delete'} ${s.split(':')[0]!.replace('_', ' ')}`])),
            },
          },
        },
      },
    },
  };
}

/** The object each event type carries in data.object. */
const EVENT_OBJECT_SCHEMA: Record<string, string> = { client: 'Client', project: 'Project', time_entry: 'TimeEntry' };

/**
 * The `webhooks` section: what each event type's delivery posts (the event object, with that
 * type, that resource, and previous_attributes on *.updated) and the headers that sign it.
 */
function webhooks(): Record<string, Json> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const [resource, action] = type.split('.') as [string, string];
      const data: Json = {
        type: 'object',
        properties: {
          object: ref('schemas', EVENT_OBJECT_SCHEMA[resource]!),
          ...(action === 'updated' ? { previous_attributes: { type: 'object', description: 'The old value of every field that changed' } } : {}),
        },
        required: action === 'updated' ? ['object', 'previous_attributes'] : ['object'],
        additionalProperties: false,
      };
      return [
        type,
        {
          post: {
            summary: `${type}: ${action === 'deleted' ? 'data.object is the last state' : 'data.object is the resource after the change'}`,
            description: `Sent to each enabled endpoint whose enabled_events holds "${type}" or "*". Acknowledge with any 2xx within 10 s; anything else is retried with exponential backoff for at least 3 days. Deliveries are at least once: deduplicate by the event id.`,
            parameters: [
              { name: EVENT_ID_HEADER, in: 'header', required: true, schema: { type: 'string' }, description: 'The event id (deduplicate by it)' },
              {
                name: SIGNATURE_HEADER,
                in: 'header',
                required: true,
                schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
                description: '`t=<unix seconds>,v1=<hex>`: lowercase hex HMAC-SHA256, keyed with the endpoint\'s whole `whsec_…` secret, of `<t>.<raw request body>`',
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: { allOf: [ref('schemas', 'Event'), { type: 'object', properties: { type: { const: type }, data } }] },
                },
              },
            },
            responses: { '2XX': { description: 'Acknowledged' } },
          },
        },
      ];
    }),
  );
}

export const renderOpenApiDocument = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
