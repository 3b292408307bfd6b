/**
 * Events and webhooks: the event types and the event object, as events.md defines them.
 * One list of types; the feed, the endpoint schemas, the fan-out and the OpenAPI document read it.
 */

/**
 * The feed's names, as a registry resource has them (its routes, its OpenAPI schemas and tag, its
 * 404 message): events are read-only and made by the stream consumer, so they are not one.
 */
export const EVENT_FEED = { kind: 'event', idPrefix: 'evt_', collection: 'events', tag: 'Events' } as const;

/** The resources whose changes make events, by their API object name. */
export const EVENT_OBJECTS = ['client', 'project', 'time_entry'] as const;
export type EventObject = (typeof EVENT_OBJECTS)[number];

/** Their kinds in the key schema (sort key `<KIND>#<id>`): the stream records worth reading. */
export const EVENT_SOURCE_KINDS = ['CLIENT', 'PROJECT', 'TIME_ENTRY'] as const;

export const EVENT_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/** Every type an event can have: each object's created, updated and deleted. */
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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

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
