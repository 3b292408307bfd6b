/**
 * The event store: appends events in the order of each workspace's sequence, and reads them.
 *
 * Appending a group of events of a workspace (decision 0018) is one transaction of the sequence
 * counter and, per event, its **change record**: the event's copy in its object's view, keyed by
 * the change (`CHANGE#<version>#<action>`) and put on the condition that it does not exist. The
 * counter moves from n to n + k on the condition that it is still n, and records, per event type,
 * the sequence number of that type's last event. Then the event's other two items, its place in
 * the feed and its copy in its type's view, are written outside the transaction (BatchWriteItem,
 * at the standard rate). Every item carries what a reader needs to find a missing one: the feed's
 * numbers are dense; a type-view copy holds `vec`, the last sequence number of every type before
 * it (its own type's is its predecessor in that view); a change record holds `prev`, its object's
 * previous change. Sync mode (shared/events/sync.ts) stops before a missing predecessor instead of
 * passing it, so it is exact under DynamoDB's read-committed Query and the later non-transactional
 * writes alike. A change whose record exists already (a redelivered stream record) makes no
 * second event: its record's items are written again (filling what a crash left out) and its event
 * is returned, so the fan-out after a crash still happens, with the same event id.
 */
import { putItems } from '../data/batches.ts';
import * as keys from '../data/keys.ts';
import { CHANGE_TYPE, type EventView } from '../data/keys.ts';
import { readAll } from '../data/list.ts';
import { TTL_ATTRIBUTE } from '../data/table.ts';
import { changeExpression } from '../data/update.ts';
import { absent, allOf, getItem, putPart, transact, updatePart, type Condition, type TransactItem } from '../data/writes.ts';
import { orderOfId, sortableId } from '../core/ids.ts';
import type { EventDraft } from './build.ts';
import { EVENT_FEED, EVENT_RETENTION_MS, EVENT_TYPES, type Event, type EventAction } from '../model/event-types.ts';

/** The type view and the object view of an event (keys.eventView); the feed holds every event. */
export const typeView = (type: string): EventView => ({ by: 'type', value: type });
export const objectView = (objectId: string): EventView => ({ by: 'object_id', value: objectId });
/** Events per transaction: each takes one of the 100 items a transaction may hold (its change record), the counter one. */
export const EVENTS_PER_TRANSACTION = 100 - 1;
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

/** Index of a type in EVENT_TYPES: its slot in the counter's `l<i>` and in a copy's `vec`. */
export const typeSlot = (type: string) => (EVENT_TYPES as readonly string[]).indexOf(type);
/** `vec`: the last sequence number of each type (EVENT_TYPES order) before an event, base 36. */
export const encodeVec = (vec: readonly number[]) => vec.map((n) => n.toString(36)).join(',');
export const decodeVec = (value: unknown): number[] => {
  const parts = String(value ?? '').split(',');
  return EVENT_TYPES.map((_, i) => (parts[i] ? parseInt(parts[i]!, 36) : 0));
};

/** A change's rank among its object's changes at one version: created < the others < deleted (one event a version else). */
const ACTION_RANK: Record<EventAction, number> = { created: 0, updated: 1, finalized: 1, paid: 1, voided: 1, completed: 1, deleted: 2 };
/** A change's place among its object's changes: version, then its action's rank. */
const changePosition = (version: number, action: EventAction) => `${String(version).padStart(10, '0')}#${ACTION_RANK[action]}`;
/**
 * A change record outlives its event by a day (its TTL; the feed hides it with the event): so the
 * previous change of any event after a kept one is still stored, and sync mode on the object's
 * view can tell it from one being written (sync.ts).
 */
export const CHANGE_RECORD_MARGIN_SECONDS = 24 * 60 * 60;
/** The sort key of a change record in its object's view. */
export const changeSortKey = (position: string) => `${CHANGE_TYPE}#${position}`;

