/**
 * Every resource with its field schemas, by kind: for what documents or checks the whole API
 * (the OpenAPI document, the response schemas, the tests). A function imports only the schema
 * module of its own resource, and only when it parses input.
 */
import { billingRunSchemas, businessProfileSchemas, clientSchemas, invoiceSchemas, paymentSchemas, projectSchemas, timeEntrySchemas, webhookEndpointSchemas, resourceOf, type ResourceKind } from './resources.ts';
import { responseSchema, type AnyResourceSchemas, type ObjectOfSchemas } from './define.ts';

export const SCHEMAS = {
  client: clientSchemas,
  project: projectSchemas,
  time_entry: timeEntrySchemas,
  invoice: invoiceSchemas,
  payment: paymentSchemas,
  business_profile: businessProfileSchemas,
  billing_run: billingRunSchemas,
  webhook_endpoint: webhookEndpointSchemas,
} as const satisfies Record<ResourceKind, AnyResourceSchemas>;

export type SchemasByKind = typeof SCHEMAS;

/** The object each kind's operations answer. */
export type ObjectsByKind = { [K in ResourceKind]: ObjectOfSchemas<K, SchemasByKind[K]['entries']> };

export const SCHEMA_LIST: readonly AnyResourceSchemas[] = Object.values(SCHEMAS);

/** The response schema of a resource (its references answer with the referenced id pattern). */
export const objectSchema = (resource: AnyResourceSchemas) => responseSchema(resource, (kind) => resourceOf(kind).idPrefix);
