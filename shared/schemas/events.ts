/** Request schemas of the events feed and of webhook endpoints (events.md). */
import * as v from 'valibot';
import { EVENT_TYPES } from '../events/types.ts';
import { MAX_URL_LENGTH } from '../events/ssrf.ts';
import { LIMITS, enumOf, optionalNullable, text } from './fields.ts';
import { cursor, pageSize } from './resources.ts';

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
/** What a workspace may register: enough for several integrations, bounded fan-out per event. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

const eventId = (field: string) =>
  v.pipe(v.string(`${field} must be a string`), v.regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, `${field} must be an event id (evt_…)`));

export const ListEventsQuery = v.strictObject({
  limit: pageSize,
  cursor,
  type: v.optional(enumOf('type', EVENT_TYPES)),
  object_id: v.optional(
    v.pipe(v.string(), v.regex(/^(cli|prj|te)_[0-9A-HJKMNP-TV-Z]{26}$/, 'object_id must be the id of a client, project or time entry')),
  ),
  after: v.optional(eventId('after')),
});
export type ListEventsInput = v.InferOutput<typeof ListEventsQuery>;

export const ListWebhookEndpointsQuery = v.strictObject({ limit: pageSize, cursor });

const webhookUrl = v.pipe(
  v.string('url must be a string'),
  v.minLength(1, 'url must not be empty'),
  v.maxLength(MAX_URL_LENGTH, `url must be at most ${MAX_URL_LENGTH} characters`),
);

const enabledEvents = v.pipe(
  v.array(v.picklist(['*', ...EVENT_TYPES], `enabled_events may hold only ${EVENT_TYPES.join(', ')}, or "*" alone`), 'enabled_events must be an array of event types'),
  v.minLength(1, 'enabled_events must name at least one event type, or "*"'),
  v.maxLength(EVENT_TYPES.length, `enabled_events may hold at most ${EVENT_TYPES.length} types`),
  v.check((types) => !types.includes('*') || types.length === 1, 'enabled_events must be ["*"] alone or a list of event types'),
  v.check((types) => new Set(types).size === types.length, 'enabled_events must not repeat a type'),
);

const description = optionalNullable(text('description', LIMITS.nameLength));

export const CreateWebhookEndpointBody = v.strictObject({ url: webhookUrl, enabled_events: enabledEvents, description });
export type CreateWebhookEndpointInput = v.InferOutput<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = v.strictObject({
  url: v.optional(webhookUrl),
  enabled_events: v.optional(enabledEvents),
  description,
  status: v.optional(enumOf('status', WEBHOOK_ENDPOINT_STATUSES)),
});
export type UpdateWebhookEndpointInput = v.InferOutput<typeof UpdateWebhookEndpointBody>;
