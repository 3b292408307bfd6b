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

export type ResponseSchemaName = 'Client' | 'Project' | 'TimeEntry' | 'ClientList' | 'ProjectList' | 'TimeEntryList' | 'DeleteResult';

export interface OperationDoc {
  summary: string;
  description?: string;
  tag: 'Clients' | 'Projects' | 'Time entries' | 'API description';
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
  getOpenApiDocument: { summary: 'This API description (OpenAPI 3.1)', tag: 'API description', errors: [] },
};
