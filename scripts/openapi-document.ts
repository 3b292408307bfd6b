/**
 * Builds the OpenAPI 3.1 document from the route table, the request schemas (valibot) and the
 * response schemas: nothing in it is written by hand, so it cannot drift from the code.
 * `npm run openapi` writes it to docs/openapi.json, which the deployed and local APIs serve.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as v from 'valibot';
import { ROUTES, SCOPES, type Route } from '../shared/api/routes.ts';
import { STAGE_THROTTLING } from '../infra/names.ts';
import { contractOf, PDF_TYPE, subjectOf } from '../shared/api/operations.ts';
import { RESOURCE_LIST, resourceOf } from '../shared/model/resources.ts';
import { CSV_CONTENT_TYPE, CSV_TYPE } from '../shared/http/csv.ts';
import { SCHEMAS } from '../shared/model/schemas.ts';
import { eventFeedSchemas } from '../shared/api/event-schemas.ts';
import { TIME_SUMMARIES, timeSummarySchemas } from '../shared/api/time-summary-schemas.ts';
import { BILLING_RUN_RESULTS, billingRunResultSchemas } from '../shared/api/billing-run-result-schemas.ts';
import { LIMITS } from '../shared/core/field-limits.ts';
import { documentedJsonSchema } from '../shared/model/documented.ts';
import { ERROR_SCHEMA, listSchemaName, objectSchemaName, responseSchemas, schemaName, TIME_SUMMARY } from '../shared/api/object-schemas.ts';
import { IDEMPOTENCY_TTL_SECONDS } from '../shared/data/idempotency-records.ts';
import { RESOURCE_SERVER_IDENTIFIER } from '../infra/names.ts';
import { ANY_OPERATION, DESCRIPTION_TAG, OPERATION_DOCS, PROTECTED_OPERATION, TAG_DOCS } from './openapi-operations.ts';
import { PLAN_NAMES, describePlan } from '../shared/core/plan-limits.ts';
import { MAX_IF_MATCH_TAGS } from '../shared/http/conditional.ts';
import { EVENT_FEED, EVENT_RETENTION_DAYS, EVENT_TYPES, hasPreviousAttributes } from '../shared/model/event-types.ts';
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../shared/core/webhook-signature.ts';
import { DELIVERY_TIMEOUT_MS } from '../shared/webhooks/delivery.ts';
import { RETRY_SPAN_MS } from '../shared/core/retry-schedule.ts';

type Json = Record<string, unknown>;

/**
 * A request body as generators read it. An immutable field (`not: {}`: any value is refused)
 * is left out, so the closed object refuses it and the generated type does not offer it. A
 * body that needs one of several fields (an `anyOf` of `required` beside `properties`, which
 * generators turn into a loose union) becomes an `anyOf` of complete objects: the i-th needs
 * field i, not null, and has none of the fields before it, so exactly one alternative matches.
 */
function requestBodySchema(schema: Json): Json {
  const properties = Object.fromEntries(
    Object.entries(schema.properties as Record<string, Json>).filter(([, property]) => JSON.stringify(property) !== '{"not":{}}'),
  );
  const { anyOf, ...base } = { ...schema, properties } as Json & { anyOf?: { required: string[] }[] };
  if (!anyOf) return base;
  const fields = anyOf.map((alternative) => alternative.required[0]!);
  const required = (base.required as string[] | undefined) ?? [];
  // anyOf, though the alternatives exclude each other: linters cannot tell (the overlap they see is
  // the shared optional fields), and generators make the same union of either.
  return {
    anyOf: fields.map((field, i) => ({
      ...base,
      properties: {
        ...properties,
        ...Object.fromEntries(fields.slice(0, i).map((before) => [before, { type: 'null', description: `Absent or null: the alternative with ${before} applies` }])),
        [field]: nonNull(properties[field]!),
      },
      required: [...required, field],
    })),
  };
}

/** A property schema without its `null` alternative. */
function nonNull(property: Json): Json {
  const alternatives = property.anyOf as Json[] | undefined;
  if (!alternatives) return property;
  const kept = alternatives.filter((a) => a.type !== 'null');
  return kept.length === 1 ? { ...kept[0], ...(property.description ? { description: property.description } : {}) } : { ...property, anyOf: kept };
}

