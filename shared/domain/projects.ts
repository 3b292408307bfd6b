/** Projects: units of work of a client, with their billing configuration. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { conflict, invalidParam, notFound, preconditionFailed } from '../errors.ts';
import { isWellFormedId, newId } from '../ids.ts';
import { keys, listSources } from '../data/keys.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { conditionalUpdate } from '../data/update.ts';
import { transactWrite, versionCondition } from '../data/writes.ts';
import { deletionRecordPut } from '../events/deletions.ts';
import type { CreateProjectInput, ListProjectsQuery, UpdateProjectInput } from '../schemas/resources.ts';
import { matchesVersion, versionOf, type CallerContext, type IfMatch, type Versioned } from './context.ts';
import type { Deleted } from './clients.ts';
import { foldForSearch, listPage, searchFilter, type ListEnvelope } from './paging.ts';

export interface Project {
  object: 'project';
  id: string;
  name: string;
  description: string | null;
  status: string;
  billing_type: string;
  hourly_rate: number | null;
  fixed_price: number | null;
  amount: number | null;
  interval_count: number | null;
  interval_unit: string | null;
  client_id: string;
  workspace_id: string;
  start_date: string;
  end_date: string | null;
  created_at: string;
  updated_at: string;
}

const nullable = <T>(value: unknown) => (value ?? null) as T | null;

export function toProject(item: Record<string, unknown>): Project {
  return {
    object: 'project',
    id: item.id as string,
    name: item.name as string,
    description: nullable<string>(item.description),
    status: item.status as string,
    billing_type: item.billing_type as string,
    hourly_rate: nullable<number>(item.hourly_rate),
    fixed_price: nullable<number>(item.fixed_price),
    amount: nullable<number>(item.amount),
    interval_count: nullable<number>(item.interval_count),
    interval_unit: nullable<string>(item.interval_unit),
    client_id: item.client_id as string,
    workspace_id: item.workspace_id as string,
    start_date: item.start_date as string,
    end_date: nullable<string>(item.end_date),
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

const END_BEFORE_START = 'end_date must not be before start_date';
/** Order rules compare instants, never the text of timestamps. */
const isBefore = (a: string, b: string) => Date.parse(a) < Date.parse(b);
const unknownClient = () => invalidParam('client_id', 'client_id does not name a client in this workspace');

/**
 * Creates the project and counts it on its client in one transaction whose condition is that
 * the client exists: a client deleted concurrently can never end up with an orphan project.
 */
export async function createProject(ctx: CallerContext, input: CreateProjectInput, now = new Date()): Promise<Versioned<Project>> {
  if (!isWellFormedId('client', input.client_id)) throw unknownClient();
  const at = now.toISOString();
  const startDate = input.start_date ?? at;
  if (input.end_date != null && isBefore(input.end_date, startDate)) throw invalidParam('end_date', END_BEFORE_START);
  const id = newId('project', now);
  const item = {
    ...keys.item(ctx.workspaceId, 'PROJECT', id),
    ...keys.projectIndexes(ctx.workspaceId, id, input.client_id, input.status),
    id,
    name: input.name,
    description: input.description ?? null,
    status: input.status,
    billing_type: input.billing_type,
    hourly_rate: input.hourly_rate ?? null,
    fixed_price: input.fixed_price ?? null,
    amount: input.amount ?? null,
    interval_count: input.interval_count ?? null,
    interval_unit: input.interval_unit ?? null,
    client_id: input.client_id,
    workspace_id: ctx.workspaceId,
    start_date: startDate,
    end_date: input.end_date ?? null,
    created_at: at,
    updated_at: at,
    search_text: foldForSearch(input.name),
    time_entry_count: 0,
    version: 1,
    request_id: ctx.requestId,
  };
  const cancelled = await transactWrite({
    TransactItems: [
      { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
      {
        Update: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'CLIENT', input.client_id),
          UpdateExpression: 'ADD project_count :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ],
  });
  if (cancelled) {
    if (cancelled.codes[1] === 'ConditionalCheckFailed') throw unknownClient();
    throw new Error(`Project create cancelled: ${cancelled.codes.join(',')}`);
  }
  return { resource: toProject(item), version: item.version };
}

async function readProjectItem(ctx: CallerContext, id: string): Promise<Record<string, unknown>> {
  if (!isWellFormedId('project', id)) throw notFound('project', id);
  const out = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.item(ctx.workspaceId, 'PROJECT', id), ConsistentRead: true }),
  );
  if (!out.Item) throw notFound('project', id);
  return out.Item;
}

export async function retrieveProject(ctx: CallerContext, id: string): Promise<Versioned<Project>> {
  const item = await readProjectItem(ctx, id);
  return { resource: toProject(item), version: versionOf(item) };
}

