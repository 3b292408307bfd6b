/**
 * Each operation's contract: the body and query it takes, what it answers, and the errors it
 * can answer besides those of every protected operation. Declared once per action here, for the
 * resource of the route; the handler frame (shared/http/handler.ts) parses with it and the
 * OpenAPI generator (scripts/openapi-document.ts) documents it.
 */
import type * as v from 'valibot';
import { RESOURCES, referrersOf, type ResourceKind } from './resources/registry.ts';
import type { AnyResource } from './resources/define.ts';
import { EVENT_FEED } from './events/types.ts';
import { ListEventsQuery, type ListEventsInput } from './schemas/events.ts';
import type { Action, Operation, Route } from './routes.ts';

export interface Contract {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  /** A path parameter `{id}` names the resource. */
  takesId: boolean;
  /** What a success answers: the resource (with its ETag), a list of them, or a deletion. */
  success: { status: 200 | 201; returns: 'object' | 'list' | 'deleted' };
  /** The success carries the object's version as an ETag (a registry resource's object). */
  versioned: boolean;
  /** Retries are safe with an Idempotency-Key (POST and PATCH). */
  idempotent: boolean;
  /** If-Match is honoured (PATCH and DELETE). */
  conditional: boolean;
  /** Error statuses besides 401, 403, 429 and 500. */
  errors: number[];
}

const WRITE_BODY = [400, 409, 413, 415, 422];

const CONTRACTS: Record<Action, (resource: AnyResource) => Contract> = {
  list: (r) => ({ query: r.listQuery, takesId: false, success: { status: 200, returns: 'list' }, versioned: false, idempotent: false, conditional: false, errors: [400] }),
  retrieve: () => ({ takesId: true, success: { status: 200, returns: 'object' }, versioned: true, idempotent: false, conditional: false, errors: [404] }),
  create: (r) => ({ body: r.create, takesId: false, success: { status: 201, returns: 'object' }, versioned: true, idempotent: true, conditional: false, errors: WRITE_BODY }),
  update: (r) => ({ body: r.update, takesId: true, success: { status: 200, returns: 'object' }, versioned: true, idempotent: true, conditional: true, errors: [...WRITE_BODY, 404, 412] }),
  delete: (r) => ({
    takesId: true,
    success: { status: 200, returns: 'deleted' },
    versioned: false,
    idempotent: false,
    conditional: true,
    // 409 only where a guard can refuse it.
    errors: referrersOf(r).length > 0 ? [400, 404, 409, 412] : [400, 404, 412],
  }),
};

/**
 * The events feed (events.md): read-only. Its list takes filters and `after=` (sync mode); an
 * event has no version, so no ETag.
 */
const FEED_CONTRACTS: Record<'list' | 'retrieve', Contract> = {
  list: { query: ListEventsQuery, takesId: false, success: { status: 200, returns: 'list' }, versioned: false, idempotent: false, conditional: false, errors: [400] },
  retrieve: { takesId: true, success: { status: 200, returns: 'object' }, versioned: false, idempotent: false, conditional: false, errors: [404] },
};

type RouteOf<O extends Operation> = Extract<Route, { operation: O }>;
type ResourceOf<O extends Operation> = RouteOf<O>['resource'] extends ResourceKind ? (typeof RESOURCES)[RouteOf<O>['resource']] : never;

/** What the operation's body parses to (create and update). */
export type BodyOf<O extends Operation> = RouteOf<O>['action'] extends 'create'
  ? v.InferOutput<ResourceOf<O>['create']>
  : RouteOf<O>['action'] extends 'update'
    ? v.InferOutput<ResourceOf<O>['update']>
    : never;

/** What the operation's query string parses to (lists). */
export type QueryOf<O extends Operation> = RouteOf<O>['action'] extends 'list'
  ? RouteOf<O>['resource'] extends typeof EVENT_FEED.kind
    ? ListEventsInput
    : v.InferOutput<ResourceOf<O>['listQuery']>
  : never;

/** The contract of a resource's or the feed's operation; undefined for the public API description. */
export function contractOf(route: Route): Contract | undefined {
  if (route.resource === null) return undefined;
  if (route.resource === EVENT_FEED.kind) return FEED_CONTRACTS[route.action];
  return CONTRACTS[route.action](RESOURCES[route.resource] as AnyResource);
}

/** What an operation answers about, for its OpenAPI schemas and tag: a resource or the feed. */
export function subjectOf(route: Route): { kind: string; tag: string } | undefined {
  if (route.resource === null) return undefined;
  if (route.resource === EVENT_FEED.kind) return EVENT_FEED;
  return RESOURCES[route.resource];
}
