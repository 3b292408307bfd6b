/** What the OpenAPI document says of each operation beyond the route table. */
import type * as v from 'valibot';
import {
  CreateClientBody,
  CreateProjectBody,
  ListClientsQuery,
  ListProjectsQuery,
  ListTimeEntriesQuery,
  LogTimeEntryBody,
  UpdateClientBody,
  UpdateProjectBody,
} from '../shared/schemas/resources.ts';
import { CreateWebhookEndpointBody, ListEventsQuery, ListWebhookEndpointsQuery, UpdateWebhookEndpointBody } from '../shared/schemas/events.ts';

export type ResponseSchemaName =
  | 'Client'
  | 'Project'
  | 'TimeEntry'
  | 'ClientList'
  | 'ProjectList'
  | 'TimeEntryList'
  | 'DeleteResult'
  | 'Event'
  | 'EventList'
  | 'WebhookEndpoint'
  | 'WebhookEndpointCreated'
  | 'WebhookEndpointList';

/** The single resources that carry an ETag. */
export const VERSIONED_SCHEMAS: readonly ResponseSchemaName[] = ['Client', 'Project', 'TimeEntry', 'WebhookEndpoint', 'WebhookEndpointCreated'];

export interface OperationDoc {
  summary: string;
  description?: string;
  tag: 'Clients' | 'Projects' | 'Time entries' | 'Events' | 'Webhook endpoints' | 'API description';
  body?: { name: string; schema: v.GenericSchema };
  query?: v.GenericSchema;
  success?: { status: 200 | 201; schema: ResponseSchemaName };
  /** Error statuses besides the ones every operation can answer (ANY_OPERATION, PROTECTED_OPERATION). */
  errors: number[];
}

/**
 * Statuses any operation can answer: a body over API Gateway's 10 MB (413), headers over the
 * local stack's limit (431), throttling (429), a bug (500), a dependency failure (503; the public
 * one too, through Lambda throttling).
 */
export const ANY_OPERATION = [413, 429, 431, 500, 503];
/** And any protected one: a refused query parameter or body (400), the token (401, 403). */
export const PROTECTED_OPERATION = [400, 401, 403];

const READ_ONE = [404];
const WRITE_BODY = [409, 415, 422];

