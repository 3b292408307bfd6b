/**
 * The resource registry: one declaration per resource, as plain data: its identity (kind, id
 * prefix, collection, tag), its fields by name and order, and its relations (references,
 * filters, search, indexes, read-only and immutable fields, guards). Its keys, indexes, scopes,
 * guards, item mapping and tags are derived from these. The field schemas (valibot) of each
 * resource are in its own module (client.ts, project.ts, time-entry.ts, webhook-endpoint.ts),
 * imported only where input is parsed; docs/extending.md walks through adding a resource.
 */
import { declareResource, type AnyResource, type ObjectOf } from './declare.ts';

export const client = declareResource({
  kind: 'client',
  idPrefix: 'cli_',
  collection: 'clients',
  tag: 'Clients',
  fields: ['company_name', 'company_email', 'company_address', 'website', 'status', 'language', 'business_number', 'tps_number', 'tvq_number', 'relationship_start_date'],
  readOnly: { relationship_start_date: 'created_at' },
  filters: ['status'],
  search: 'company_name',
  indexes: { GSI1: { partition: ['status'] } },
  deleteHint: 'archive the client instead by setting its status to SLEEPING or LOST',
});

export const project = declareResource({
  kind: 'project',
  idPrefix: 'prj_',
  collection: 'projects',
  tag: 'Projects',
  fields: ['name', 'description', 'status', 'billing_type', 'hourly_rate', 'fixed_price', 'amount', 'interval_count', 'interval_unit', 'client_id', 'start_date', 'end_date'],
  immutable: { client_id: 'a project stays with the client it was created for' },
  references: { client_id: 'client' },
  filters: ['status', 'client_id'],
  search: 'name',
  indexes: {
    GSI1: { partition: ['status'] },
    GSI2: { partition: ['client_id'] },
    // The status leads the sort key: a status change rewrites it without knowing the client.
    GSI3: { partition: ['client_id'], sortPrefix: 'status' },
  },
  deleteHint: 'close the project instead by setting its status to COMPLETED or CANCELLED',
});

export const timeEntry = declareResource({
  kind: 'time_entry',
  idPrefix: 'te_',
  collection: 'time_entries',
  tag: 'Time entries',
  fields: ['project_id', 'client_id', 'started_at', 'duration_minutes', 'description'],
  references: { client_id: 'client', project_id: 'project' },
  createRequiresOneOf: ['project_id', 'client_id'],
  filters: ['project_id', 'client_id'],
  indexes: { GSI2: { partition: ['project_id'] }, GSI3: { partition: ['client_id'] } },
});

/**
 * Where a workspace's events are posted (docs/events.md). Its own rules (the URL's SSRF check,
 * the secret made on create and shown once, at most MAX_WEBHOOK_ENDPOINTS per workspace) are
 * in domain/webhook-endpoints.ts.
 */
export const webhookEndpoint = declareResource({
  kind: 'webhook_endpoint',
  idPrefix: 'we_',
  collection: 'webhook_endpoints',
  tag: 'Webhook endpoints',
  fields: ['url', 'enabled_events', 'description', 'status'],
});

/** Every resource, by kind. */
export const RESOURCES = { client, project, time_entry: timeEntry, webhook_endpoint: webhookEndpoint } as const;

export type ResourceKind = keyof typeof RESOURCES;
export type Resource = (typeof RESOURCES)[ResourceKind];
export type Collection = Resource['collection'];
export type Client = ObjectOf<typeof client>;
export type Project = ObjectOf<typeof project>;
export type TimeEntry = ObjectOf<typeof timeEntry>;
export type WebhookEndpoint = ObjectOf<typeof webhookEndpoint>;

export const RESOURCE_LIST: readonly AnyResource[] = Object.values(RESOURCES) as AnyResource[];

export const resourceOf = (kind: string): AnyResource => {
  const found = (RESOURCES as Record<string, AnyResource>)[kind];
  if (!found) throw new Error(`Unknown resource ${kind}`);
  return found;
};

/**
 * The resources that reference `target` (their creation counts on it): a guarded resource
 * cannot be deleted while any of their counters is above zero.
 */
export function referrersOf(target: AnyResource): { resource: AnyResource; field: string; counter: string }[] {
  return RESOURCE_LIST.flatMap((resource) =>
    Object.entries(resource.references ?? {})
      .filter(([, kind]) => kind === target.kind)
      .map(([field]) => ({ resource, field, counter: counterOf(resource) })),
  );
}

/** The attribute that counts a referrer on the items it references: `time_entry_count`. */
export const counterOf = (referrer: AnyResource) => `${referrer.kind}_count`;
