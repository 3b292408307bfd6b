/**
 * The event store: appends events in the order of each workspace's sequence, and reads them.
 *
 * Appending is one transaction per group of events of a workspace: the sequence counter moves
 * from n to n + k (on the condition that it is still n), the k events are put with ids that sort
 * by their sequence number, and each event's change marker is put on the condition that it does
 * not exist. So the events visible in a workspace are always exactly its sequence numbers 1..n,
 * a prefix that only grows at its end, which is what makes the feed's sync mode exact
 * (docs/decisions/0009-event-feed-order.md). A change whose marker exists already (a redelivered
 * stream record) makes no second event: its existing event is returned instead, so the fan-out
 * after a crash still happens, with the same event id.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../data/dynamo.ts';
import { keys, type EventView } from '../data/keys.ts';
import { TABLE } from '../data/table.ts';
import { allOf, transact, type Condition, type TransactItem } from '../data/writes.ts';
import { sortableId } from '../ids.ts';
import type { EventDraft } from './build.ts';
import { EVENT_FEED, EVENT_RETENTION_MS, type Event } from './types.ts';

/** The views each event is copied into (keys.eventView): its collection, its type, its object. */
export const eventViews = (event: Event): EventView[] => [
  { by: 'object', value: event.data.object.object },
  { by: 'type', value: event.type },
  { by: 'object_id', value: event.data.object.id },
];
/** Items an event takes in its append transaction: its marker, itself and its view copies. */
const ITEMS_PER_EVENT = 2 + 3;
/** Events per transaction: each takes ITEMS_PER_EVENT of the 100 items a transaction may hold, the counter one. */
export const EVENTS_PER_TRANSACTION = Math.floor((100 - 1) / ITEMS_PER_EVENT);
/** A change marker outlives any redelivery: streams keep records 24 hours. */
const MARKER_TTL_SECONDS = 3 * 24 * 60 * 60;
/** Each retry follows another appender's success, so contention always makes progress; this only stops a runaway. */
const MAX_APPEND_ATTEMPTS = 50;

export interface StoredEvent {
  event: Event;
  /** The exact JSON served by the feed and posted to endpoints. */
  body: string;
  sequence: number;
}

export const newEventId = (sequence: number) => sortableId(EVENT_FEED.idPrefix, sequence);
const epochSeconds = (ms: number) => Math.floor(ms / 1000);

function eventOf(draft: EventDraft, id: string): Event {
  return {
    object: 'event',
    id,
    type: draft.type,
    created_at: draft.createdAt ?? new Date().toISOString(),
    workspace_id: draft.workspaceId,
    request_id: draft.requestId ?? null,
    data: {
      object: draft.object,
      ...(draft.previousAttributes === undefined ? {} : { previous_attributes: draft.previousAttributes }),
    },
  };
}

export function eventItem(stored: StoredEvent): Record<string, unknown> {
  const { event } = stored;
  return {
    ...keys.event(event.workspace_id, event.id),
    id: event.id,
    type: event.type,
    object_id: event.data.object.id,
    sequence: stored.sequence,
    created_at: event.created_at,
    body: stored.body,
    // The feed also hides events past 30 days itself: TTL deletes within days, not at the second.
    [TABLE.ttlAttribute]: epochSeconds(Date.parse(event.created_at) + EVENT_RETENTION_MS),
  };
}

export function storedOf(item: Record<string, unknown>): StoredEvent {
  const body = String(item.body);
  return { event: JSON.parse(body) as Event, body, sequence: Number(item.sequence) };
}

/** The event's copies in its views: the same item under each view's partition. */
export function eventViewItems(stored: StoredEvent): Record<string, unknown>[] {
  const item = eventItem(stored);
  return eventViews(stored.event).map((view) => ({ ...item, PK: keys.eventView(stored.event.workspace_id, view) }));
}

/** True while the feed keeps the event (TTL deletes it some time after it expires). */
export const isKept = (item: Record<string, unknown>, now: Date) => Number(item[TABLE.ttlAttribute]) > epochSeconds(now.getTime());

/**
 * What a page of the feed keeps of the event items it reads: those still kept (TTL deletes some
 * time after expiry, from the oldest end only), and of this type when the page reads an object's
 * view with a type filter too (an object has a handful of events, so that skips next to nothing).
 */
