/**
 * The route table: the one source of truth for every operation of the API (the functions that
 * are not routes are declared beside it, in background.ts). The CDK stack, the authorizer's
 * policy, the handler frames (each its operation's row: the action and the scope it checks), the
 * local gateway, the bundle-size script, the bench and the OpenAPI document all read it.
 *
 * It is typed against the resource registry (type-only imports: the authorizer's bundle carries
 * no schemas), so a route whose path, scope or method does not fit its resource and action fails
 * `tsc`, not a cold start.
 */
import type { Collection, ResourceKind, RESOURCES } from '../model/resources.ts';

export const API_PREFIX = '/api/v1';
type Prefix = typeof API_PREFIX;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Action = 'list' | 'retrieve' | 'document' | 'create' | 'createMany' | 'start' | 'update' | 'delete' | Transition;
/** An invoice's lifecycle steps (contract, "Invoices"): `POST /<collection>/{id}/<step>`, the write scope. */
export type Transition = 'finalize' | 'pay' | 'void';
export const TRANSITIONS: readonly Transition[] = ['finalize', 'pay', 'void'];
/** The events feed's collection (events.md): read-only, its items made by the stream consumer, not a registry resource. */
export type FeedCollection = 'events';
export type Scope = `${Collection}:${'read' | 'write'}` | `${FeedCollection}:read`;

/**
 * What a function may do to the table: infra/access.ts grants each level's actions. Routes are
 * `read`, `write` or `none`; the authorizer and the functions that are not routes have levels cut
 * to what their code sends (`events`: the stream consumer; `getItem`: the delivery worker).
 */
export type TableAccess = 'read' | 'write' | 'authorizer' | 'events' | 'getItem' | 'none';
/** The levels a route has. */
export type RouteAccess = Extract<TableAccess, 'read' | 'write' | 'none'>;

/** What each action is over HTTP, for a resource whose collection is C. */
type ActionRoute<C extends string> =
  | { action: 'list'; method: 'GET'; path: `${Prefix}/${C}`; scope: `${C}:read` }
  | { action: 'retrieve'; method: 'GET'; path: `${Prefix}/${C}/{id}`; scope: `${C}:read` }
  | { action: 'document'; method: 'GET'; path: `${Prefix}/${C}/{id}/document`; scope: `${C}:read` }
  | { action: 'create'; method: 'POST'; path: `${Prefix}/${C}`; scope: `${C}:write` }
  | { action: 'createMany'; method: 'POST'; path: `${Prefix}/${C}/batch`; scope: `${C}:write` }
  | { action: 'update'; method: 'PATCH'; path: `${Prefix}/${C}/{id}`; scope: `${C}:write` }
  | { action: 'delete'; method: 'DELETE'; path: `${Prefix}/${C}/{id}`; scope: `${C}:write` }
  | { [T in Transition]: { action: T; method: 'POST'; path: `${Prefix}/${C}/{id}/${T}`; scope: `${C}:write` } }[Transition];

export interface FunctionBase {
  /** Stable operation name; also the Lambda function's logical name. */
  readonly operation: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: `functions/${string}.ts`;
}

/** The resources whose paths lie under another's (their declaration's `parent`), the one-per-workspace ones (`singleton`), and those with another's scopes (`scopesOf`). */
type NestedKind = 'payment';
type SingletonKind = 'business_profile';
type ScopedKind = 'billing_run';

type ResourceRoute = {
  [K in Exclude<ResourceKind, NestedKind | SingletonKind | ScopedKind>]: FunctionBase & { readonly resource: K } & Readonly<ActionRoute<(typeof RESOURCES)[K]['collection']>>;
}[Exclude<ResourceKind, NestedKind | SingletonKind | ScopedKind>];

/**
 * Billing runs (contract, "Billing runs"): started (202: the service moves them on), retrieved and
 * listed, with the invoices' scopes; a run's outcomes are rows of its results (`billing_run_result`).
 */
