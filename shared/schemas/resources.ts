/**
 * Request schemas of every operation: validation, TypeScript types and (later) the OpenAPI
 * document all come from these.
 */
import * as v from 'valibot';
import { LIMITS, email, enumOf, money, optionalNullable, positiveInteger, reference, taxId, text, timestamp, webUrl } from './fields.ts';

export const CLIENT_STATUSES = ['LEAD', 'ACTIVE', 'SLEEPING', 'LOST'] as const;
export const LANGUAGES = ['ENGLISH', 'FRENCH'] as const;
export const PROJECT_STATUSES = ['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED'] as const;
export const BILLING_TYPES = ['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased'] as const;
export const INTERVAL_UNITS = ['Day', 'Week', 'Month', 'Year'] as const;

export type ClientStatus = (typeof CLIENT_STATUSES)[number];
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

// ---- clients

const clientOptionalFields = {
  company_address: optionalNullable(text('company_address', LIMITS.addressLength)),
  website: optionalNullable(webUrl('website')),
  business_number: optionalNullable(taxId('business_number')),
  tps_number: optionalNullable(taxId('tps_number')),
  tvq_number: optionalNullable(taxId('tvq_number')),
};

export const CreateClientBody = v.strictObject({
  company_name: text('company_name', LIMITS.nameLength),
  company_email: email('company_email'),
  status: v.optional(enumOf('status', CLIENT_STATUSES), 'LEAD'),
  language: v.optional(enumOf('language', LANGUAGES), 'ENGLISH'),
  ...clientOptionalFields,
});
export type CreateClientInput = v.InferOutput<typeof CreateClientBody>;

export const UpdateClientBody = v.strictObject({
  company_name: v.optional(text('company_name', LIMITS.nameLength)),
  company_email: v.optional(email('company_email')),
  status: v.optional(enumOf('status', CLIENT_STATUSES)),
  language: v.optional(enumOf('language', LANGUAGES)),
  ...clientOptionalFields,
});
export type UpdateClientInput = v.InferOutput<typeof UpdateClientBody>;

// ---- projects

const projectOptionalFields = {
  description: optionalNullable(text('description', LIMITS.descriptionLength)),
  hourly_rate: optionalNullable(money('hourly_rate')),
  fixed_price: optionalNullable(money('fixed_price')),
  amount: optionalNullable(money('amount')),
  interval_count: optionalNullable(positiveInteger('interval_count', LIMITS.intervalCount)),
  interval_unit: optionalNullable(enumOf('interval_unit', INTERVAL_UNITS)),
  end_date: optionalNullable(timestamp('end_date')),
};

export const CreateProjectBody = v.strictObject({
  name: text('name', LIMITS.nameLength),
  client_id: reference('client_id'),
  billing_type: enumOf('billing_type', BILLING_TYPES),
  status: v.optional(enumOf('status', PROJECT_STATUSES), 'ACTIVE'),
  start_date: v.optional(timestamp('start_date')),
  ...projectOptionalFields,
});
export type CreateProjectInput = v.InferOutput<typeof CreateProjectBody>;

export const UpdateProjectBody = v.strictObject({
  name: v.optional(text('name', LIMITS.nameLength)),
  client_id: v.optional(v.never('client_id cannot be changed: a project stays with the client it was created for')),
  billing_type: v.optional(enumOf('billing_type', BILLING_TYPES)),
  status: v.optional(enumOf('status', PROJECT_STATUSES)),
  start_date: v.optional(timestamp('start_date')),
  ...projectOptionalFields,
});
export type UpdateProjectInput = Omit<v.InferOutput<typeof UpdateProjectBody>, 'client_id'>;

// ---- time entries

export const LogTimeEntryBody = v.pipe(
  v.strictObject({
    project_id: optionalNullable(reference('project_id')),
    client_id: v.optional(reference('client_id')),
    started_at: timestamp('started_at'),
    duration_minutes: positiveInteger('duration_minutes', LIMITS.durationMinutes),
    description: optionalNullable(text('description', LIMITS.descriptionLength)),
  }),
  // For the OpenAPI document: project_id (a string) or client_id is required; the domain enforces it.
  v.metadata({ anyOf: [{ required: ['project_id'], properties: { project_id: { type: 'string' } } }, { required: ['client_id'] }] }),
);
export type LogTimeEntryInput = v.InferOutput<typeof LogTimeEntryBody>;

// ---- list queries (query string values arrive as strings)

export const pageSize = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{1,3}$/, `limit must be an integer from 1 to ${LIMITS.pageSizeMax}`),
    v.transform(Number),
    v.minValue(1, `limit must be an integer from 1 to ${LIMITS.pageSizeMax}`),
    v.maxValue(LIMITS.pageSizeMax, `limit must be an integer from 1 to ${LIMITS.pageSizeMax}`),
  ),
  String(LIMITS.pageSizeDefault),
);
export const cursor = v.optional(v.pipe(v.string(), v.minLength(1, 'cursor must not be empty'), v.maxLength(1024, 'cursor is not valid')));
const search = v.optional(text('search', LIMITS.searchLength));

export const ListClientsQuery = v.strictObject({
  limit: pageSize,
  cursor,
  status: v.optional(enumOf('status', CLIENT_STATUSES)),
  search,
});

export const ListProjectsQuery = v.strictObject({
  limit: pageSize,
  cursor,
  status: v.optional(enumOf('status', PROJECT_STATUSES)),
  client_id: v.optional(reference('client_id')),
  search,
});

export const ListTimeEntriesQuery = v.strictObject({
  limit: pageSize,
  cursor,
  project_id: v.optional(reference('project_id')),
  client_id: v.optional(reference('client_id')),
});