export function feedFilter(filters: { type?: string | undefined }, now: Date): Condition {
  const conditions: Condition[] = [
    { expression: '#expires_at > :now', names: { '#expires_at': TABLE.ttlAttribute }, values: { ':now': epochSeconds(now.getTime()) } },
  ];
  if (filters.type !== undefined) conditions.push({ expression: '#type = :type', names: { '#type': 'type' }, values: { ':type': filters.type } });
  return allOf(...conditions);
}

/** The workspace's last event sequence number: every event up to it has committed, with its view copies. */
export async function readSequence(workspaceId: string): Promise<number> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.eventSequence(workspaceId), ConsistentRead: true }));
  return Number(out.Item?.value ?? 0);
}

export async function getEventItem(workspaceId: string, eventId: string): Promise<Record<string, unknown> | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.event(workspaceId, eventId), ConsistentRead: true }));
  return out.Item;
}

/**
 * Appends the drafts of one workspace, in order. Returns every draft's event: new, or the one a
 * previous delivery of the same change already made.
 */
export async function appendEvents(workspaceId: string, drafts: readonly EventDraft[], now = new Date()): Promise<StoredEvent[]> {
  const results: StoredEvent[] = [];
  for (let start = 0; start < drafts.length; start += EVENTS_PER_TRANSACTION) {
    results.push(...(await appendGroup(workspaceId, drafts.slice(start, start + EVENTS_PER_TRANSACTION), now)));
  }
  return results;
}

async function appendGroup(workspaceId: string, group: readonly EventDraft[], now: Date): Promise<StoredEvent[]> {
  let pending = [...group];
  const existing = new Map<EventDraft, StoredEvent>();
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_APPEND_ATTEMPTS) throw new Error(`Could not append ${pending.length} events of ${workspaceId} after ${MAX_APPEND_ATTEMPTS} attempts`);
    const first = await readSequence(workspaceId);
    const stored = pending.map((draft, i) => {
      const sequence = first + i + 1;
      const event = eventOf(draft, newEventId(sequence));
      return { draft, stored: { event, body: JSON.stringify(event), sequence } };
    });
    const last = first + pending.length;
    // Named parts: the sequence counter, then each draft's change marker (m<i>), event (e<i>) and
    // view copies (v<i>_<j>): all in one transaction, so every view grows at its end as the feed does.
    const parts: Record<string, TransactItem> = {
      sequence: {
        Update: {
          TableName: tableName(),
          Key: keys.eventSequence(workspaceId),
          UpdateExpression: 'SET #value = :last',
          ConditionExpression: first === 0 ? 'attribute_not_exists(#value)' : '#value = :first',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':last': last, ...(first === 0 ? {} : { ':first': first }) },
        },
      },
    };
    stored.forEach(({ draft, stored: s }, i) => {
      parts[`m${i}`] = {
        Put: {
          TableName: tableName(),
          Item: { ...keys.eventSource(workspaceId, draft.changeKey), event_id: s.event.id, expires_at: epochSeconds(now.getTime()) + MARKER_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(PK)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      };
      parts[`e${i}`] = { Put: { TableName: tableName(), Item: eventItem(s), ConditionExpression: 'attribute_not_exists(PK)' } };
      eventViewItems(s).forEach((copy, j) => {
        parts[`v${i}_${j}`] = { Put: { TableName: tableName(), Item: copy } };
      });
    });
    const cancelled = await transact(parts);
    if (!cancelled) {
      for (const { draft, stored: s } of stored) existing.set(draft, s);
      pending = [];
      break;
    }
    // Markers that exist already: those changes have their event; drop them and try the rest again.
    const duplicates = new Set<EventDraft>();
    for (let i = 0; i < stored.length; i++) {
      const marker = cancelled.item(`m${i}`);
      if (cancelled.failed(`m${i}`) && marker) {
        const item = await getEventItem(workspaceId, String(marker.event_id));
        if (item) existing.set(stored[i]!.draft, storedOf(item));
        duplicates.add(stored[i]!.draft);
      }
    }
    pending = pending.filter((draft) => !duplicates.has(draft));
    // Otherwise the counter moved (another consumer appended): read it again and retry, after a
    // short jittered pause so that racing appenders spread out.
    if (duplicates.size === 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
  }
  return group.flatMap((draft) => {
    const s = existing.get(draft);
    return s ? [s] : [];
  });
}