type BillingRunRoute = FunctionBase &
  Readonly<
    | { resource: 'billing_run'; action: 'start'; method: 'POST'; path: `${Prefix}/billing_runs`; scope: 'invoices:write' }
    | { resource: 'billing_run'; action: 'list'; method: 'GET'; path: `${Prefix}/billing_runs`; scope: 'invoices:read' }
    | { resource: 'billing_run'; action: 'retrieve'; method: 'GET'; path: `${Prefix}/billing_runs/{id}`; scope: 'invoices:read' }
    | { resource: 'billing_run_result'; action: 'list'; method: 'GET'; path: `${Prefix}/billing_runs/{id}/results`; scope: 'invoices:read' }
  >;

/** The business profile (contract, "Business profile and the invoice document"): one per workspace, at its collection's path, retrieved and changed. */
type SingletonRoute = FunctionBase & { readonly resource: 'business_profile' } & Readonly<
  | { action: 'retrieve'; method: 'GET'; path: `${Prefix}/business_profile`; scope: 'business_profile:read' }
  | { action: 'update'; method: 'PATCH'; path: `${Prefix}/business_profile`; scope: 'business_profile:write' }
>;

/**
 * What each action is over HTTP for a resource of collection C under a resource of collection P,
 * whose `{id}` names the parent and whose scopes it takes: `/invoices/{id}/payments/{payment_id}`.
 */
type NestedActionRoute<P extends string, C extends string, I extends string> =
  | { action: 'list'; method: 'GET'; path: `${Prefix}/${P}/{id}/${C}`; scope: `${P}:read` }
  | { action: 'create'; method: 'POST'; path: `${Prefix}/${P}/{id}/${C}`; scope: `${P}:write` }
  | { action: 'retrieve'; method: 'GET'; path: `${Prefix}/${P}/{id}/${C}/{${I}}`; scope: `${P}:read` }
  | { action: 'delete'; method: 'DELETE'; path: `${Prefix}/${P}/{id}/${C}/{${I}}`; scope: `${P}:write` };

/** Payments (contract, "Invoice items, taxes and payments"): under their invoice, with its scopes. */
type PaymentRoute = FunctionBase & { readonly resource: 'payment' } & Readonly<NestedActionRoute<'invoices', 'payments', typeof CHILD_ID>>;

/** The path parameter that names a nested resource (`{id}` names its parent). */
export const CHILD_ID = 'payment_id';

/** The events feed: list and retrieve only, over the workspace's event sequence (shared/domain/event-feed.ts). */
type FeedRoute = FunctionBase & { readonly resource: 'event' } & Readonly<Extract<ActionRoute<FeedCollection>, { action: 'list' | 'retrieve' }>>;

/** Time summaries (contract, "Time summaries"): computed rows, read with the time entries' read scope. */
type SummaryRoute = FunctionBase & {
  readonly resource: 'time_summary';
  readonly action: 'list';
  readonly method: 'GET';
  readonly path: `${Prefix}/time_summaries`;
  readonly scope: 'time_entries:read';
};

/** A route without a token (the API description). */
interface PublicRoute extends FunctionBase {
  readonly resource: null;
  readonly action: 'describe';
  readonly method: 'GET';
  readonly path: `${Prefix}/${string}`;
  readonly scope: null;
}

export type RouteDeclaration = ResourceRoute | PaymentRoute | SingletonRoute | BillingRunRoute | FeedRoute | SummaryRoute | PublicRoute;

