/**
 * Each operation's contract: the body and query it takes, what it answers, and the errors it
 * can answer besides those of every protected operation. Declared once per action here, for the
 * resource of the route, which the caller passes in: the handler frame (shared/http/handler.ts)
 * gets it from its function (a read or delete function passes the resource's declaration alone,
 * so its bundle holds no field schema) and parses with the contract; the OpenAPI generator
 * (scripts/openapi-document.ts) documents it.
 */
import type * as v from 'valibot';
import { resourceOf, type RESOURCES } from '../model/resources.ts';
import type { AnyResource } from '../model/declare.ts';
import type { SchemasByKind } from '../model/schemas.ts';
import { EVENT_FEED } from '../model/event-types.ts';
import { LIMITS } from '../core/field-limits.ts';
import type { EventFeedSchemas } from './event-schemas.ts';
import type { TimeSummarySchemas } from './time-summary-schemas.ts';
import type { BillingRunResultSchemas } from './billing-run-result-schemas.ts';
import type { ParsedBatch } from '../model/parse.ts';
import type { Action, Operation, Route, RouteOf, Transition } from './routes.ts';

export interface Contract {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  /** A path parameter `{id}` names the resource. */
  takesId: boolean;
  /** What a success answers: the resource (with its ETag), a list of them, or a deletion; 202: work the service goes on with (a billing run). */
  success: { status: 200 | 201 | 202; returns: 'object' | 'list' | 'deleted' | 'document' };
  /** The success carries the object's version as an ETag (a registry resource's object). */
  versioned: boolean;
  /** Retries are safe with an Idempotency-Key (POST, PATCH and DELETE). */
  idempotent: boolean;
  /** If-Match is honoured (PATCH and DELETE). */
  conditional: boolean;
  /** The largest body it takes, in bytes, when not LIMITS.bodyBytes (a batch's). */
  bodyBytes?: number;
  /** The body may be left out (an invoice's transitions): none is parsed as `{}`. */
  optionalBody?: true;
  /** What its success may be sent as, by the request's Accept (shared/http/negotiation.ts); JSON alone when absent. */
  mediaTypes?: readonly string[];
  /** Error statuses besides 401, 403, 429 and 500. */
  errors: number[];
}

const WRITE_BODY = [400, 409, 413, 415, 422];
/** JSON first: no Accept, `*\/*` and a tie give JSON. */
export const LIST_MEDIA_TYPES = ['application/json', 'text/csv'] as const;
/** An invoice's PDF (contract, "Business profile and the invoice document"). */
export const PDF_TYPE = 'application/pdf';

/** The actions whose contract parses the resource's fields, and the schema each parses with. */
const PARSED_BY = { list: 'listQuery', create: 'create', createMany: 'createMany', start: 'create', update: 'update', finalize: 'finalize', pay: 'pay', void: 'void' } as const satisfies Record<ParsesFields, string>;
type ParsesFields = 'list' | 'create' | 'createMany' | 'start' | 'update' | Transition;
type ParsedBy = typeof PARSED_BY;
/** A resource with the schema of `A` (its function passes `withCreate(clientFields)`, …: define.ts). */
type WithSchemaOf<A extends ParsesFields> = AnyResource & { readonly [K in ParsedBy[A]]: v.GenericSchema };

/** A lifecycle step (`POST /invoices/{id}/finalize`): an optional body, the object after it; If-Match and keys as any write. */
const transition =
  (step: Transition) =>
  (r: AnyResource & Partial<Record<Transition, v.GenericSchema>>): Contract => ({
    body: r[step]!,
    optionalBody: true,
    takesId: true,
    success: { status: 200, returns: 'object' },
    versioned: true,
    idempotent: true,
    conditional: true,
    errors: [...WRITE_BODY, 404, 412],
  });


/** The schema `schema` (`create`, `update`, …) that `resource` must carry for `operation` to parse it; thrown at the function's load. */
export function requireSchema(operation: string, resource: object, schema: string): void {
  if (!(schema in resource)) throw new Error(`${operation} parses fields: give it the resource's ${schema} schema (shared/model/define.ts)`);
}