/**
 * A change's position, and its object's previous change's: a change key ends `#<action>#v<version>`
 * (build.ts); an update made version v from v - 1, a delete removed version v, and version 1 is
 * the create. Every version is made by exactly one change that makes an event, but where the key
 * names the predecessor itself (`#after#v<n>`: the change at version n, whichever its action, so
 * the lowest rank; `#after#none`: none), as an invoice's do (its batches make no event).
 */
export function changePlace(changeKey: string): { position: string; prev: string | undefined } {
  const match = /#([a-z]+)#v(\d+)(?:#after#(none|v\d+))?$/.exec(changeKey);
  // An item without a version (none is written so): its own place, named by its stream record.
  if (!match || !Object.hasOwn(ACTION_RANK, match[1]!)) return { position: `${changePosition(0, 'updated')}#${changeKey.slice(changeKey.lastIndexOf('#') + 1)}`, prev: undefined };
  const action = match[1] as EventAction;
  const version = Number(match[2]);
  const position = changePosition(version, action);
  if (match[3] !== undefined) return { position, prev: match[3] === 'none' ? undefined : changePosition(Number(match[3].slice(1)), 'created') };
  const made = (v: number) => (v < 1 ? undefined : changePosition(v, v === 1 ? 'created' : 'updated'));
  return { position, prev: action === 'created' ? undefined : made(action === 'deleted' ? version : version - 1) };
}

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

/** What every item of an event holds (the feed, its type view, its change record): the body and its place. */
function commonAttributes(stored: StoredEvent, appendedAt: number): Record<string, unknown> {
  return {
    type: stored.event.type,
    sequence: stored.sequence,
    // When its group was appended (ms): sync mode passes a missing predecessor only once this is old (sync.ts).
    appended_at: appendedAt,
    body: stored.body,
    // The feed also hides events past 30 days itself: TTL deletes within days, not at the second.
    [TTL_ATTRIBUTE]: epochSeconds(Date.parse(stored.event.created_at) + EVENT_RETENTION_MS),
  };
}

/** An event's change record: its copy in its object's view, at its change's position. */
function changeRecord(stored: StoredEvent, place: { position: string; prev: string | undefined }, vec: readonly number[], appendedAt: number): Record<string, unknown> {
  const { event } = stored;
  const common = commonAttributes(stored, appendedAt);
  return {
    PK: keys.eventView(event.workspace_id, objectView(event.data.object.id)),
    SK: changeSortKey(place.position),
    ...common,
    [TTL_ATTRIBUTE]: Number(common[TTL_ATTRIBUTE]) + CHANGE_RECORD_MARGIN_SECONDS,
    ...(place.prev === undefined ? {} : { prev: place.prev }),
    vec: encodeVec(vec),
  };
}

/** The event's items outside the transaction, from its change record: its place in the feed and its type-view copy. */
export function copiesOf(record: Record<string, unknown>): Record<string, unknown>[] {
  const { event } = storedOf(record);
  const common = {
    type: record.type,
    sequence: record.sequence,
    appended_at: record.appended_at,
    body: record.body,
    [TTL_ATTRIBUTE]: Number(record[TTL_ATTRIBUTE]) - CHANGE_RECORD_MARGIN_SECONDS,
  };
  const position = String(record.SK).slice(CHANGE_TYPE.length + 1);
  return [
    // The feed's item names its change's position, so that `object_id=` can start after it.
    { ...keys.event(event.workspace_id, event.id), ...common, position },
    { PK: keys.eventView(event.workspace_id, typeView(event.type)), SK: keys.event(event.workspace_id, event.id).SK, ...common, vec: record.vec },
  ];
}

/** An event's item in the feed, as appending it would write it (tests, tools). */
export const eventItem = (stored: StoredEvent, changeKey = '', appendedAt = Date.now()): Record<string, unknown> =>
  copiesOf(changeRecord(stored, changePlace(changeKey), EVENT_TYPES.map(() => 0), appendedAt))[0]!;

