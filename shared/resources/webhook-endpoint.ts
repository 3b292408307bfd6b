/** The webhook endpoint's field schemas (its declaration is in registry.ts). */
import * as v from 'valibot';
import { LIMITS, enumOf, text, webhookUrl } from '../schemas/fields.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { defineFields } from './define.ts';
import { webhookEndpoint } from './registry.ts';

export const webhookEndpointSchemas = defineFields(webhookEndpoint, {
  url: webhookUrl('url'),
  enabled_events: v.pipe(
    v.array(
      v.picklist(['*', ...EVENT_TYPES], `enabled_events may hold only ${EVENT_TYPES.join(', ')}, or "*" alone`),
      'enabled_events must be an array of event types',
    ),
    v.minLength(1, 'enabled_events must name at least one event type, or "*"'),
    v.maxLength(EVENT_TYPES.length, `enabled_events may hold at most ${EVENT_TYPES.length} types`),
    v.check((types) => !types.includes('*') || types.length === 1, 'enabled_events must be ["*"] alone or a list of event types'),
    v.check((types) => new Set(types).size === types.length, 'enabled_events must not repeat a type'),
  ),
  description: v.nullable(text('description', LIMITS.nameLength)),
  status: v.optional(enumOf('status', ['enabled', 'disabled']), 'enabled'),
});