export const ROUTES = [
  // clients
  { operation: 'listClients', resource: 'client', action: 'list', method: 'GET', path: '/api/v1/clients', scope: 'clients:read', entry: 'functions/clients/list.ts' },
  { operation: 'retrieveClient', resource: 'client', action: 'retrieve', method: 'GET', path: '/api/v1/clients/{id}', scope: 'clients:read', entry: 'functions/clients/retrieve.ts' },
  { operation: 'createClient', resource: 'client', action: 'create', method: 'POST', path: '/api/v1/clients', scope: 'clients:write', entry: 'functions/clients/create.ts' },
  { operation: 'updateClient', resource: 'client', action: 'update', method: 'PATCH', path: '/api/v1/clients/{id}', scope: 'clients:write', entry: 'functions/clients/update.ts' },
  { operation: 'deleteClient', resource: 'client', action: 'delete', method: 'DELETE', path: '/api/v1/clients/{id}', scope: 'clients:write', entry: 'functions/clients/delete.ts' },
  // projects
  { operation: 'listProjects', resource: 'project', action: 'list', method: 'GET', path: '/api/v1/projects', scope: 'projects:read', entry: 'functions/projects/list.ts' },
  { operation: 'retrieveProject', resource: 'project', action: 'retrieve', method: 'GET', path: '/api/v1/projects/{id}', scope: 'projects:read', entry: 'functions/projects/retrieve.ts' },
  { operation: 'createProject', resource: 'project', action: 'create', method: 'POST', path: '/api/v1/projects', scope: 'projects:write', entry: 'functions/projects/create.ts' },
  { operation: 'updateProject', resource: 'project', action: 'update', method: 'PATCH', path: '/api/v1/projects/{id}', scope: 'projects:write', entry: 'functions/projects/update.ts' },
  { operation: 'deleteProject', resource: 'project', action: 'delete', method: 'DELETE', path: '/api/v1/projects/{id}', scope: 'projects:write', entry: 'functions/projects/delete.ts' },
  // time entries: logged, corrected and moved (domain/time-entries.ts), deleted
  { operation: 'listTimeEntries', resource: 'time_entry', action: 'list', method: 'GET', path: '/api/v1/time_entries', scope: 'time_entries:read', entry: 'functions/time-entries/list.ts' },
  { operation: 'retrieveTimeEntry', resource: 'time_entry', action: 'retrieve', method: 'GET', path: '/api/v1/time_entries/{id}', scope: 'time_entries:read', entry: 'functions/time-entries/retrieve.ts' },
  { operation: 'logTimeEntry', resource: 'time_entry', action: 'create', method: 'POST', path: '/api/v1/time_entries', scope: 'time_entries:write', entry: 'functions/time-entries/log.ts' },
  // bulk import (domain/time-entry-batch.ts): 1 to 100 logs, all or none
  { operation: 'logTimeEntryBatch', resource: 'time_entry', action: 'createMany', method: 'POST', path: '/api/v1/time_entries/batch', scope: 'time_entries:write', entry: 'functions/time-entries/log-batch.ts' },
  { operation: 'updateTimeEntry', resource: 'time_entry', action: 'update', method: 'PATCH', path: '/api/v1/time_entries/{id}', scope: 'time_entries:write', entry: 'functions/time-entries/update.ts' },
  { operation: 'deleteTimeEntry', resource: 'time_entry', action: 'delete', method: 'DELETE', path: '/api/v1/time_entries/{id}', scope: 'time_entries:write', entry: 'functions/time-entries/delete.ts' },
  // what to bill: totals of time entries by client or project and period (domain/time-summaries.ts)
  { operation: 'listTimeSummaries', resource: 'time_summary', action: 'list', method: 'GET', path: '/api/v1/time_summaries', scope: 'time_entries:read', entry: 'functions/time-summaries/list.ts' },
  // invoices (contract, "Invoices"): uninvoiced time locked into a draft, then its lifecycle (domain/invoices/)
  { operation: 'listInvoices', resource: 'invoice', action: 'list', method: 'GET', path: '/api/v1/invoices', scope: 'invoices:read', entry: 'functions/invoices/list.ts' },
  { operation: 'retrieveInvoice', resource: 'invoice', action: 'retrieve', method: 'GET', path: '/api/v1/invoices/{id}', scope: 'invoices:read', entry: 'functions/invoices/retrieve.ts' },
  // its PDF (shared/document/): a function of its own, which the retrieve hands a PDF Accept over to (decision 0034)
  { operation: 'retrieveInvoiceDocument', resource: 'invoice', action: 'document', method: 'GET', path: '/api/v1/invoices/{id}/document', scope: 'invoices:read', entry: 'functions/invoices/document.ts' },
  { operation: 'createInvoice', resource: 'invoice', action: 'create', method: 'POST', path: '/api/v1/invoices', scope: 'invoices:write', entry: 'functions/invoices/create.ts' },
  { operation: 'updateInvoice', resource: 'invoice', action: 'update', method: 'PATCH', path: '/api/v1/invoices/{id}', scope: 'invoices:write', entry: 'functions/invoices/update.ts' },
  { operation: 'deleteInvoice', resource: 'invoice', action: 'delete', method: 'DELETE', path: '/api/v1/invoices/{id}', scope: 'invoices:write', entry: 'functions/invoices/delete.ts' },
  { operation: 'finalizeInvoice', resource: 'invoice', action: 'finalize', method: 'POST', path: '/api/v1/invoices/{id}/finalize', scope: 'invoices:write', entry: 'functions/invoices/finalize.ts' },
  { operation: 'payInvoice', resource: 'invoice', action: 'pay', method: 'POST', path: '/api/v1/invoices/{id}/pay', scope: 'invoices:write', entry: 'functions/invoices/pay.ts' },
  { operation: 'voidInvoice', resource: 'invoice', action: 'void', method: 'POST', path: '/api/v1/invoices/{id}/void', scope: 'invoices:write', entry: 'functions/invoices/void.ts' },
  // an invoice's payments (domain/invoices/payments.ts): each one changes the invoice's amount_paid in its own transaction
  { operation: 'listPayments', resource: 'payment', action: 'list', method: 'GET', path: '/api/v1/invoices/{id}/payments', scope: 'invoices:read', entry: 'functions/invoices/payments/list.ts' },
  { operation: 'retrievePayment', resource: 'payment', action: 'retrieve', method: 'GET', path: '/api/v1/invoices/{id}/payments/{payment_id}', scope: 'invoices:read', entry: 'functions/invoices/payments/retrieve.ts' },
  { operation: 'createPayment', resource: 'payment', action: 'create', method: 'POST', path: '/api/v1/invoices/{id}/payments', scope: 'invoices:write', entry: 'functions/invoices/payments/create.ts' },
  { operation: 'deletePayment', resource: 'payment', action: 'delete', method: 'DELETE', path: '/api/v1/invoices/{id}/payments/{payment_id}', scope: 'invoices:write', entry: 'functions/invoices/payments/delete.ts' },
  // the business profile (domain/business-profile.ts): what the workspace's invoices say of their issuer
  { operation: 'retrieveBusinessProfile', resource: 'business_profile', action: 'retrieve', method: 'GET', path: '/api/v1/business_profile', scope: 'business_profile:read', entry: 'functions/business-profile/retrieve.ts' },
  { operation: 'updateBusinessProfile', resource: 'business_profile', action: 'update', method: 'PATCH', path: '/api/v1/business_profile', scope: 'business_profile:write', entry: 'functions/business-profile/update.ts' },
  // billing runs (domain/billing-runs.ts): many clients invoiced at once, on a queue of their own
  { operation: 'startBillingRun', resource: 'billing_run', action: 'start', method: 'POST', path: '/api/v1/billing_runs', scope: 'invoices:write', entry: 'functions/billing-runs/start.ts' },
  { operation: 'retrieveBillingRun', resource: 'billing_run', action: 'retrieve', method: 'GET', path: '/api/v1/billing_runs/{id}', scope: 'invoices:read', entry: 'functions/billing-runs/retrieve.ts' },
  { operation: 'listBillingRuns', resource: 'billing_run', action: 'list', method: 'GET', path: '/api/v1/billing_runs', scope: 'invoices:read', entry: 'functions/billing-runs/list.ts' },
  { operation: 'listBillingRunResults', resource: 'billing_run_result', action: 'list', method: 'GET', path: '/api/v1/billing_runs/{id}/results', scope: 'invoices:read', entry: 'functions/billing-runs/results.ts' },
  // the events feed (docs/events.md): made by the stream consumer, read here
  { operation: 'listEvents', resource: 'event', action: 'list', method: 'GET', path: '/api/v1/events', scope: 'events:read', entry: 'functions/events/list.ts' },
  { operation: 'retrieveEvent', resource: 'event', action: 'retrieve', method: 'GET', path: '/api/v1/events/{id}', scope: 'events:read', entry: 'functions/events/retrieve.ts' },
  // webhook endpoints (docs/events.md): the secret is answered by create alone
  { operation: 'listWebhookEndpoints', resource: 'webhook_endpoint', action: 'list', method: 'GET', path: '/api/v1/webhook_endpoints', scope: 'webhook_endpoints:read', entry: 'functions/webhook-endpoints/list.ts' },
  { operation: 'retrieveWebhookEndpoint', resource: 'webhook_endpoint', action: 'retrieve', method: 'GET', path: '/api/v1/webhook_endpoints/{id}', scope: 'webhook_endpoints:read', entry: 'functions/webhook-endpoints/retrieve.ts' },
  { operation: 'createWebhookEndpoint', resource: 'webhook_endpoint', action: 'create', method: 'POST', path: '/api/v1/webhook_endpoints', scope: 'webhook_endpoints:write', entry: 'functions/webhook-endpoints/create.ts' },
  { operation: 'updateWebhookEndpoint', resource: 'webhook_endpoint', action: 'update', method: 'PATCH', path: '/api/v1/webhook_endpoints/{id}', scope: 'webhook_endpoints:write', entry: 'functions/webhook-endpoints/update.ts' },
  { operation: 'deleteWebhookEndpoint', resource: 'webhook_endpoint', action: 'delete', method: 'DELETE', path: '/api/v1/webhook_endpoints/{id}', scope: 'webhook_endpoints:write', entry: 'functions/webhook-endpoints/delete.ts' },
  // Public: integrators fetch the API description before they have a token.
  { operation: 'getOpenApiDocument', resource: null, action: 'describe', method: 'GET', path: '/api/v1/openapi.json', scope: null, entry: 'functions/openapi.ts' },
] as const satisfies readonly RouteDeclaration[];