const CONTRACTS: { [A in Action]: (resource: A extends ParsesFields ? WithSchemaOf<A> : AnyResource) => Contract } = {
  // A nested resource's list and create name their parent: 404 when it names nothing.
  // A resource's list answers CSV too (contract, "CSV and bulk import").
  list: (r) => ({ query: r.listQuery, takesId: false, success: { status: 200, returns: 'list' }, versioned: false, idempotent: false, conditional: false, mediaTypes: LIST_MEDIA_TYPES, errors: r.parent ? [400, 404] : [400] }),
  // A singleton (the business profile) is at its collection's path, and always there.
  // A resource with a document answers it too, to an Accept that prefers it (its function hands the request over to the document's).
  retrieve: (r) => ({
    takesId: !r.singleton,
    success: { status: 200, returns: 'object' },
    versioned: true,
    idempotent: false,
    conditional: false,
    ...(r.document ? { mediaTypes: ['application/json', r.document] } : {}),
    errors: r.singleton ? [] : [404],
  }),
  // The document alone, whatever else the Accept allows; its ETag is its bytes' (304 on If-None-Match).
  document: (r) => ({ takesId: true, success: { status: 200, returns: 'document' }, versioned: false, idempotent: false, conditional: false, mediaTypes: [r.document ?? PDF_TYPE], errors: [404] }),
  create: (r) => ({ body: r.create, takesId: false, success: { status: 201, returns: 'object' }, versioned: true, idempotent: true, conditional: false, errors: r.parent ? [...WRITE_BODY, 404] : WRITE_BODY }),
  // A start (a billing run) answers 202 with what it started, Location its URL: the service goes on with it.
  start: (r) => ({ body: r.create, takesId: false, success: { status: 202, returns: 'object' }, versioned: true, idempotent: true, conditional: false, errors: WRITE_BODY }),
  // A batch answers the list of what it made (no Location: there is no one resource); its body may be up to 1 MiB.
  createMany: (r) => ({ body: r.createMany, bodyBytes: LIMITS.batchBodyBytes, takesId: false, success: { status: 201, returns: 'list' }, versioned: false, idempotent: true, conditional: false, errors: WRITE_BODY }),
  update: (r) => ({ body: r.update, takesId: !r.singleton, success: { status: 200, returns: 'object' }, versioned: true, idempotent: true, conditional: true, errors: r.singleton ? [...WRITE_BODY, 412] : [...WRITE_BODY, 404, 412] }),
  delete: () => ({
    takesId: true,
    success: { status: 200, returns: 'deleted' },
    versioned: false,
    idempotent: true,
    conditional: true,
    // 409: a guard refused it, or its Idempotency-Key is in use; 422: the key was used for another request.
    errors: [400, 404, 409, 412, 422],
  }),
  finalize: /* @__PURE__ */ transition('finalize'),
  pay: /* @__PURE__ */ transition('pay'),
  void: /* @__PURE__ */ transition('void'),
};

/**
 * The events feed (events.md): read-only. Its list function passes the feed with its query
 * schema (filters and `after=`, sync mode), its retrieve function the feed's names alone; an
 * event has no version, so no ETag.
 */
const FEED_CONTRACTS = {
  list: (feed: { listQuery: v.GenericSchema }): Contract => ({
    query: feed.listQuery,
    takesId: false,
    success: { status: 200, returns: 'list' },
    versioned: false,
    idempotent: false,
    conditional: false,
    mediaTypes: LIST_MEDIA_TYPES,
    errors: [400],
  }),
  retrieve: (): Contract => ({ takesId: true, success: { status: 200, returns: 'object' }, versioned: false, idempotent: false, conditional: false, errors: [404] }),
  /** Rows under a resource (a billing run's results): a list that takes its `{id}`, 404 when it names nothing. */
  rows: (rows: { listQuery: v.GenericSchema }): Contract => ({ ...FEED_CONTRACTS.list(rows), takesId: true, errors: [400, 404] }),
};
type Feed = typeof EVENT_FEED;
type Summaries = TimeSummarySchemas['kind'];
type Results = BillingRunResultSchemas['kind'];

type KindOf<O extends Operation> = Extract<RouteOf<O>['resource'], keyof SchemasByKind>;
type ResourceOf<O extends Operation> = SchemasByKind[KindOf<O>];

