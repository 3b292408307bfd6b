/**
 * Events and webhooks: the event types and the event object, as events.md defines them.
 * One list of types; the feed, the endpoint schemas, the fan-out and the OpenAPI document read it.
 */

/**
 * The feed's names, as a registry resource has them (its routes, its OpenAPI schemas and tag, its
 * 404 message): events are read-only and made by the stream consumer, so they are not one.
 */
export const EVENT_FEED = { kind: 'event', idPrefix: 'evt_', collection: 'events', tag: 'Events' } as const;

/**
 * The resources whose changes make events, by their API object name (each declared in the
 * registry).
 */
export const EVENT_OBJECTS = ['client', 'project', 'time_entry', 'invoice', 'payment', 'business_profile', 'billing_run'] as const;
export type EventObject = (typeof EVENT_OBJECTS)[number];

/** Their kinds in the key schema (sort key `<KIND>#<id>`): the stream records worth reading. */
export const EVENT_SOURCE_KINDS = ['CLIENT', 'PROJECT', 'TIME_ENTRY', 'INVOICE', 'PAYMENT', 'BUSINESS_PROFILE', 'BILLING_RUN'] as const;

/** What a change did: every resource's created, updated and deleted; an invoice's transitions (decision 0023). */
export const EVENT_ACTIONS = ['created', 'updated', 'deleted', 'finalized', 'paid', 'voided', 'completed'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/**
 * Every type an event can have: each object's created, updated and deleted, and an invoice's
 * transitions. New types go at the end: a type's index is its slot in the sequence counter and in
 * each type-view copy's `vec` (store.ts), so a stored slot keeps naming the same type.
 */
export const EVENT_TYPES = [
  'client.created',
  'client.updated',
  'client.deleted',
  'project.created',
  'project.updated',
  'project.deleted',
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.finalized',
  'invoice.paid',
  'invoice.voided',
  // A payment is never changed: recorded, or deleted.
  'payment.created',
  'payment.deleted',
  // The business profile is only ever changed (its first change writes its item).
  'business_profile.updated',
  // A billing run is made, then moved on by the service alone: only its start and its end are events.
  'billing_run.created',
  'billing_run.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** The action of a type: `invoice.paid` -> `paid`. */
export const actionOf = (type: string): EventAction => type.slice(type.lastIndexOf('.') + 1) as EventAction;
/** Every event but a created and a deleted carries `previous_attributes`: the old value of each field that changed. */
export const hasPreviousAttributes = (type: string): boolean => !['created', 'deleted'].includes(actionOf(type));

export interface ApiObject {
  object: string;
  id: string;
  [field: string]: unknown;
}

export interface Event {
  object: 'event';
  id: string;
  type: EventType;
  created_at: string;
  workspace_id: string;
  request_id: string | null;
  data: { object: ApiObject; previous_attributes?: Record<string, unknown> };
}

/** Events are kept this long (TTL), then the feed forgets them. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000;