export type Route = (typeof ROUTES)[number];
export type Operation = Route['operation'];
export type ProtectedRoute = Extract<Route, { scope: Scope }>;
/** The routes of registry resources (the feed's and the public one are not). */
export type RegistryRoute = Extract<Route, { resource: ResourceKind }>;
export const isRegistryRoute = (route: Route): route is RegistryRoute =>
  route.resource !== null && route.resource !== 'event' && route.resource !== 'time_summary' && route.resource !== 'billing_run_result';

/** Every scope, in route order (each resource has a read and a write scope; the feed a read scope). */
export const SCOPES = /* @__PURE__ */ Array.from(/* @__PURE__ */ new Set(/* @__PURE__ */ ROUTES.flatMap((r) => (r.scope === null ? [] : [r.scope])))) as Scope[];

/** What a route's function may do to the table (least privilege in the CDK stack). */
export const accessOf = (route: Route): RouteAccess => (route.scope === null ? 'none' : route.method === 'GET' ? 'read' : 'write');

/** Lists sign cursors; no other function gets the key. */
export const signsCursors = (route: Route) => route.action === 'list';

/** The routes that need a token (all but the public ones). */
export const PROTECTED_ROUTES = /* @__PURE__ */ ROUTES.filter((r): r is ProtectedRoute => r.scope !== null);

