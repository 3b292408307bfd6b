/**
 * The objects the API returns, as schemas: they document the responses in the OpenAPI document,
 * and the contract tests validate real responses against them. Each resource's own schema is
 * derived from its declaration (shared/model/resources.ts).
 */
import * as v from 'valibot';
import { errorTypes, type ErrorType } from '../core/errors.ts';
import { RESOURCES, RESOURCE_LIST } from '../model/resources.ts';
import { SCHEMAS, SCHEMA_LIST, objectSchema } from '../model/schemas.ts';
import { idOf, timestamp } from '../model/define.ts';
import { EVENT_FEED, EVENT_OBJECTS, EVENT_TYPES } from '../model/event-types.ts';
import { BILLING_RUN_OUTCOMES } from '../model/billing-run-fields.ts';
import { BILLING_RUN_RESULTS } from './billing-run-result-schemas.ts';

export const listOf = <T extends v.GenericSchema>(item: T) =>
  v.strictObject({
    object: v.literal('list'),
    data: v.array(item),
    has_more: v.boolean(),
    next_cursor: v.nullable(v.string()),
  });

/** The kinds a DELETE removes: every resource but a singleton (the business profile). */
const KINDS = RESOURCE_LIST.filter((r) => !r.singleton).map((r) => r.kind) as [string, ...string[]];

export const DeleteResult = v.strictObject({
  object: v.picklist(KINDS),
  id: v.string(),
  deleted: v.literal(true),
});

/** An event as the feed answers it and a delivery posts it; `data.object` is one of the resources that make events. */
export const EventObject = v.strictObject({
  object: v.literal(EVENT_FEED.kind),
  id: idOf(EVENT_FEED.idPrefix),
  type: v.picklist(EVENT_TYPES),
  created_at: timestamp(),
  workspace_id: v.string(),
  request_id: v.nullable(v.string()),
  data: v.strictObject({
    object: v.union(EVENT_OBJECTS.map((kind) => objectSchema(SCHEMAS[kind]))),
    previous_attributes: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.metadata({ description: 'On every type but *.created and *.deleted: the old value of every field that changed' }))),
  }),
});
export const EventList = listOf(EventObject);

/** The object name of a time summary's rows. */
export const TIME_SUMMARY = 'time_summary';

/** A row of a time summary (contract, "Time summaries"); `project_id` with `group_by=project`, `period_start` with a period. */
export const TimeSummaryObject = v.strictObject({
  object: v.literal(TIME_SUMMARY),
  client_id: idOf(RESOURCES.client.idPrefix),
  project_id: v.optional(v.pipe(v.nullable(idOf(RESOURCES.project.idPrefix)), v.metadata({ description: 'With group_by=project: the project, or null for time logged against the client alone' }))),
  period_start: v.optional(
    v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.metadata({ format: 'date', description: 'With a period: its first day inside the range, in the summary\'s time zone' })),
  ),
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/), v.metadata({ description: "The client's currency (ISO 4217)" })),
  minutes: v.pipe(v.number(), v.integer(), v.minValue(1)),
  billable_minutes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  billable_amount: v.pipe(
    v.string(),
    v.regex(/^\d+(\.\d+)?$/),
    v.metadata({ description: "The billable minutes' value as a decimal string in the currency's minor unit (USD \"1234.50\", JPY \"1235\", KWD \"12.345\"): the exact sum, rounded once, half to even" }),
  ),
  unpriced_billable_minutes: v.pipe(v.number(), v.integer(), v.minValue(0), v.metadata({ description: 'Billable minutes of entries without a billable_rate: not in billable_amount' })),
});

const ERROR_TYPE_VALUES = errorTypes() as [ErrorType, ...ErrorType[]];

/** A row of a billing run's results (contract, "Billing runs"): one client's outcome. */
export const BillingRunResultObject = v.strictObject({
  object: v.literal(BILLING_RUN_RESULTS.kind),
  client_id: idOf(RESOURCES.client.idPrefix),
  outcome: v.picklist(BILLING_RUN_OUTCOMES),
  invoice_id: v.pipe(v.nullable(idOf(RESOURCES.invoice.idPrefix)), v.metadata({ description: 'The draft the run made (null unless `invoiced`)' })),
  error: v.pipe(
    v.nullable(v.strictObject({ type: v.picklist(ERROR_TYPE_VALUES), message: v.string() })),
    v.metadata({ description: "What `POST /invoices` would have answered for the client (null unless `failed`): `unpriced_time`, say, or `service_unavailable` when its work could not be done" }),
  ),
  workspace_id: v.string(),
});

export const ErrorBody = v.strictObject({
  error: v.strictObject({
    type: v.picklist(ERROR_TYPE_VALUES),
    message: v.string(),
    param: v.optional(v.string()),
    errors: v.optional(v.array(v.strictObject({ param: v.string(), message: v.string() }))),
    request_id: v.pipe(v.nullable(v.string()), v.metadata({ description: "null on the web application firewall's refusals, which reach no function" })),
  }),
});

/** Every response schema by its name in the OpenAPI document: `Client`, `ClientList`, ... */
export function responseSchemas(): Record<string, v.GenericSchema> {
  const out: Record<string, v.GenericSchema> = {};
  for (const resource of SCHEMA_LIST) {
    const object = objectSchema(resource);
    out[objectSchemaName(resource.kind)] = object;
    // A singleton (the business profile) has no list.
    if (!resource.singleton) out[listSchemaName(resource.kind)] = listOf(object);
  }
  out[objectSchemaName(TIME_SUMMARY)] = TimeSummaryObject;
  out[listSchemaName(TIME_SUMMARY)] = listOf(TimeSummaryObject);
  out[objectSchemaName(BILLING_RUN_RESULTS.kind)] = BillingRunResultObject;
  out[listSchemaName(BILLING_RUN_RESULTS.kind)] = listOf(BillingRunResultObject);
  return { ...out, [objectSchemaName(EVENT_FEED.kind)]: EventObject, [listSchemaName(EVENT_FEED.kind)]: EventList, DeleteResult, [ERROR_SCHEMA]: ErrorBody };
}

/** `time_entry` -> `TimeEntry` */
export const schemaName = (kind: string) => kind.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/**
 * The schema of an object: `Client`. Generated clients make a type of each schema name, so none
 * may be a JavaScript global it would shadow: the event is `EventObject` (`Event` is a global),
 * the error body `ErrorBody` (`Error` is one).
 */
export const objectSchemaName = (kind: string) => (kind === EVENT_FEED.kind ? 'EventObject' : schemaName(kind));
/** The schema of a list of objects of `kind`: `ClientList`, `EventList`. */
export const listSchemaName = (kind: string) => `${schemaName(kind)}List`;
export const ERROR_SCHEMA = 'ErrorBody';