/**
 * Request schemas say their defaults in words, not with `default`: code generators such as
 * openapi-typescript read `default` as "always present" and would make the field required. So do
 * the objects of a list in a body (an invoice's `items`).
 */
function describeDefaults(schema: Json): Json {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) return schema;
  const described = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const inner = property.items && typeof property.items === 'object' ? { ...property, items: describeDefaults(property.items as Json) } : property;
      if (!('default' in inner)) return [name, inner];
      const { default: value, ...rest } = inner;
      const said = `Default: ${JSON.stringify(value)}.`;
      return [name, { ...rest, description: rest.description ? `${String(rest.description)} ${said}` : said }];
    }),
  );
  return { ...schema, properties: described };
}

/**
 * A header of a response: its name when it is always sent (declared `required`), or its name and
 * when it is absent.
 */
type HeaderUse = string | { name: string; absent: string };
const FIREWALL = "on the web application firewall's refusals (a deployed stage), which reach no function: their body has request_id null";
/** X-Request-Id where the firewall may answer instead of the API. */
const REQUEST_ID_UNLESS_FIREWALL: HeaderUse = { name: 'X-Request-Id', absent: FIREWALL };

const ERROR_RESPONSES: Record<number, { name: string; description: string; headers?: HeaderUse[] }> = {
  400: {
    name: 'InvalidRequest',
    description:
      'invalid_request: the request (body, query, cursor or header) is not valid: not UTF-8, not JSON, a member given twice, a field or parameter that fails its rules or is unknown, a query parameter where the operation takes none, or a body where it takes none (GET, DELETE); `errors` lists every failing field and parameter',
  },
  401: {
    name: 'AuthenticationRequired',
    description: 'authentication_required: no token, or a token that is malformed, expired, wrongly signed or of an unknown API client',
    headers: [REQUEST_ID_UNLESS_FIREWALL, 'WWW-Authenticate'],
  },
  403: {
    name: 'InsufficientScope',
    description:
      'insufficient_scope: the token lacks the scope of the operation; or forbidden: the web application firewall refused the request (its body has request_id null)',
    headers: [REQUEST_ID_UNLESS_FIREWALL, { name: 'WWW-Authenticate', absent: 'on forbidden' }],
  },
  404: { name: 'NotFound', description: 'not_found: no such resource in your workspace (or no such route)' },
  406: {
    name: 'NotAcceptable',
    description:
      "not_acceptable: the Accept header allows none of the media types the operation answers with (JSON; a list's CSV too; an invoice's PDF too, and its document PDF alone; RFC 9110 ranges and q-values, no Accept meaning any): the error body is JSON all the same",
  },
  408: { name: 'RequestTimeout', description: 'request_timeout: the request did not arrive whole in time (a body sent too slowly); the connection is closed' },
  409: {
    name: 'Conflict',
    description:
      'conflict: a delete refused by a guard; or time_entry_invoiced: a PATCH or DELETE of a time entry on an invoice; or idempotency_key_in_use: the first request with this Idempotency-Key still runs; ' +
      "or, on invoices, invalid_state (the status does not allow it), and a create's unpriced_project, unpriced_time or nothing_to_invoice",
    headers: [{ name: 'Retry-After', absent: 'on conflict, time_entry_invoiced and the invoices\' refusals (sent with idempotency_key_in_use, and with invalid_state while the invoice\'s work runs)' }],
  },
  412: { name: 'PreconditionFailed', description: 'precondition_failed: the resource changed since the ETag sent in If-Match' },
  413: { name: 'PayloadTooLarge', description: `payload_too_large: the body is over ${LIMITS.bodyBytes} bytes` },
  415: { name: 'UnsupportedMediaType', description: 'unsupported_media_type: send the body as application/json, in UTF-8 (any other charset is refused), uncompressed (any Content-Encoding but identity is refused)' },
  422: { name: 'IdempotencyKeyReused', description: 'idempotency_key_reused: the Idempotency-Key was used for a different request' },
  431: { name: 'RequestHeadersTooLarge', description: 'request_headers_too_large: the request headers are over the limit (local stack: 16 KiB in all)' },
  429: {
    name: 'RateLimited',
    description:
      'rate_limited: over a rate limit (your API client\'s plan, the stage\'s, or the firewall\'s per-address rule); slow down and retry after Retry-After seconds. ' +
      `quota_exceeded: your API client's monthly quota is spent (it renews on the 1st, 00:00 UTC). Limits per API client by plan: ${PLAN_NAMES.map((plan) => `${plan}: ${describePlan(plan)}`).join('; ')}. ` +
      'Every API client has its own limits: another client\'s traffic never uses them.',
    headers: [REQUEST_ID_UNLESS_FIREWALL, 'Retry-After'],
  },
  500: { name: 'InternalError', description: 'internal_error: an unexpected error (a bug); quote the request id' },
  503: {
    name: 'ServiceUnavailable',
    description:
      'service_unavailable: a dependency throttled, failed or did not answer in time; retry after Retry-After seconds (a write with the same Idempotency-Key). See "When to retry" in the API guide',
    headers: ['Retry-After'],
  },
};