/**
 * What an operation's function passes to the handler frame: its resource, with its action's
 * schema where the contract parses fields (`withUpdate(clientFields)`; `clientSchemas`, with
 * every action's, passes too).
 */
export type ResourceFor<O extends Operation> = RouteOf<O>['resource'] extends Summaries
  ? TimeSummarySchemas
  : RouteOf<O>['resource'] extends Results
  ? BillingRunResultSchemas
  : RouteOf<O>['resource'] extends Feed['kind']
  ? RouteOf<O>['action'] extends 'list'
    ? EventFeedSchemas
    : Feed
  : RouteOf<O>['action'] extends ParsesFields
    ? Omit<ResourceOf<O>, Exclude<ParsedBy[ParsesFields], ParsedBy[RouteOf<O>['action']]> | 'entries'>
    : (typeof RESOURCES)[KindOf<O>];

/** What the operation's body parses to (create, a batch, update, a step). */
export type BodyOf<O extends Operation> = RouteOf<O>['action'] extends 'create' | 'start'
  ? v.InferOutput<ResourceOf<O>['create']>
  : RouteOf<O>['action'] extends 'createMany'
  ? ParsedBatch<v.InferOutput<ResourceOf<O>['create']>>
  : RouteOf<O>['action'] extends 'update'
    ? v.InferOutput<ResourceOf<O>['update']>
    : RouteOf<O>['action'] extends Transition
      ? v.InferOutput<ResourceOf<O>[RouteOf<O>['action'] & keyof ResourceOf<O>] & v.GenericSchema>
      : never;

/** What the operation's query string parses to (lists). */
export type QueryOf<O extends Operation> = RouteOf<O>['action'] extends 'list'
  ? RouteOf<O>['resource'] extends Summaries
    ? v.InferOutput<TimeSummarySchemas['listQuery']>
    : RouteOf<O>['resource'] extends Results
    ? v.InferOutput<BillingRunResultSchemas['listQuery']>
    : RouteOf<O>['resource'] extends Feed['kind']
    ? v.InferOutput<EventFeedSchemas['listQuery']>
    : v.InferOutput<ResourceOf<O>['listQuery']>
  : never;

/** What a contract is chosen by: the operation's name, resource and action (a route, or a handler's own statement of them). */
export type OperationOf = { [O in Operation]: Pick<RouteOf<O>, 'operation' | 'resource' | 'action'> }[Operation];

/** The contract of a resource's or the feed's operation, given that resource or the feed; undefined for the public API description. */
export function contractOf(route: OperationOf, resource: AnyResource | WithSchemaOf<ParsesFields> | Feed | EventFeedSchemas | TimeSummarySchemas | BillingRunResultSchemas | undefined,
): Contract | undefined {
  if (route.resource === null) return undefined;
  if (resource?.kind !== route.resource) throw new Error(`${route.operation} is an operation of ${route.resource}, not of ${resource?.kind}`);
  // Summaries are a list whose query the feed's list contract takes as it is.
  if (route.resource === 'time_summary') return FEED_CONTRACTS.list(resource as TimeSummarySchemas);
  if (route.resource === 'billing_run_result') return FEED_CONTRACTS.rows(resource as BillingRunResultSchemas);
  if (route.resource === EVENT_FEED.kind) {
    if (route.action === 'retrieve') return FEED_CONTRACTS.retrieve();
    if (!('listQuery' in resource)) throw new Error(`${route.operation} parses its query: give it the feed's schemas (shared/api/event-schemas.ts)`);
    return FEED_CONTRACTS.list(resource);
  }
  if (route.action !== 'retrieve' && route.action !== 'document' && route.action !== 'delete') requireSchema(route.operation, resource, PARSED_BY[route.action]);
  return CONTRACTS[route.action](resource as never);
}

/** What an operation answers about, for its OpenAPI schemas and tag: a resource or the feed. */
export function subjectOf(route: Route): { kind: string; tag: string } | undefined {
  if (route.resource === null) return undefined;
  if (route.resource === EVENT_FEED.kind) return EVENT_FEED;
  if (route.resource === 'time_summary') return { kind: 'time_summary', tag: 'Time summaries' };
  if (route.resource === 'billing_run_result') return { kind: 'billing_run_result', tag: 'Billing runs' };
  return resourceOf(route.resource);
}