export function storedOf(item: Record<string, unknown>): StoredEvent {
  const body = String(item.body);
  return { event: JSON.parse(body) as Event, body, sequence: Number(item.sequence) };
}

/** When the feed stops showing the event of this item (epoch seconds): a change record is kept a day longer. */
const keptUntil = (item: Record<string, unknown>) =>
  Number(item[TTL_ATTRIBUTE]) - (String(item.SK).startsWith(`${CHANGE_TYPE}#`) ? CHANGE_RECORD_MARGIN_SECONDS : 0);
/** True while the feed keeps the event (TTL deletes it some time after it expires). */
export const isKept = (item: Record<string, unknown>, now: Date) => keptUntil(item) > epochSeconds(now.getTime());

/**
 * What a newest-first page of the feed keeps of the event items it reads: those still kept (TTL
 * deletes some time after expiry, from the oldest end only), and of this type when the page reads
 * an object's view with a type filter too (an object has a handful of events, so that skips next
 * to nothing).
 */
export function feedFilter(filters: { type?: string | undefined; changes?: boolean }, now: Date): Condition {
  const margin = filters.changes ? CHANGE_RECORD_MARGIN_SECONDS : 0;
  const conditions: Condition[] = [
    { expression: '#expires_at > :now', names: { '#expires_at': TTL_ATTRIBUTE }, values: { ':now': epochSeconds(now.getTime()) + margin } },
  ];
  if (filters.type !== undefined) conditions.push({ expression: '#type = :type', names: { '#type': 'type' }, values: { ':type': filters.type } });
  return allOf(...conditions);
}

interface Counter {
  value: number;
  /** The last sequence number of each type (EVENT_TYPES order). */
  last: number[];
}

/** The workspace's sequence counter: its last number and each type's last number. */
async function readCounter(workspaceId: string): Promise<Counter> {
  const item = (await getItem(keys.eventSequence(workspaceId))) ?? {};
  return { value: Number(item.value ?? 0), last: EVENT_TYPES.map((_, i) => Number(item[`l${i}`] ?? 0)) };
}

/**
 * The counter as this process last moved it, per workspace: the next append of the workspace tries
 * it without reading the counter first. A workspace's changes reach one consumer (its partition's
 * stream shard), so it is usually still the counter; where another appender moved it since, the
 * counter's condition cancels the transaction and the append reads the counter and tries again,
 * as after any race. It only ever holds a number the counter had, so the condition alone keeps the
 * sequence exact.
 */
const movedCounters = new Map<string, Counter>();
/** Workspaces remembered at most (the oldest move is forgotten first): about 100 bytes each. */
const MOVED_COUNTERS_KEPT = 10_000;

function rememberMove(workspaceId: string, counter: Counter): void {
  movedCounters.delete(workspaceId); // re-inserted last: the Map's order is the moves' order
  movedCounters.set(workspaceId, counter);
  if (movedCounters.size > MOVED_COUNTERS_KEPT) movedCounters.delete(movedCounters.keys().next().value!);
}

export const getEventItem = (workspaceId: string, eventId: string): Promise<Record<string, unknown> | undefined> => getItem(keys.event(workspaceId, eventId));

/**
 * Appends the drafts of one workspace, in order. Returns every draft's event: new, or the one a
 * previous delivery of the same change already made.
 */
export async function appendEvents(workspaceId: string, drafts: readonly EventDraft[]): Promise<StoredEvent[]> {
  const results: StoredEvent[] = [];
  for (let start = 0; start < drafts.length; start += EVENTS_PER_TRANSACTION) {
    results.push(...(await appendGroup(workspaceId, drafts.slice(start, start + EVENTS_PER_TRANSACTION))));
  }
  return results;
}