/** The response headers, `required` where a response refers to them: each is always sent there (a validating proxy checks it). */
const HEADERS: Record<string, Json & { description: string }> = {
  'X-Request-Id': { description: 'Identifies the request; errors repeat it as error.request_id', required: true, schema: { type: 'string' } },
  Location: { description: 'Path of the created resource', required: true, schema: { type: 'string' } },
  ETag: { description: 'Version of the resource; send it as If-Match to change or delete only that version', required: true, schema: { type: 'string', pattern: '^"\\d+"$' } },
  'Idempotent-Replayed': {
    description: 'true when this is the stored response of an earlier request with the same Idempotency-Key; absent otherwise',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', required: true, schema: { type: 'string' } },
  'WWW-Authenticate': { description: 'Bearer challenge, with error="invalid_token" or error="insufficient_scope"', required: true, schema: { type: 'string' } },
  Vary: { description: "Accept: the answer depends on it (JSON, or a list's CSV, or an invoice's PDF)", required: true, schema: { type: 'string' } },
  'Content-Disposition': { description: 'The PDF\'s name for saving: `inline; filename="INV-000042.pdf"` (the id for a draft)', required: true, schema: { type: 'string' } },
  Link: { description: 'The next page of the same list, as CSV: `<absolute URL>; rel="next"`', required: true, schema: { type: 'string' } },
};

/** A response's headers: X-Request-Id (always, unless said otherwise) and `uses`; one sometimes absent is inlined, not required, saying when. */
function responseHeaders(uses: readonly HeaderUse[]): Json {
  const named = (use: HeaderUse) => (typeof use === 'string' ? use : use.name);
  const all = uses.some((use) => named(use) === 'X-Request-Id') ? uses : ['X-Request-Id', ...uses];
  return Object.fromEntries(
    all.map((use) =>
      typeof use === 'string'
        ? [use, ref('headers', use)]
        : [use.name, { ...HEADERS[use.name], required: false, description: `${HEADERS[use.name]!.description}; absent ${use.absent}` }],
    ),
  );
}

const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*"';
const IF_MATCH_PATTERN = `^(?:\\s*\\*\\s*|[\\s,]*${ENTITY_TAG}(?:\\s*,[\\s,]*${ENTITY_TAG}){0,${MAX_IF_MATCH_TAGS - 1}}[\\s,]*)$`;

/** What a list's CSV is (contract, "CSV and bulk import"). */
const CSV_DESCRIPTION =
  "RFC 4180 CSV of the same page: a header row of the object's fields in the JSON's order, one row an object, CRLF line ends; null an empty cell, arrays and objects as JSON text; a text cell beginning with =, +, -, @, a tab or a carriage return is written with a leading '; the next page in `Link` while there is one";

const ID_PARAMETER = { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.idLength } };

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const oauthScope = (scope: string) => `${RESOURCE_SERVER_IDENTIFIER}/${scope}`;

/** What an invoice's PDF is (contract, "Business profile and the invoice document"). */
const PDF_DESCRIPTION =
  "The invoice as its client receives it: both parties, every line, tax, total and payment figure, in the recipient's language (French, English, or French then English), text that search and copy find; the same bytes while the invoice does not change";
