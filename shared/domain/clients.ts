/** Clients: the companies that are billed. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { conflict, notFound, preconditionFailed } from '../errors.ts';
import { isWellFormedId, newId } from '../ids.ts';
import { keys, listSources } from '../data/keys.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { conditionalUpdate } from '../data/update.ts';
import { transactWrite, versionCondition } from '../data/writes.ts';
import { deletionRecordPut } from '../events/deletions.ts';
import type { CreateClientInput, ListClientsQuery, UpdateClientInput } from '../schemas/resources.ts';
import { matchesVersion, versionOf, type CallerContext, type IfMatch, type Versioned } from './context.ts';
import { foldForSearch, listPage, searchFilter, type ListEnvelope } from './paging.ts';

export interface Client {
  object: 'client';
  id: string;
  company_name: string;
  company_email: string;
  company_address: string | null;
  website: string | null;
  status: string;
  language: string;
  business_number: string | null;
  tps_number: string | null;
  tvq_number: string | null;
  relationship_start_date: string;
  workspace_id: string;
  created_at: string;
  updated_at: string;
}

export function toClient(item: Record<string, unknown>): Client {
  return {
    object: 'client',
    id: item.id as string,
    company_name: item.company_name as string,
    company_email: item.company_email as string,
    company_address: (item.company_address as string | null) ?? null,
    website: (item.website as string | null) ?? null,
    status: item.status as string,
    language: item.language as string,
    business_number: (item.business_number as string | null) ?? null,
    tps_number: (item.tps_number as string | null) ?? null,
    tvq_number: (item.tvq_number as string | null) ?? null,
    relationship_start_date: item.relationship_start_date as string,
    workspace_id: item.workspace_id as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

export async function createClient(ctx: CallerContext, input: CreateClientInput, now = new Date()): Promise<Versioned<Client>> {
  const id = newId('client', now);
  const at = now.toISOString();
  const item = {
    ...keys.item(ctx.workspaceId, 'CLIENT', id),
    ...keys.clientIndexes(ctx.workspaceId, id, input.status),
    id,
    company_name: input.company_name,
    company_email: input.company_email,
    company_address: input.company_address ?? null,
    website: input.website ?? null,
    status: input.status,
    language: input.language,
    business_number: input.business_number ?? null,
    tps_number: input.tps_number ?? null,
    tvq_number: input.tvq_number ?? null,
    relationship_start_date: at,
    workspace_id: ctx.workspaceId,
    created_at: at,
    updated_at: at,
    search_text: foldForSearch(input.company_name),
    project_count: 0,
    time_entry_count: 0,
    version: 1,
    request_id: ctx.requestId,
  };
  await dynamo().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
  return { resource: toClient(item), version: item.version };
}

export async function retrieveClient(ctx: CallerContext, id: string): Promise<Versioned<Client>> {
  if (!isWellFormedId('client', id)) throw notFound('client', id);
  const out = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.item(ctx.workspaceId, 'CLIENT', id), ConsistentRead: true }),
  );
  if (!out.Item) throw notFound('client', id);
  return { resource: toClient(out.Item), version: versionOf(out.Item) };
}

export function listClients(ctx: CallerContext, query: v.InferOutput<typeof ListClientsQuery>): Promise<ListEnvelope<Client>> {
  return listPage({
    binding: { list: 'clients', workspaceId: ctx.workspaceId, filters: { status: query.status, search: query.search } },
    source: listSources.clients(ctx.workspaceId, query.status),
    limit: query.limit,
    cursor: query.cursor,
    filter: searchFilter(query.search),
    toResource: toClient,
  });
}

export async function updateClient(
  ctx: CallerContext,
  id: string,
  patch: UpdateClientInput,
  expectedVersion?: IfMatch,
  now = new Date(),
): Promise<Versioned<Client>> {
  if (!isWellFormedId('client', id)) throw notFound('client', id);
  if (Object.keys(patch).length === 0) {
    const current = await retrieveClient(ctx, id);
    if (!matchesVersion(expectedVersion, current.version)) throw preconditionFailed('client', id);
    return current;
  }
  const fields: Record<string, unknown> = { ...patch, request_id: ctx.requestId };
  if (patch.status !== undefined) Object.assign(fields, keys.clientIndexes(ctx.workspaceId, id, patch.status));
  if (patch.company_name !== undefined) fields.search_text = foldForSearch(patch.company_name);
  const outcome = await conditionalUpdate({ key: keys.item(ctx.workspaceId, 'CLIENT', id), fields, expectedVersion, now });
  if (outcome.kind === 'precondition_failed') throw preconditionFailed('client', id);
  if (outcome.kind !== 'updated') throw notFound('client', id);
  return { resource: toClient(outcome.item), version: versionOf(outcome.item) };
}

export interface Deleted {
  object: string;
  id: string;
  deleted: true;
}

/**
 * A conditional delete: refused (409) while projects or time entries still reference the client.
 * Its deletion record (request id and time, for the client.deleted event) is written with it.
 */
export async function deleteClient(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  if (!isWellFormedId('client', id)) throw notFound('client', id);
  const ifMatch = versionCondition(expectedVersion, 'version');
  const cancelled = await transactWrite({
    TransactItems: [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'CLIENT', id),
          ConditionExpression: `attribute_exists(PK) AND project_count = :zero AND time_entry_count = :zero${ifMatch ? ` AND ${ifMatch.expression}` : ''}`,
          ExpressionAttributeValues: { ':zero': 0, ...ifMatch?.values },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      deletionRecordPut(ctx.workspaceId, 'CLIENT', id, ctx.requestId),
    ],
  });
  if (cancelled) {
    const old = cancelled.items[0];
    if (old === undefined) throw notFound('client', id);
    if (!matchesVersion(expectedVersion, versionOf(old))) throw preconditionFailed('client', id);
    throw clientInUse(id, Number(old.project_count), Number(old.time_entry_count));
  }
  return { object: 'client', id, deleted: true };
}

function clientInUse(id: string, projects: number, timeEntries: number) {
  const blockers = [
    projects > 0 ? `${projects} project${projects === 1 ? '' : 's'}` : undefined,
    timeEntries > 0 ? `${timeEntries} time entr${timeEntries === 1 ? 'y' : 'ies'}` : undefined,
  ].filter(Boolean);
  return conflict(
    `Client ${id} still has ${blockers.join(' and ')} and cannot be deleted. Delete those first, or archive the client instead by setting its status to SLEEPING or LOST`,
    { blocking: { projects, time_entries: timeEntries } },
  );
}
