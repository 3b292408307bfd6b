/**
 * Webhook endpoints (docs/events.md): the registry's generic operations, plus their own rules.
 * - `url` must be allowed to receive webhooks (SSRF check: resolved and checked at create and
 *   update, again at each delivery);
 * - the secret is made on create, kept beside `data` (never answered by retrieve, list or
 *   update) and answered by create alone (docs/decisions/0010-webhook-secrets-and-ssrf.md);
 * - a workspace has at most MAX_WEBHOOK_ENDPOINTS, counted by an item written in the same
 *   transaction as each create and delete.
 */
import * as v from 'valibot';
import { conflict, invalidParam } from '../core/errors.ts';
import * as keys from '../data/keys.ts';
import { listSource } from '../data/keys.ts';
import { readAll } from '../data/list.ts';
import { addToCounter, getItem, type TransactItem } from '../data/writes.ts';
import { isWellFormedId } from '../core/ids.ts';
import { objectOf, type WebhookEndpoint } from '../model/objects.ts';
import { checkWebhookUrl, urlPolicy } from '../core/ssrf.ts';
import { newSecret } from '../core/webhook-signature.ts';
import { EVENT_OBJECTS, type EventType } from '../model/event-types.ts';
import { objectOfType, requireReadable } from '../events/visibility.ts';
import { webhookEndpoint, type webhookEndpointSchemas } from '../model/resources.ts';
import type { CallerContext, Deleted, IfMatch, Versioned } from './context.ts';
import { create, remove, update } from './entity.ts';

/** What a workspace may register: enough for several integrations, a bounded fan-out per event. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
/** The stored attribute holding the signing secret (outside `data`: never part of the object). */
export const SECRET_ATTRIBUTE = 'secret';
const COUNT = 'count';

/** 400 on `url` unless it may receive webhooks. */
async function checkUrl(url: string): Promise<void> {
  const verdict = await checkWebhookUrl(url, urlPolicy());
  if (!verdict.ok) throw invalidParam('url', verdict.reason);
}

/** The workspace's count of endpoints moved by `delta`: an added one only while the count is below the most it may have. */
const countBy = (workspaceId: string, delta: 1 | -1): TransactItem =>
  addToCounter(
    keys.webhookEndpointCount(workspaceId),
    COUNT,
    delta,
    delta > 0 ? { expression: 'attribute_not_exists(#count) OR #count < :max', names: { '#count': COUNT }, values: { ':max': MAX_WEBHOOK_ENDPOINTS } } : undefined,
  );

/**
 * 403 unless the token can read every collection whose events `enabled` subscribes to (`*`: all
 * of them). An endpoint is a standing read of those events: no more than its author could read.
 */
function requireSubscribable(scopes: readonly string[], enabled: readonly string[]): void {
  const objects = enabled.includes('*') ? EVENT_OBJECTS : [...new Set(enabled.map((type) => objectOfType(type as EventType)))];
  for (const object of objects) requireReadable(scopes, object, `enabled_events ${JSON.stringify(enabled)}`);
}

export async function createWebhookEndpoint(
  ctx: CallerContext,
  input: v.InferOutput<typeof webhookEndpointSchemas.create>,
  now = new Date(),
): Promise<Versioned<WebhookEndpoint & { secret: string }>> {
  requireSubscribable(ctx.scopes, input.enabled_events);
  await checkUrl(input.url);
  const secret = newSecret();
  const made = await create(ctx, webhookEndpoint, input, now, {
    hidden: { [SECRET_ATTRIBUTE]: secret },
    alongside: {
      write: countBy(ctx.workspaceId, 1),
      refused: () => conflict(`A workspace may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints: delete one before adding another`),
    },
  });
  return { resource: { ...made.resource, secret }, version: made.version };
}

type EndpointPatch = v.InferOutput<typeof webhookEndpointSchemas.update>;

export async function updateWebhookEndpoint(ctx: CallerContext, id: string, patch: EndpointPatch, expectedVersion?: IfMatch, now = new Date()): Promise<Versioned<WebhookEndpoint>> {
  // Any change to an endpoint (where it points, whether it sends) is a change to who gets its
  // events: the token must be able to read what it subscribes to, as at creation.
  const current = patch.enabled_events === undefined ? await webhookEndpointItem(ctx.workspaceId, id) : undefined;
  const enabled = patch.enabled_events ?? (current && objectOf(webhookEndpoint, current).enabled_events);
  if (enabled) requireSubscribable(ctx.scopes, enabled);
  if (patch.url !== undefined) await checkUrl(patch.url);
  return update(ctx, webhookEndpoint, id, patch, expectedVersion, now);
}

export function deleteWebhookEndpoint(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  return remove(ctx, webhookEndpoint, id, expectedVersion, countBy(ctx.workspaceId, -1));
}

/** The stored item (secret included), for deliveries; undefined when there is none. */
export async function webhookEndpointItem(workspaceId: string, id: string): Promise<Record<string, unknown> | undefined> {
  if (!isWellFormedId(webhookEndpoint.idPrefix, id)) return undefined;
  return getItem(keys.item(workspaceId, webhookEndpoint.type, id));
}

/** Every endpoint of a workspace, for the fan-out (at most MAX_WEBHOOK_ENDPOINTS: one page), secrets left out. */
export async function allWebhookEndpoints(workspaceId: string): Promise<WebhookEndpoint[]> {
  const endpoints: WebhookEndpoint[] = [];
  // The workspace's partition: no index lists webhook endpoints.
  for await (const item of readAll(listSource(webhookEndpoint, workspaceId, {}), { ascending: true })) endpoints.push(objectOf(webhookEndpoint, item));
  return endpoints;
}
