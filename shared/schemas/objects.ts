/**
 * The objects the API returns, as schemas: they document the responses in the OpenAPI document,
 * and the contract tests validate real responses against them.
 */
import * as v from 'valibot';
import { ERROR_TYPES, type ErrorType } from '../errors.ts';
import { BILLING_TYPES, CLIENT_STATUSES, INTERVAL_UNITS, LANGUAGES, PROJECT_STATUSES } from './resources.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { WEBHOOK_ENDPOINT_STATUSES } from './events.ts';

const timestamp = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), v.metadata({ format: 'date-time' }));
const id = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}[0-9A-HJKMNP-TV-Z]{26}$`)));
const nullableString = v.nullable(v.string());
const nullableMoney = v.nullable(v.pipe(v.number(), v.minValue(0)));

export const ClientObject = v.strictObject({
  object: v.literal('client'),
  id: id('cli_'),
  company_name: v.string(),
  company_email: v.pipe(v.string(), v.email()),
  company_address: nullableString,
  website: nullableString,
  status: v.picklist(CLIENT_STATUSES),
  language: v.picklist(LANGUAGES),
  business_number: nullableString,
  tps_number: nullableString,
  tvq_number: nullableString,
  relationship_start_date: timestamp,
  workspace_id: v.string(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const ProjectObject = v.strictObject({
  object: v.literal('project'),
  id: id('prj_'),
  name: v.string(),
  description: nullableString,
  status: v.picklist(PROJECT_STATUSES),
  billing_type: v.picklist(BILLING_TYPES),
  hourly_rate: nullableMoney,
  fixed_price: nullableMoney,
  amount: nullableMoney,
  interval_count: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
  interval_unit: v.nullable(v.picklist(INTERVAL_UNITS)),
  client_id: id('cli_'),
  workspace_id: v.string(),
  start_date: timestamp,
  end_date: v.nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
});

export const TimeEntryObject = v.strictObject({
  object: v.literal('time_entry'),
  id: id('te_'),
  project_id: v.nullable(id('prj_')),
  client_id: id('cli_'),
  started_at: timestamp,
  duration_minutes: v.pipe(v.number(), v.integer(), v.minValue(1)),
  description: nullableString,
  workspace_id: v.string(),
  created_at: timestamp,
  updated_at: timestamp,
});

const listOf = <T extends v.GenericSchema>(item: T) =>
  v.strictObject({
    object: v.literal('list'),
    data: v.array(item),
    has_more: v.boolean(),
    next_cursor: v.nullable(v.string()),
  });

export const ClientList = listOf(ClientObject);
export const ProjectList = listOf(ProjectObject);
export const TimeEntryList = listOf(TimeEntryObject);

export const DeleteResult = v.strictObject({
  object: v.picklist(['client', 'project', 'time_entry', 'webhook_endpoint']),
  id: v.string(),
  deleted: v.literal(true),
});

export const EventObject = v.strictObject({
  object: v.literal('event'),
  id: id('evt_'),
  type: v.picklist(EVENT_TYPES),
  created_at: timestamp,
  workspace_id: v.string(),
  request_id: v.nullable(v.string()),
  data: v.strictObject({
    object: v.union([ClientObject, ProjectObject, TimeEntryObject]),
    previous_attributes: v.optional(v.record(v.string(), v.unknown())),
  }),
});
export const EventList = listOf(EventObject);

const webhookEndpointFields = {
  object: v.literal('webhook_endpoint'),
  id: id('we_'),
  url: v.string(),
  enabled_events: v.array(v.picklist(['*', ...EVENT_TYPES])),
  description: nullableString,
  status: v.picklist(WEBHOOK_ENDPOINT_STATUSES),
  workspace_id: v.string(),
  created_at: timestamp,
  updated_at: timestamp,
};
export const WebhookEndpointObject = v.strictObject(webhookEndpointFields);
/** The create response alone holds the secret. */
export const WebhookEndpointCreated = v.strictObject({ ...webhookEndpointFields, secret: v.pipe(v.string(), v.regex(/^whsec_/)) });
export const WebhookEndpointList = listOf(WebhookEndpointObject);

const ERROR_TYPE_VALUES = Object.keys(ERROR_TYPES) as [ErrorType, ...ErrorType[]];

export const ErrorBody = v.strictObject({
  error: v.strictObject({
    type: v.picklist(ERROR_TYPE_VALUES),
    message: v.string(),
    param: v.optional(v.string()),
    errors: v.optional(v.array(v.strictObject({ param: v.string(), message: v.string() }))),
    request_id: v.string(),
  }),
});
