/**
 * The stream consumer's work, shared by the Lambda function (functions/events/consume.ts) and the
 * local stack's stream poller: turn a batch of change records into events, in order, then queue
 * one delivery per (event, enabled endpoint that wants it and existed when the change was made).
 *
 * Idempotent: a record seen again makes no second event (store.ts), but its deliveries are
 * queued again, since the first run may have stopped between the two; receivers deduplicate by
 * event id. Any failure throws, so the whole batch is retried (and bisected in AWS).
 */
import { allWebhookEndpoints } from '../domain/webhook-endpoints.ts';
import type { WebhookEndpoint } from '../model/objects.ts';
import { draftOf, type EventDraft, type StreamChange } from '../events/build.ts';
import { deletionFacts } from '../data/deletion-records.ts';
import { deliveryQueue, type DeliveryMessage } from './queue.ts';
import { appendEvents, type StoredEvent } from '../events/store.ts';
import type { Event } from '../model/event-types.ts';

export interface ConsumeResult {
  events: StoredEvent[];
  deliveries: number;
}

export async function consumeChanges(records: readonly StreamChange[]): Promise<ConsumeResult> {
  const drafts: EventDraft[] = [];
  for (const record of records) {
    const draft = draftOf(record);
    if (!draft) continue;
    if (draft.type.endsWith('.deleted')) {
      const facts = await deletionFacts(draft.workspaceId, draft.kind, draft.objectId);
      const approximate = record.dynamodb?.ApproximateCreationDateTime;
      draft.requestId = facts.requestId;
      draft.createdAt = facts.deletedAt ?? (approximate === undefined ? undefined : new Date(approximate * 1000).toISOString());
    }
    drafts.push(draft);
  }
  // Per workspace, in stream order (which is each item's change order).
  const byWorkspace = new Map<string, EventDraft[]>();
  for (const draft of drafts) byWorkspace.set(draft.workspaceId, [...(byWorkspace.get(draft.workspaceId) ?? []), draft]);
  const events: StoredEvent[] = [];
  const messages: DeliveryMessage[] = [];
  for (const [workspaceId, group] of byWorkspace) {
    const stored = await appendEvents(workspaceId, group);
    events.push(...stored);
    const endpoints = await allWebhookEndpoints(workspaceId);
    messages.push(...stored.flatMap(({ event }) => endpoints.filter((endpoint) => wants(endpoint, event)).map((endpoint) => messageOf(endpoint, event))));
  }
  // The whole batch's deliveries together: SendMessageBatch takes 10 at a time, whatever their workspace.
  if (messages.length > 0) await deliveryQueue().send(messages);
  return { events, deliveries: messages.length };
}

/** An enabled endpoint that subscribed to the type and existed when the change was made. */
export function wants(endpoint: WebhookEndpoint, event: Event): boolean {
  return (
    endpoint.status === 'enabled' &&
    (endpoint.enabled_events.includes('*') || (endpoint.enabled_events as string[]).includes(event.type)) &&
    endpoint.created_at <= event.created_at
  );
}

const messageOf = (endpoint: WebhookEndpoint, event: Event): DeliveryMessage => ({
  workspace_id: event.workspace_id,
  endpoint_id: endpoint.id,
  event_id: event.id,
});