const DOCUMENT_ETAG = {
  description: 'a hash of the PDF\'s bytes: send it as If-None-Match to be answered 304 while the document is the same',
  required: true,
  schema: { type: 'string', pattern: '^"(?:\\d+|[A-Za-z0-9_-]{43})"$' },
};
const NOT_MODIFIED = {
  description: 'Not Modified: If-None-Match names the PDF\'s ETag; no body',
  headers: { ...responseHeaders(['Vary']), ETag: DOCUMENT_ETAG },
};


function queryParameters(schema: v.GenericSchema): Json[] {
  const json = documentedJsonSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema:
      name === 'limit'
        ? { type: 'integer', minimum: 1, maximum: LIMITS.pageSizeMax, description: `Page size. Default: ${LIMITS.pageSizeDefault}.` }
        : property,
    ...(name === 'cursor' ? { description: 'The next_cursor of the previous page of the same list and filters; opaque' } : {}),
  }));
}

/**
 * The public document's response example: the document itself (every answer is this whole
 * document), cut to its header and its first operation.
 */
function withSelfExample(doc: Json & { openapi: string; info: Json; paths: Record<string, Json> }): typeof doc {
  const [firstPath, firstItem] = Object.entries(doc.paths)[0]!;
  const [firstMethod, firstOperation] = Object.entries(firstItem)[0] as [string, Json];
  const value = {
    openapi: doc.openapi,
    info: { title: doc.info.title, version: doc.info.version },
    paths: { [firstPath]: { [firstMethod]: { operationId: firstOperation.operationId, summary: firstOperation.summary } } },
  };
  for (const route of ROUTES.filter((r) => r.scope === null)) {
    const content = ((doc.paths[route.path]![route.method.toLowerCase()] as Json).responses as Record<string, Json>)['200']!.content as Record<string, Json>;
    content['application/json'] = { ...content['application/json'], examples: { abbreviated: { summary: 'This document, cut to its header and first operation', value } } };
  }
  return doc;
}

/** What a route's function parses with: its resource's schemas, or the feed's. */
const schemasOf = (route: Route) =>
  route.resource === null ? undefined
  : route.resource === 'event' ? eventFeedSchemas
  : route.resource === 'time_summary' ? timeSummarySchemas
  : route.resource === 'billing_run_result' ? billingRunResultSchemas
  : SCHEMAS[route.resource];