async function appendGroup(workspaceId: string, group: readonly EventDraft[]): Promise<StoredEvent[]> {
  let pending = [...group];
  const existing = new Map<EventDraft, StoredEvent>();
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_APPEND_ATTEMPTS) throw new Error(`Could not append ${pending.length} events of ${workspaceId} after ${MAX_APPEND_ATTEMPTS} attempts`);
    // After a cancellation the remembered counter is stale (or the records exist): read it.
    const counter = (attempt === 1 && movedCounters.get(workspaceId)) || (await readCounter(workspaceId));
    movedCounters.delete(workspaceId); // until this append's outcome is known
    const appendedAt = Date.now();
    const last = [...counter.last];
    const appended = pending.map((draft, i) => {
      const sequence = counter.value + i + 1;
      const event = eventOf(draft, newEventId(sequence));
      const stored = { event, body: JSON.stringify(event), sequence };
      const record = changeRecord(stored, changePlace(draft.changeKey), last, appendedAt);
      last[typeSlot(event.type)] = sequence;
      return { draft, stored, record };
    });
    const first = counter.value;
    const touched = [...new Set(appended.map(({ stored }) => typeSlot(stored.event.type)))];
    // Named parts: the sequence counter, then each draft's change record (r<i>).
    const parts: Record<string, TransactItem> = {
      sequence: updatePart(
        keys.eventSequence(workspaceId),
        changeExpression({ attributes: { value: first + pending.length, ...Object.fromEntries(touched.map((slot) => [`l${slot}`, last[slot]])) } }),
        {
          condition:
            first === 0
              ? { expression: 'attribute_not_exists(#value)', names: { '#value': 'value' }, values: {} }
              : { expression: '#value = :first', names: { '#value': 'value' }, values: { ':first': first } },
        },
      ),
    };
    appended.forEach(({ record }, i) => {
      parts[`r${i}`] = putPart(record, { condition: absent(), returnItemOnFailure: true });
    });
    const cancelled = await transact(parts);
    if (!cancelled) {
      rememberMove(workspaceId, { value: first + pending.length, last });
      await putItems(appended.flatMap(({ record }) => copiesOf(record)));
      for (const { draft, stored } of appended) existing.set(draft, stored);
      break;
    }
    // Records that exist already: those changes have their event. Write its items again (a crash may
    // have stopped the first delivery before them), drop them and try the rest again.
    const duplicates = new Set<EventDraft>();
    const records: Record<string, unknown>[] = [];
    appended.forEach(({ draft }, i) => {
      const record = cancelled.item(`r${i}`);
      if (cancelled.failed(`r${i}`) && record) {
        records.push(record);
        existing.set(draft, storedOf(record));
        duplicates.add(draft);
      }
    });
    await putItems(records.flatMap(copiesOf));
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

/** The change record of an object's last change made at or before `sequence` (where sync mode on its view starts). */
export async function changeAtOrBefore(workspaceId: string, objectId: string, sequence: number): Promise<Record<string, unknown> | undefined> {
  for await (const item of readAll(keys.eventListSource(workspaceId, objectView(objectId)), { ascending: false })) {
    if (Number(item.sequence) <= sequence) return item;
  }
  return undefined;
}

/**
 * An event as `view` holds it, where it may be before its feed item is (decision 0018): an object's
 * change record is in the append's transaction (the feed item is built from it), and a type-view
 * copy may land before the feed item (one BatchWriteItem). Undefined when the view has no such event.
 */
export async function eventItemInView(workspaceId: string, view: EventView, eventId: string): Promise<Record<string, unknown> | undefined> {
  if (view.by === 'object_id') {
    const record = await changeAtOrBefore(workspaceId, view.value, orderOfId(EVENT_FEED.idPrefix, eventId));
    return record && storedOf(record).event.id === eventId ? copiesOf(record)[0] : undefined;
  }
  return getItem({ PK: keys.eventView(workspaceId, view), SK: keys.event(workspaceId, eventId).SK });
}