/** The project's client: an immutable attribute, read to address the client in a transaction. */
export async function projectClientId(ctx: CallerContext, id: string): Promise<string> {
  return (await readProjectItem(ctx, id)).client_id as string;
}

export function listProjects(ctx: CallerContext, query: v.InferOutput<typeof ListProjectsQuery>): Promise<ListEnvelope<Project>> {
  return listPage({
    binding: {
      list: 'projects',
      workspaceId: ctx.workspaceId,
      filters: { status: query.status, client_id: query.client_id, search: query.search },
    },
    source: listSources.projects(ctx.workspaceId, {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.client_id !== undefined ? { clientId: query.client_id } : {}),
    }),
    limit: query.limit,
    cursor: query.cursor,
    filter: searchFilter(query.search),
    toResource: toProject,
  });
}

export async function updateProject(
  ctx: CallerContext,
  id: string,
  patch: UpdateProjectInput,
  expectedVersion?: IfMatch,
  now = new Date(),
): Promise<Versioned<Project>> {
  if (!isWellFormedId('project', id)) throw notFound('project', id);
  const { ...fields } = patch as Record<string, unknown>;
  delete fields.client_id;
  const changed = Object.keys(fields).length > 0;
  fields.request_id = ctx.requestId;
  if (!changed) {
    const current = await retrieveProject(ctx, id);
    if (!matchesVersion(expectedVersion, current.version)) throw preconditionFailed('project', id);
    return current;
  }
  const start = patch.start_date;
  const end = patch.end_date;
  if (start !== undefined && end != null && isBefore(end, start)) throw invalidParam('end_date', END_BEFORE_START);

  // Only one side of the date range given: the other is in the item, so check it in the write.
  // Stored timestamps are all UTC, milliseconds, years 1900..9999: as strings they sort as instants.
  let condition: { expression: string; values?: Record<string, unknown> } | undefined;
  if (start === undefined && end != null) {
    condition = { expression: '#start_date <= :end_date' };
  } else if (start !== undefined && end === undefined) {
    condition = { expression: '(attribute_type(#end_date, :null_type) OR #end_date >= :start_date)', values: { ':null_type': 'NULL' } };
  }
  const names: Record<string, string> = condition ? { '#start_date': 'start_date', '#end_date': 'end_date' } : {};

  if (patch.name !== undefined) fields.search_text = foldForSearch(patch.name);
  if (patch.status !== undefined) Object.assign(fields, keys.projectStatusIndexes(ctx.workspaceId, id, patch.status));
  const outcome = await conditionalUpdate({
    key: keys.item(ctx.workspaceId, 'PROJECT', id),
    fields,
    expectedVersion,
    now,
    ...(condition ? { condition: { expression: condition.expression, names, ...(condition.values ? { values: condition.values } : {}) } } : {}),
  });
  if (outcome.kind === 'missing') throw notFound('project', id);
  if (outcome.kind === 'precondition_failed') throw preconditionFailed('project', id);
  if (outcome.kind === 'condition_failed') {
    // Name the field the caller sent: the stored one is what it contradicts.
    throw start !== undefined ? invalidParam('start_date', 'start_date must not be after end_date') : invalidParam('end_date', END_BEFORE_START);
  }
  return { resource: toProject(outcome.item), version: versionOf(outcome.item) };
}

/**
 * Deletes the project and uncounts it on its client in one transaction; refused (409) while
 * time entries are logged against it.
 */
export async function deleteProject(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  const clientId = await projectClientId(ctx, id);
  const ifMatch = versionCondition(expectedVersion, 'version');
  const cancelled = await transactWrite({
    TransactItems: [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'PROJECT', id),
          ConditionExpression: `attribute_exists(PK) AND time_entry_count = :zero${ifMatch ? ` AND ${ifMatch.expression}` : ''}`,
          ExpressionAttributeValues: { ':zero': 0, ...ifMatch?.values },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'CLIENT', clientId),
          UpdateExpression: 'ADD project_count :minus_one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':minus_one': -1 },
        },
      },
      deletionRecordPut(ctx.workspaceId, 'PROJECT', id, ctx.requestId),
    ],
  });
  if (cancelled) {
    const old = cancelled.items[0];
    if (cancelled.codes[0] === 'ConditionalCheckFailed' && old && !matchesVersion(expectedVersion, versionOf(old))) {
      throw preconditionFailed('project', id);
    }
    if (cancelled.codes[0] === 'ConditionalCheckFailed' && old) {
      const entries = Number(old.time_entry_count);
      throw conflict(
        `Project ${id} still has ${entries} time entr${entries === 1 ? 'y' : 'ies'} logged against it and cannot be deleted. Delete the time entries first, or close the project instead by setting its status to COMPLETED or CANCELLED`,
        { blocking: { time_entries: entries } },
      );
    }
    throw notFound('project', id);
  }
  return { object: 'project', id, deleted: true };
}