function operationObject(route: Route): Json {
  const doc = OPERATION_DOCS[route.operation];
  const contract = contractOf(route, schemasOf(route));
  const subject = subjectOf(route);
  const example = EXAMPLES[route.operation];
  const url = example && new URL(example.request.path, 'http://example.invalid');
  const parameters: Json[] = [];
  // Each id of the path: `{id}`, and a nested resource's own after its parent's (`/invoices/{id}/payments/{payment_id}`).
  const segments = route.path.split('/');
  const parent = subject && 'parent' in subject && typeof subject.parent === 'string' ? resourceOf(subject.parent) : undefined;
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    const example = url?.pathname.split('/')[segments.indexOf(`{${name}}`)];
    const param =
      name === 'id' && parent ? { ...ID_PARAMETER, description: `The ${parent.noun}'s id` }
      : name === 'id' ? ID_PARAMETER
      : { ...ID_PARAMETER, name, description: `The ${subject!.kind.replaceAll('_', ' ')}'s id` };
    parameters.push(example ? { ...param, example } : param === ID_PARAMETER ? ref('parameters', 'Id') : param);
  }
  if (contract?.query) {
    parameters.push(
      ...queryParameters(contract.query).map((p) => {
        const value = url?.searchParams.get(String(p.name));
        if (value == null) return p;
        return { ...p, example: (p.schema as Json).type === 'integer' ? Number(value) : value };
      }),
    );
  }
  if (contract?.idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  if (contract?.conditional) parameters.push(ref('parameters', 'IfMatch'));

  const responses: Json = {};
  if (!contract || !subject) {
    responses['200'] = { description: 'The OpenAPI document', headers: responseHeaders([]), content: { 'application/json': { schema: { type: 'object' } } } };
  } else {
    const { status, returns } = contract.success;
    const csv = contract.mediaTypes?.includes(CSV_TYPE) ?? false;
    // An invoice's PDF (contract, "Business profile and the invoice document"): at its document's path, and by its retrieve to an Accept that prefers it.
    const pdf = contract.mediaTypes?.includes(PDF_TYPE) ?? false;
    const pdfContent = { [PDF_TYPE]: { schema: { type: 'string', format: 'binary', description: PDF_DESCRIPTION } } };
    if (returns === 'document') {
      responses['200'] = { description: 'OK: the PDF', headers: { ...responseHeaders(['Vary', 'Content-Disposition']), ETag: DOCUMENT_ETAG }, content: pdfContent };
      responses['304'] = NOT_MODIFIED;
    } else {
      const schema =
        returns === 'deleted' ? 'DeleteResult' : returns === 'list' ? listSchemaName(subject.kind) : status === 201 ? createdSchemaName(subject.kind) : objectSchemaName(subject.kind);
      responses[String(status)] = {
        description: status === 201 ? 'Created' : status === 202 ? 'Accepted: the service goes on with it' : 'OK',
        headers: {
          ...responseHeaders([
            // A batch makes several: no one Location.
            ...(status !== 200 && returns === 'object' ? ['Location'] : []),
            ...(contract.versioned && !pdf ? ['ETag'] : []),
            ...(contract.idempotent ? ['Idempotent-Replayed'] : []),
            ...(csv ? ['Vary', { name: 'Link', absent: 'on JSON, and on the last page' }] : []),
            ...(pdf ? ['Vary', { name: 'Content-Disposition', absent: 'on JSON' }] : []),
          ]),
          ...(pdf ? { ETag: { ...DOCUMENT_ETAG, description: `On JSON, the version of the resource (send it as If-Match to change it); on PDF, ${DOCUMENT_ETAG.description}` } } : {}),
        },
        content: {
          'application/json': { schema: ref('schemas', schema), ...recorded(example?.response.body) },
          // The same page as CSV (contract, "CSV and bulk import"), for an Accept that prefers it.
          ...(csv ? { [CSV_CONTENT_TYPE]: { schema: { type: 'string', description: CSV_DESCRIPTION } } } : {}),
          ...(pdf ? pdfContent : {}),
        },
      };
      if (pdf) responses['304'] = NOT_MODIFIED;
    }
  }
  const statuses = [...new Set([...(contract?.errors ?? []), ...ANY_OPERATION, ...(contract ? PROTECTED_OPERATION : [])])];
  for (const status of statuses.sort()) responses[String(status)] = ref('responses', ERROR_RESPONSES[status]!.name);

  return {
    operationId: route.operation,
    summary: doc.summary,
    description: doc.description,
    tags: [subject?.tag ?? DESCRIPTION_TAG],
    security: route.scope === null ? [] : [{ oauth2: [oauthScope(route.scope)] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(contract?.body
      ? { requestBody: { required: !contract.optionalBody, content: { 'application/json': { schema: ref('schemas', bodyName(route)), ...recorded(example?.request.body) } } } }
      : {}),
    responses,
  };
}

/** The schema of one event type: `ClientCreatedEvent`. */
const eventSchemaName = (type: string) => `${schemaName(type.replace('.', '_'))}${schemaName(EVENT_FEED.kind)}`;

/**
 * The event is a union discriminated by `type`: each type's schema holds that type's resource in
 * `data.object` (a reference to the resource's schema, so generators give it the resource's own
 * type) and `previous_attributes` on every type but *.created and *.deleted. The event list refers to the event.
 */
function withEventUnion(schemas: Record<string, Json>): Record<string, Json> {
  const event = objectSchemaName(EVENT_FEED.kind);
  const base = schemas[event] as Json & { properties: Record<string, Json> & { data: { properties: Record<string, Json> } } };
  const variant = (type: string): Json => {
    const changed = hasPreviousAttributes(type);
    const { previous_attributes: previous } = base.properties.data.properties;
    return {
      ...base,
      description: `A ${type} event`,
      properties: {
        ...base.properties,
        type: { type: 'string', const: type },
        data: {
          type: 'object',
          properties: {
            object: ref('schemas', objectSchemaName(type.slice(0, type.lastIndexOf('.')))),
            ...(changed ? { previous_attributes: previous } : {}),
          },
          required: changed ? ['object', 'previous_attributes'] : ['object'],
          additionalProperties: false,
        },
      },
    };
  };
  const union: Json = {
    description: 'An event: its `type` says which resource `data.object` is',
    oneOf: EVENT_TYPES.map((type) => ref('schemas', eventSchemaName(type))),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventSchemaName(type)}`])) },
  };
  return Object.fromEntries(
    Object.entries(schemas).flatMap(([name, schema]) =>
      name === event ? [[name, union], ...EVENT_TYPES.map((type) => [eventSchemaName(type), variant(type)])] : [[name, schema]],
    ),
  );
}

/**
 * An invoice's line is a union discriminated by `kind` (contract, "Billing types"; decision 0029):
 * each kind's schema is a schema of its own (`InvoiceTimeLine`, `InvoiceFixedPriceLine`,
 * `InvoiceRetainerLine`), its `kind` a string constant, and the lines' items refer to them through
 * a discriminator, so generated clients narrow a line by its kind.
 */
function withLineUnion(schemas: Record<string, Json>): Record<string, Json> {
  const name = objectSchemaName('invoice');
  const invoice = schemas[name] as Json & { properties: Record<string, Json> & { lines: { items: { oneOf: (Json & { properties: { kind: Json & { const: string } } })[] } } } };
  const kinds = invoice.properties.lines.items.oneOf.map((variant) => {
    const kind = variant.properties.kind.const;
    const schema = { ...variant, description: `A line of kind \`${kind}\``, properties: { ...variant.properties, kind: { type: 'string', const: kind } } };
    return { kind, name: `${name}${schemaName(kind)}Line`, schema };
  });
  const lines = {
    ...invoice.properties.lines,
    items: {
      oneOf: kinds.map((k) => ref('schemas', k.name)),
      discriminator: { propertyName: 'kind', mapping: Object.fromEntries(kinds.map((k) => [k.kind, `#/components/schemas/${k.name}`])) },
    },
  };
  const withRefs = { ...invoice, properties: { ...invoice.properties, lines } };
  return Object.fromEntries(
    Object.entries(schemas).flatMap(([n, schema]): [string, Json][] => (n === name ? [[n, withRefs], ...kinds.map((k): [string, Json] => [k.name, k.schema])] : [[n, schema]])),
  );
}