export const OPERATION_DOCS: Record<string, OperationDoc> = {
  listClients: {
    summary: 'List clients',
    description: 'Newest first. `status` and `search` (case-insensitive substring of company_name) filter; pages are always full.',
    tag: 'Clients',
    query: ListClientsQuery,
    success: { status: 200, schema: 'ClientList' },
    errors: [],
  },
  retrieveClient: { summary: 'Retrieve a client', tag: 'Clients', success: { status: 200, schema: 'Client' }, errors: READ_ONE },
  createClient: {
    summary: 'Create a client',
    tag: 'Clients',
    body: { name: 'CreateClient', schema: CreateClientBody },
    success: { status: 201, schema: 'Client' },
    errors: WRITE_BODY,
  },
  updateClient: {
    summary: 'Update a client',
    description: 'Changes only the fields sent; null clears a nullable field. Setting status to SLEEPING or LOST archives the client.',
    tag: 'Clients',
    body: { name: 'UpdateClient', schema: UpdateClientBody },
    success: { status: 200, schema: 'Client' },
    errors: [...WRITE_BODY, 404, 412],
  },
  deleteClient: {
    summary: 'Delete a client',
    description: 'Refused with 409 while the client has projects or time entries.',
    tag: 'Clients',
    success: { status: 200, schema: 'DeleteResult' },
    errors: [404, 409, 412],
  },
  listProjects: {
    summary: 'List projects',
    description: 'Newest first. `status`, `client_id` and `search` (case-insensitive substring of name) filter; pages are always full.',
    tag: 'Projects',
    query: ListProjectsQuery,
    success: { status: 200, schema: 'ProjectList' },
    errors: [],
  },
  retrieveProject: { summary: 'Retrieve a project', tag: 'Projects', success: { status: 200, schema: 'Project' }, errors: READ_ONE },
  createProject: {
    summary: 'Create a project',
    description: '`client_id` must name a client of the caller\'s workspace (400 otherwise).',
    tag: 'Projects',
    body: { name: 'CreateProject', schema: CreateProjectBody },
    success: { status: 201, schema: 'Project' },
    errors: WRITE_BODY,
  },
  updateProject: {
    summary: 'Update a project',
    description: 'Changes only the fields sent; null clears a nullable field. `client_id` cannot be changed.',
    tag: 'Projects',
    body: { name: 'UpdateProject', schema: UpdateProjectBody },
    success: { status: 200, schema: 'Project' },
    errors: [...WRITE_BODY, 404, 412],
  },
  deleteProject: {
    summary: 'Delete a project',
    description: 'Refused with 409 while time entries are logged against the project.',
    tag: 'Projects',
    success: { status: 200, schema: 'DeleteResult' },
    errors: [404, 409, 412],
  },
  listTimeEntries: {
    summary: 'List time entries',
    description: 'Newest first (by creation). `project_id` and `client_id` filter.',
    tag: 'Time entries',
    query: ListTimeEntriesQuery,
    success: { status: 200, schema: 'TimeEntryList' },
    errors: [],
  },
  retrieveTimeEntry: { summary: 'Retrieve a time entry', tag: 'Time entries', success: { status: 200, schema: 'TimeEntry' }, errors: READ_ONE },
  logTimeEntry: {
    summary: 'Log a time entry',
    description: 'Against a project (its client is implied) or a client. Counts against the delete guards of both.',
    tag: 'Time entries',
    body: { name: 'LogTimeEntry', schema: LogTimeEntryBody },
    success: { status: 201, schema: 'TimeEntry' },
    errors: WRITE_BODY,
  },
  deleteTimeEntry: { summary: 'Delete a time entry', tag: 'Time entries', success: { status: 200, schema: 'DeleteResult' }, errors: [404, 412] },
  listEvents: {
    summary: 'List events',
    description:
      'Newest first, or with `after=<event id>` (sync mode) the events after that one, oldest first: follow next_cursor while has_more, then poll again with after= the last id. A reader in sync mode sees every event exactly once, each resource\'s in the order of its changes. `type` and `object_id` filter. Events are kept 30 days; after= an event no longer kept is 400 (param after): re-list and start again.',
    tag: 'Events',
    query: ListEventsQuery,
    success: { status: 200, schema: 'EventList' },
    errors: [],
  },
  retrieveEvent: { summary: 'Retrieve an event', tag: 'Events', success: { status: 200, schema: 'Event' }, errors: READ_ONE },
  listWebhookEndpoints: {
    summary: 'List webhook endpoints',
    description: 'Newest first. The secret is never listed.',
    tag: 'Webhook endpoints',
    query: ListWebhookEndpointsQuery,
    success: { status: 200, schema: 'WebhookEndpointList' },
    errors: [],
  },
  retrieveWebhookEndpoint: {
    summary: 'Retrieve a webhook endpoint',
    description: 'The secret is never shown again after create.',
    tag: 'Webhook endpoints',
    success: { status: 200, schema: 'WebhookEndpoint' },
    errors: READ_ONE,
  },
  createWebhookEndpoint: {
    summary: 'Create a webhook endpoint',
    description:
      'The response alone holds `secret` (`whsec_…`), which signs each delivery: keep it. `url` must be https:// to a public address (400 otherwise; the local stack also accepts http://127.0.0.1:<port>/ and http://localhost:<port>/). At most 16 per workspace (409).',
    tag: 'Webhook endpoints',
    body: { name: 'CreateWebhookEndpoint', schema: CreateWebhookEndpointBody },
    success: { status: 201, schema: 'WebhookEndpointCreated' },
    errors: WRITE_BODY,
  },
  updateWebhookEndpoint: {
    summary: 'Update a webhook endpoint',
    description: 'Changes `url`, `enabled_events`, `description` and `status` (`disabled` stops deliveries, including retries).',
    tag: 'Webhook endpoints',
    body: { name: 'UpdateWebhookEndpoint', schema: UpdateWebhookEndpointBody },
    success: { status: 200, schema: 'WebhookEndpoint' },
    errors: [...WRITE_BODY, 404, 412],
  },
  deleteWebhookEndpoint: {
    summary: 'Delete a webhook endpoint',
    description: 'Deliveries still queued for it are dropped.',
    tag: 'Webhook endpoints',
    success: { status: 200, schema: 'DeleteResult' },
    errors: [404, 412],
  },
  getOpenApiDocument: { summary: 'This API description (OpenAPI 3.1)', tag: 'API description', errors: [] },
};
