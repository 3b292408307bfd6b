/**
 * Time entries: the minimal resource of the contract. Logging or deleting one adjusts the
 * counters of its project and client in the same transaction, which is what lets the delete
 * guards of projects and clients be plain conditional deletes.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { invalidParam, notFound, preconditionFailed } from '../errors.ts';
import { isWellFormedId, newId } from '../ids.ts';
import { keys, listSources } from '../data/keys.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { transactWrite, versionCondition } from '../data/writes.ts';
import { deletionRecordPut } from '../events/deletions.ts';
import type { ListTimeEntriesQuery, LogTimeEntryInput } from '../schemas/resources.ts';
import { matchesVersion, versionOf, type CallerContext, type IfMatch, type Versioned } from './context.ts';
import type { Deleted } from './clients.ts';
import { listPage, type ListEnvelope } from './paging.ts';

export interface TimeEntry {
  object: 'time_entry';
  id: string;
  project_id: string | null;
  client_id: string;
  started_at: string;
  duration_minutes: number;
  description: string | null;
  workspace_id: string;
  created_at: string;
  updated_at: string;
}

export function toTimeEntry(item: Record<string, unknown>): TimeEntry {
  return {
    object: 'time_entry',
    id: item.id as string,
    project_id: (item.project_id as string | null) ?? null,
    client_id: item.client_id as string,
    started_at: item.started_at as string,
    duration_minutes: item.duration_minutes as number,
    description: (item.description as string | null) ?? null,
    workspace_id: item.workspace_id as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

const unknownReference = (param: 'project_id' | 'client_id') =>
  invalidParam(param, `${param} does not name a ${param === 'project_id' ? 'project' : 'client'} in this workspace`);

async function readItem(ctx: CallerContext, kind: 'PROJECT' | 'TIME_ENTRY', id: string) {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.item(ctx.workspaceId, kind, id), ConsistentRead: true }));
  return out.Item;
}

const counterUpdate = (key: ReturnType<typeof keys.item>, delta: number, extraCondition = '', extraValues: Record<string, unknown> = {}) => ({
  Update: {
    TableName: tableName(),
    Key: key,
    UpdateExpression: 'ADD time_entry_count :delta',
    ConditionExpression: `attribute_exists(PK)${extraCondition}`,
    ExpressionAttributeValues: { ':delta': delta, ...extraValues },
  },
});

export async function logTimeEntry(ctx: CallerContext, input: LogTimeEntryInput, now = new Date()): Promise<Versioned<TimeEntry>> {
  const projectId = input.project_id ?? null;
  let clientId = input.client_id;
  if (projectId !== null) {
    const project = isWellFormedId('project', projectId) ? await readItem(ctx, 'PROJECT', projectId) : undefined;
    if (!project) throw unknownReference('project_id');
    if (clientId !== undefined && clientId !== project.client_id) {
      throw invalidParam('client_id', `client_id must be the client of project ${projectId} (${String(project.client_id)}), or be omitted`);
    }
    clientId = project.client_id as string;
  }
  if (clientId === undefined) {
    throw invalidParam('project_id', 'project_id or client_id is required: a time entry is logged against a project or a client');
  }
  if (!isWellFormedId('client', clientId)) throw unknownReference('client_id');

  const id = newId('time_entry', now);
  const at = now.toISOString();
  const item = {
    ...keys.item(ctx.workspaceId, 'TIME_ENTRY', id),
    ...keys.timeEntryIndexes(ctx.workspaceId, id, clientId, projectId),
    id,
    project_id: projectId,
    client_id: clientId,
    started_at: input.started_at,
    duration_minutes: input.duration_minutes,
    description: input.description ?? null,
    workspace_id: ctx.workspaceId,
    created_at: at,
    updated_at: at,
    version: 1,
    request_id: ctx.requestId,
  };
  const cancelled = await transactWrite({
    TransactItems: [
      { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
      counterUpdate(keys.item(ctx.workspaceId, 'CLIENT', clientId), 1),
      ...(projectId === null
        ? []
        : [counterUpdate(keys.item(ctx.workspaceId, 'PROJECT', projectId), 1, ' AND client_id = :client_id', { ':client_id': clientId })]),
    ],
  });
  if (cancelled) {
    // The project was deleted after it was read (its client cannot go while it exists).
    if (cancelled.codes[2] === 'ConditionalCheckFailed') throw unknownReference('project_id');
    if (cancelled.codes[1] === 'ConditionalCheckFailed') throw unknownReference(projectId === null ? 'client_id' : 'project_id');
    throw new Error(`Time entry log cancelled: ${cancelled.codes.join(',')}`);
  }
  return { resource: toTimeEntry(item), version: item.version };
}

export async function retrieveTimeEntry(ctx: CallerContext, id: string): Promise<Versioned<TimeEntry>> {
  const item = isWellFormedId('time_entry', id) ? await readItem(ctx, 'TIME_ENTRY', id) : undefined;
  if (!item) throw notFound('time entry', id);
  return { resource: toTimeEntry(item), version: versionOf(item) };
}

export function listTimeEntries(ctx: CallerContext, query: v.InferOutput<typeof ListTimeEntriesQuery>): Promise<ListEnvelope<TimeEntry>> {
  const both = query.project_id !== undefined && query.client_id !== undefined;
  return listPage({
    binding: { list: 'time_entries', workspaceId: ctx.workspaceId, filters: { project_id: query.project_id, client_id: query.client_id } },
    source: listSources.timeEntries(ctx.workspaceId, {
      ...(query.project_id !== undefined ? { projectId: query.project_id } : {}),
      ...(query.client_id !== undefined ? { clientId: query.client_id } : {}),
    }),
    limit: query.limit,
    cursor: query.cursor,
    // Entries of one project share its client: with both filters the list is all or nothing.
    ...(both ? { filter: { expression: '#client_id = :client_id', names: { '#client_id': 'client_id' }, values: { ':client_id': query.client_id } } } : {}),
    toResource: toTimeEntry,
  });
}

export async function deleteTimeEntry(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  const ifMatch = versionCondition(expectedVersion, 'version');
  const entry = isWellFormedId('time_entry', id) ? await readItem(ctx, 'TIME_ENTRY', id) : undefined;
  if (!entry) throw notFound('time entry', id);
  const projectId = (entry.project_id as string | null) ?? null;
  const cancelled = await transactWrite({
    TransactItems: [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'TIME_ENTRY', id),
          ConditionExpression: `attribute_exists(PK)${ifMatch ? ` AND ${ifMatch.expression}` : ''}`,
          ...(ifMatch ? { ExpressionAttributeValues: ifMatch.values } : {}),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      counterUpdate(keys.item(ctx.workspaceId, 'CLIENT', entry.client_id as string), -1),
      ...(projectId === null ? [] : [counterUpdate(keys.item(ctx.workspaceId, 'PROJECT', projectId), -1)]),
      deletionRecordPut(ctx.workspaceId, 'TIME_ENTRY', id, ctx.requestId),
    ],
  });
  if (cancelled) {
    const old = cancelled.items[0];
    if (old && !matchesVersion(expectedVersion, versionOf(old))) throw preconditionFailed('time entry', id);
    throw notFound('time entry', id); // deleted concurrently
  }
  return { object: 'time_entry', id, deleted: true };
}