/**
 * What a create answers beside the resource, once: a webhook endpoint's signing secret
 * (domain/webhook-endpoints.ts). `whsec_` and 32 bytes in base64 (either alphabet). Not
 * `required`: a replay of the create (its Idempotency-Key again) after the endpoint was deleted
 * answers the stored 201 without it (docs/api.md, Retries).
 */
const CREATE_ALSO_ANSWERS: Record<string, Record<string, Json>> = {
  webhook_endpoint: {
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/_-]{43}=?$',
      description:
        'The signing secret of the deliveries to this endpoint; answered by this create alone, never again: store it now. Absent only from a replay of the create (the same Idempotency-Key, `Idempotent-Replayed: true`) once the endpoint has been deleted',
    },
  },
};
const createdSchemaName = (kind: string) => (Object.hasOwn(CREATE_ALSO_ANSWERS, kind) ? `Created${objectSchemaName(kind)}` : objectSchemaName(kind));

function withCreatedSchemas(schemas: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(schemas).flatMap(([name, schema]) => {
      const kind = Object.keys(CREATE_ALSO_ANSWERS).find((k) => objectSchemaName(k) === name);
      if (!kind) return [[name, schema]];
      const extra = CREATE_ALSO_ANSWERS[kind]!;
      const created = {
        ...schema,
        description: `The ${kind.replace('_', ' ')} as its create answers it`,
        properties: { ...(schema.properties as Json), ...extra },
      };
      return [[name, schema], [createdSchemaName(kind), created]];
    }),
  );
}

/**
 * A list's items refer to their object's schema (`ClientList` to `Client`), so generated clients
 * name them by it instead of making an anonymous copy.
 */
function withListItemRefs(schemas: Record<string, Json>): Record<string, Json> {
  // A singleton (the business profile) has no list.
  for (const kind of [...RESOURCE_LIST.filter((r) => !r.singleton).map((r) => r.kind), TIME_SUMMARY, BILLING_RUN_RESULTS.kind, EVENT_FEED.kind]) {
    const list = schemas[listSchemaName(kind)] as { properties: Record<string, Json> };
    list.properties.data = { type: 'array', items: ref('schemas', objectSchemaName(kind)) };
  }
  return schemas;
}

