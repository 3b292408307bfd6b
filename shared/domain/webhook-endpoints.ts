/**
 * Webhook endpoints (events.md): where a workspace's events are posted. The secret is made
 * here, returned by create only, and kept in the item so that deliveries can sign with it (see
 * docs/decisions/0011-webhook-secrets-and-ssrf.md). A workspace has at most MAX_WEBHOOK_ENDPOINTS,
 * counted by an item updated in the same transaction as each create and delete.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { conflict, invalidParam, notFound, preconditionFailed } from '../errors.ts';
import { isWellFormedId, newId } from '../ids.ts';
import { keys, listSources } from '../data/keys.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { conditionalUpdate } from '../data/update.ts';
import { transactWrite, versionCondition } from '../data/writes.ts';
import { checkWebhookUrl, urlPolicy } from '../events/ssrf.ts';
import { newSecret } from '../events/signature.ts';
import { MAX_WEBHOOK_ENDPOINTS, type CreateWebhookEndpointInput, type ListWebhookEndpointsQuery, type UpdateWebhookEndpointInput } from '../schemas/events.ts';
import { matchesVersion, versionOf, type CallerContext, type IfMatch, type Versioned } from './context.ts';
import type { Deleted } from './clients.ts';
import { listPage, type ListEnvelope } from './paging.ts';

export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  enabled_events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  workspace_id: string;
  created_at: string;
  updated_at: string;
}

export function toWebhookEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return {
    object: 'webhook_endpoint',
    id: item.id as string,
    url: item.url as string,
    enabled_events: [...(item.enabled_events as string[])],
    description: (item.description as string | null) ?? null,
    status: item.status as 'enabled' | 'disabled',
    workspace_id: item.workspace_id as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

/** 400 on `url` unless it may receive webhooks (SSRF: resolved and checked now, again at each delivery). */
async function checkUrl(url: string): Promise<void> {
  const verdict = await checkWebhookUrl(url, urlPolicy());
  if (!verdict.ok) throw invalidParam('url', verdict.reason);
}

export async function createWebhookEndpoint(
  ctx: CallerContext,
  input: CreateWebhookEndpointInput,
  now = new Date(),
): Promise<Versioned<WebhookEndpoint & { secret: string }>> {
  await checkUrl(input.url);
  const id = newId('webhook_endpoint', now);
  const at = now.toISOString();
  const secret = newSecret();
  const item = {
    ...keys.item(ctx.workspaceId, 'WEBHOOK_ENDPOINT', id),
    id,
    url: input.url,
    enabled_events: input.enabled_events,
    description: input.description ?? null,
    status: 'enabled',
    workspace_id: ctx.workspaceId,
    created_at: at,
    updated_at: at,
    secret,
    version: 1,
  };
  const cancelled = await transactWrite({
    TransactItems: [
      {
        Update: {
          TableName: tableName(),
          Key: keys.webhookEndpointCount(ctx.workspaceId),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOK_ENDPOINTS },
        },
      },
      { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    ],
  });
  if (cancelled) {
    throw conflict(`A workspace may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints: delete one before adding another`);
  }
  return { resource: { ...toWebhookEndpoint(item), secret }, version: item.version };
}

export async function retrieveWebhookEndpoint(ctx: CallerContext, id: string): Promise<Versioned<WebhookEndpoint>> {
  const item = await webhookEndpointItem(ctx.workspaceId, id);
  if (!item) throw notFound('webhook endpoint', id);
  return { resource: toWebhookEndpoint(item), version: versionOf(item) };
}

/** The stored item (secret included), for deliveries; undefined when there is none. */
export async function webhookEndpointItem(workspaceId: string, id: string): Promise<Record<string, unknown> | undefined> {
  if (!isWellFormedId('webhook_endpoint', id)) return undefined;
  const out = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.item(workspaceId, 'WEBHOOK_ENDPOINT', id), ConsistentRead: true }),
  );
  return out.Item;
}

/** Every endpoint of a workspace (at most MAX_WEBHOOK_ENDPOINTS: one page), secrets excluded. */
export async function allWebhookEndpoints(workspaceId: string): Promise<WebhookEndpoint[]> {
  const source = listSources.webhookEndpoints(workspaceId);
  const out = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      ConsistentRead: true,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': source.partitionKey, ':prefix': keys.kindPrefix(source.kind) },
    }),
  );
  return (out.Items ?? []).map(toWebhookEndpoint);
}

export function listWebhookEndpoints(ctx: CallerContext, query: v.InferOutput<typeof ListWebhookEndpointsQuery>): Promise<ListEnvelope<WebhookEndpoint>> {
  return listPage({
    binding: { list: 'webhook_endpoints', workspaceId: ctx.workspaceId, filters: {} },
    source: listSources.webhookEndpoints(ctx.workspaceId),
    limit: query.limit,
    cursor: query.cursor,
    toResource: toWebhookEndpoint,
  });
}

export async function updateWebhookEndpoint(
  ctx: CallerContext,
  id: string,
  patch: UpdateWebhookEndpointInput,
  expectedVersion?: IfMatch,
  now = new Date(),
): Promise<Versioned<WebhookEndpoint>> {
  if (!isWellFormedId('webhook_endpoint', id)) throw notFound('webhook endpoint', id);
  if (Object.keys(patch).length === 0) {
    const current = await retrieveWebhookEndpoint(ctx, id);
    if (!matchesVersion(expectedVersion, current.version)) throw preconditionFailed('webhook endpoint', id);
    return current;
  }
  if (patch.url !== undefined) await checkUrl(patch.url);
  const outcome = await conditionalUpdate({ key: keys.item(ctx.workspaceId, 'WEBHOOK_ENDPOINT', id), fields: { ...patch }, expectedVersion, now });
  if (outcome.kind === 'precondition_failed') throw preconditionFailed('webhook endpoint', id);
  if (outcome.kind !== 'updated') throw notFound('webhook endpoint', id);
  return { resource: toWebhookEndpoint(outcome.item), version: versionOf(outcome.item) };
}

export async function deleteWebhookEndpoint(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  if (!isWellFormedId('webhook_endpoint', id)) throw notFound('webhook endpoint', id);
  const ifMatch = versionCondition(expectedVersion, 'version');
  const cancelled = await transactWrite({
    TransactItems: [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.item(ctx.workspaceId, 'WEBHOOK_ENDPOINT', id),
          ConditionExpression: `attribute_exists(PK)${ifMatch ? ` AND ${ifMatch.expression}` : ''}`,
          ...(ifMatch ? { ExpressionAttributeValues: ifMatch.values } : {}),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.webhookEndpointCount(ctx.workspaceId),
          UpdateExpression: 'ADD #count :minus_one',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minus_one': -1 },
        },
      },
    ],
  });
  if (cancelled) {
    const old = cancelled.items[0];
    if (old && !matchesVersion(expectedVersion, versionOf(old))) throw preconditionFailed('webhook endpoint', id);
    throw notFound('webhook endpoint', id);
  }
  return { object: 'webhook_endpoint', id, deleted: true };
}