export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/** An operation's route, typed by its name. */
export type RouteOf<O extends Operation> = Extract<Route, { operation: O }>;
/** The operations that need a token: every handler frame's (shared/http/). */
export type ProtectedOperation = ProtectedRoute['operation'];
/** The operations whose action is `A`: each kind of handler has its frame, typed by them. */
export type OperationWithAction<A extends Action> = { [O in Operation]: RouteOf<O>['action'] extends A ? O : never }[Operation];

/**
 * The scope an action over a collection needs: the rule ActionRoute states for every route, as a
 * value, for the domain's own question of a collection (may this caller list it: entity.ts). A
 * handler checks its route's `scope`; the table test checks that this gives each route's.
 */
export const scopeFor = (collection: string, action: Action): string => `${collection}:${action === 'list' || action === 'retrieve' || action === 'document' ? 'read' : 'write'}`;

export function routeByOperation<O extends Operation>(operation: O): Extract<Route, { operation: O }> {
  const found = ROUTES.find((r) => r.operation === operation);
  if (!found) throw new Error(`No route for operation ${operation}`);
  return found as Extract<Route, { operation: O }>;
}

/** The execute-api resource pattern of a route (`GET/api/v1/clients/*`), used in authorizer policies. */
export function policyResource(r: Route): string {
  return `${r.method}${r.path.replace(/\{[^}]+\}/g, '*')}`;
}