/**
 * Each operation's request and response, recorded from the local stack by
 * test/integration/openapi-examples.test.ts (RECORD_OPENAPI_EXAMPLES=1), which also validates
 * them against this document. The path gives the id and query parameters their examples.
 */
interface RecordedExample {
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body?: unknown };
}
export const EXAMPLES_FILE = resolve(import.meta.dirname, '../docs/openapi-examples.json');
const EXAMPLES: Partial<Record<string, RecordedExample>> & { webhooks?: Record<string, unknown> } = existsSync(EXAMPLES_FILE) ? JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) : {};
const recorded = (value: unknown) => (value === undefined ? {} : { examples: { recorded: { summary: 'Recorded from the local stack', value } } });

/** A request body's schema name: `CreateClient`, `UpdateProject`, `LogTimeEntry` (the operation's name). */
const bodyName = (route: Route) => route.operation.charAt(0).toUpperCase() + route.operation.slice(1);

export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationObject(route);
  }
  const requestSchemas = Object.fromEntries(
    ROUTES.flatMap((route) => {
      const body = contractOf(route, schemasOf(route))?.body;
      return body ? [[bodyName(route), requestBodySchema(describeDefaults(documentedJsonSchema(body)))]] : [];
    }),
  );
  // A batch's entries are its resource's create bodies: the create's schema by reference, so
  // generators give each entry the create's own type (its one-of-two alternatives included).
  for (const route of ROUTES) {
    if (route.action !== 'createMany') continue;
    const create = ROUTES.find((r) => r.resource === route.resource && r.action === 'create')!;
    const batch = requestSchemas[bodyName(route)] as { properties: { entries: Json } };
    batch.properties.entries = { ...batch.properties.entries, items: ref('schemas', bodyName(create)) };
  }
  const responses = withCreatedSchemas(withListItemRefs(withLineUnion(withEventUnion(Object.fromEntries(Object.entries(responseSchemas()).map(([name, schema]) => [name, documentedJsonSchema(schema)]))))));
  return withSelfExample({
    openapi: '3.1.0',
    info: {
      title: 'timebill API',
      version: '1.0.0',
      // No support address exists yet: the operator who deployed the stack is the contact.
      contact: { name: 'The operator of this deployment' },
      // The package is private and not open source.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: [
        'Clients, projects and time entries of a time-tracking and billing workspace.',
        'Authenticate with an OAuth 2.0 access token (client-credentials grant) in `Authorization: Bearer <token>`; each operation needs one scope, and a write scope does not include read.',
        'Every change of a client, project or time entry is an event: follow them with the events feed (`GET /api/v1/events`, and `after=` for sync mode), or have them posted to a webhook endpoint, signed (the `webhooks` section describes each event type\'s delivery).',
        'Lists are newest first with opaque cursors. Every error has the `ErrorBody` shape. POST, PATCH and DELETE accept an `Idempotency-Key` (kept 24 hours: a retry gets the first response again); PATCH and DELETE accept `If-Match` with an `ETag`.',
        `Each API client has its own limits, by plan (${PLAN_NAMES.map((plan) => `${plan}: ${describePlan(plan)}`).join('; ')}); over them the answer is 429 \`rate_limited\` or \`quota_exceeded\` with \`Retry-After\`. The whole stage allows ${STAGE_THROTTLING.rateLimit} requests per second (bursts of ${STAGE_THROTTLING.burstLimit}).`,
      ].join('\n\n'),
    },
    servers: [
      { url: 'https://{apiId}.execute-api.{region}.amazonaws.com/prod', variables: { apiId: { default: 'your-api-id' }, region: { default: 'us-east-1' } } },
      { url: 'http://127.0.0.1:3000', description: 'The local stack (npm start)' },
    ],
    tags: [...RESOURCE_LIST.map((r) => r.tag), TIME_SUMMARIES.tag, EVENT_FEED.tag, DESCRIPTION_TAG].map((name) => ({ name, description: tagDescription(name) })),
    paths,
    webhooks: webhooks(),
    components: {
      schemas: { ...responses, ...requestSchemas },
      parameters: {
        // Only while an operation refers to it (one without a recorded example).
        ...(JSON.stringify(paths).includes('"#/components/parameters/Id"') ? { Id: ID_PARAMETER } : {}),
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: `Makes a retry safe: the change happens once, and its response is kept for ${IDEMPOTENCY_TTL_SECONDS / 3600} hours (written with the change) and replayed, byte for byte, to a retry with the same key, method, path and body (\`Idempotent-Replayed: true\`). The key with another request is 422; while the first request runs, 409 with Retry-After. A refused request (4xx) keeps nothing. Scoped to your API client`,
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: `\`*\` (any existing version), or a comma-separated list of up to ${MAX_IF_MATCH_TAGS} ETags (\`"7", "8"\`), compared strongly (RFC 9110): the change happens only if one of them is exactly the current ETag; weak tags (\`W/"7"\`) never match. Otherwise 412; a header of neither form is 400`,
          // RFC 9110's list syntax as the API parses it (shared/http/conditional.ts): `*`, or entity-tags
          // separated by commas (empty members allowed), at most MAX_IF_MATCH_TAGS of them.
          schema: { type: 'string', pattern: IF_MATCH_PATTERN, examples: ['"3"', '"3", "4"', '*'] },
        },
      },
      headers: HEADERS,
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map((r) => [
          r.name,
          {
            description: r.description,
            headers: responseHeaders(r.headers ?? []),
            content: { 'application/json': { schema: ref('schemas', ERROR_SCHEMA) } },
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
  });
}

const HOUR_MS = 60 * 60 * 1000;

function tagDescription(tag: string): string {
  const description = TAG_DOCS[tag];
  if (!description) throw new Error(`scripts/openapi-operations.ts: TAG_DOCS has no description of the tag "${tag}"`);
  return description;
}

/**
 * The `webhooks` section: what a delivery of each event type posts (the event object with that
 * type, that resource in data.object, previous_attributes but on *.created and *.deleted), and the Standard
 * Webhooks headers that sign it (shared/core/webhook-signature.ts, docs/events.md).
 */
function webhooks(): Record<string, Json> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const action = type.slice(type.lastIndexOf('.') + 1);
      const post = {
        operationId: `on${schemaName(type.replace('.', '_'))}`,
        summary: `${type}: ${action === 'deleted' ? 'data.object is its last state' : 'data.object is the resource after the change'}`,
        description: [
          `Posted to each enabled webhook endpoint whose enabled_events holds "${type}" or "*", for changes made after the endpoint was created. The body is the event, the same JSON as GET /api/v1/events/{id}.`,
          `Acknowledge with any 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s; anything else is retried with exponential backoff and jitter for at least ${RETRY_SPAN_MS / (24 * HOUR_MS)} days. Deliveries are at least once and not necessarily in order: deduplicate by the event id, and use the feed when order matters (it keeps events ${EVENT_RETENTION_DAYS} days).`,
        ].join(' '),
        tags: [EVENT_FEED.tag],
        // A delivery is a call the API makes: no OAuth token; the receiver authenticates it by its signature headers.
        security: [],
        parameters: [
          { name: WEBHOOK_ID_HEADER, in: 'header', required: true, description: 'The event id, the same on every retry: deduplicate by it', schema: { type: 'string', pattern: `^${EVENT_FEED.idPrefix}` } },
          {
            name: WEBHOOK_TIMESTAMP_HEADER,
            in: 'header',
            required: true,
            description: "The attempt's time, in unix seconds: refuse one more than 5 minutes from your clock (a replayed capture)",
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
          {
            name: WEBHOOK_SIGNATURE_HEADER,
            in: 'header',
            required: true,
            description:
              "Standard Webhooks (standardwebhooks.com): `v1,<base64>`, the standard base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw request body>`, keyed with the bytes the base64 after the endpoint secret's `whsec_` decodes to. While a secret rotates, several space-separated signatures: one that matches is enough. Verify with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`), or compare in constant time",
            schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('schemas', eventSchemaName(type)), ...recorded(EXAMPLES.webhooks?.[type]) },
          },
        },
        responses: { '2XX': { description: 'Acknowledged; the body is ignored' } },
      };
      return [type, { post }];
    }),
  );
}

export const renderOpenApiDocument = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
