/**
 * From a change of the table (a DynamoDB Streams record) to the event it means, if any.
 * Pure: no I/O. Only API resources (clients, projects, time entries, invoices, payments, the business profile) make events; counters,
 * idempotency records, registry items, webhook endpoints and the events' own items do not. A
 * change that touches no API field (a deletion-guard counter) makes none either.
 */
import { objectOf } from '../model/objects.ts';
import { resourceOf } from '../model/resources.ts';
import { REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { itemOfImage, type StreamImage } from '../data/stream-images.ts';
import { dataOfItem } from '../data/writes.ts';
import { EVENT_OBJECTS, hasPreviousAttributes, type ApiObject, type EventAction, type EventType } from '../model/event-types.ts';

/** A resource's type in the key schema (`CLIENT`). */
export type Kind = string;

/**
 * The resources that make events, by their type in the key schema: item (API fields in its
 * `data` map) → API object, read through the registry's declaration.
 */
const SOURCES: Record<Kind, (item: Record<string, unknown>) => ApiObject> = Object.fromEntries(
  EVENT_OBJECTS.map((kind) => {
    const resource = resourceOf(kind);
    return [resource.type, (item: Record<string, unknown>) => objectOf(resource, item) as unknown as ApiObject];
  }),
);
/** The singletons' types in the key schema (the business profile's): changed, never created or deleted. */
const SINGLETONS = new Set(EVENT_OBJECTS.map(resourceOf).filter((r) => r.singleton).map((r) => r.type));

/** A resource item's key: `WS#<workspace>` / `<KIND>#<id>`, nothing after. */
const RESOURCE_KEY = /^WS#([A-Za-z0-9_-]{1,64})$/;
const RESOURCE_SORT_KEY = /^([A-Z_]+)#([A-Za-z0-9_]+)$/;

export interface StreamChange {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | string;
  dynamodb?: {
    Keys?: StreamImage;
    NewImage?: StreamImage;
    OldImage?: StreamImage;
    ApproximateCreationDateTime?: number;
  };
}

export interface EventDraft {
  workspaceId: string;
  type: EventType;
  kind: Kind;
  objectId: string;
  /** When the change was made; for a delete, taken from its deletion record. */
  createdAt: string | undefined;
  /** For a delete, taken from its deletion record. */
  requestId: string | null | undefined;
  object: ApiObject;
  previousAttributes?: Record<string, unknown>;
  /**
   * Names this change for good: a redelivered record has the same, so it makes no second event.
   * `<SK>#<action>#v<version>`, then `#after#v<n>` (or `#after#none`) when its predecessor is not
   * the version before it (store.ts, changePlace).
   */
  changeKey: string;
}

/**
 * What a stream record did to a resource, if it makes an event: the action, the image the event
 * shows, and (for changes whose version is not one more than their predecessor's) the version of
 * the object's previous change, or null for none (store.ts orders an object's changes by them).
 */
export interface Change {
  action: EventAction;
  item: Record<string, unknown>;
  after?: number | null;
}

type Images = { eventName: string | undefined; oldItem: Record<string, unknown> | undefined; newItem: Record<string, unknown> | undefined };

/** A singleton (the business profile): its first change writes its item, so an INSERT is updated too, from its defaults. */
function singletonChange({ eventName, newItem }: Images): Change | undefined {
  return (eventName === 'INSERT' || eventName === 'MODIFY') && newItem ? { action: 'updated', item: newItem } : undefined;
}

/** Every resource: an INSERT is created, a MODIFY updated, a REMOVE deleted. */
function plainChange({ eventName, oldItem, newItem }: Images): Change | undefined {
  if (eventName === 'INSERT' && newItem) return { action: 'created', item: newItem };
  if (eventName === 'MODIFY' && newItem && oldItem) return { action: 'updated', item: newItem };
  if (eventName === 'REMOVE' && oldItem) return { action: 'deleted', item: oldItem };
  return undefined;
}

/** The invoice's type in the key schema. */
export const INVOICE_TYPE = 'INVOICE';
/** Each status an invoice reaches by a transition, and its event's action. */
const TRANSITIONS: Record<string, EventAction> = { open: 'finalized', paid: 'paid', void: 'voided' };
/** The transition's action, if `from` → `to` is one: `open` only from a draft (a deleted payment that reopens a paid invoice is an update). */
const transitionOf = (from: unknown, to: unknown): EventAction | undefined =>
  typeof to === 'string' && to !== from && Object.hasOwn(TRANSITIONS, to) && (to !== 'open' || from === 'draft') ? TRANSITIONS[to] : undefined;

/**
 * An invoice (decision 0023, "Events"): built in batches, then sealed; released in batches when
 * voided or deleted. Its unfinished work (`work`, beside `data`) makes no event: the MODIFY that
 * removes a build's `work` is `invoice.created`; a status change `invoice.finalized`, `.paid` or
 * `.voided` (a void starts a release in the same write); any other change while `work` is there,
 * before or after, none; another change of `data` (a payment's, a paid invoice reopened by a
 * payment's delete), `invoice.updated`; a REMOVE `invoice.deleted`,
 * unless the invoice was never sealed (its `work` still a build, or `unannounced`: an abandoned
 * build a DELETE released).
 *
 * The order of its changes (store.ts): a sealed invoice without `work` changes only by API
 * changes that each make an event, so the predecessor of a MODIFY's event is the old image's
 * version; `created` has none. A delete follows its release batches: its predecessor is
 * `work.announced`, the version of the draft's last event, which the write that starts the delete
 * records (absent: none named).
 */
export function invoiceChange({ eventName, oldItem, newItem }: Images): Change | undefined {
  const workOf = (item: Record<string, unknown>) => item.work as { kind?: unknown; announced?: unknown } | undefined;
  if (eventName === 'MODIFY' && oldItem && newItem) {
    const [before, after] = [workOf(oldItem), workOf(newItem)];
    if (before?.kind === 'build') return after === undefined ? { action: 'created', item: newItem, after: null } : undefined;
    const predecessor = { item: newItem, after: Number(oldItem[VERSION_ATTRIBUTE]) };
    const transition = transitionOf(dataOfItem(oldItem).status, dataOfItem(newItem).status);
    if (transition) return { action: transition, ...predecessor };
    if (before !== undefined || after !== undefined) return undefined;
    return { action: 'updated', ...predecessor };
  }
  if (eventName === 'REMOVE' && oldItem) {
    const work = workOf(oldItem) as { kind?: unknown; announced?: unknown; unannounced?: unknown } | undefined;
    // Never sealed: a build, or an abandoned build a DELETE released (`unannounced`).
    if (work?.kind === 'build' || work?.unannounced === true) return undefined;
    return { action: 'deleted', item: oldItem, after: typeof work?.announced === 'number' ? work.announced : null };
  }
  return undefined; // an INSERT: a new invoice is a build, announced when sealed
}

/** The billing run's type in the key schema. */
const BILLING_RUN_TYPE = 'BILLING_RUN';

/**
 * A billing run (decision 0033): its INSERT is `billing_run.created`, the MODIFY that completes it
 * `billing_run.completed`; its other changes (a queued run started, each client's count) make
 * none, so the completion's predecessor is the created event's version, 1.
 */
function billingRunChange({ eventName, oldItem, newItem }: Images): Change | undefined {
  if (eventName === 'INSERT' && newItem) return { action: 'created', item: newItem, after: null };
  if (eventName === 'MODIFY' && oldItem && newItem && dataOfItem(newItem).status === 'completed' && dataOfItem(oldItem).status !== 'completed') {
    return { action: 'completed', item: newItem, after: 1 };
  }
  return undefined;
}

export function draftOf(record: StreamChange): EventDraft | undefined {
  const image = record.dynamodb;
  if (!image?.Keys) return undefined;
  const keys = itemOfImage(image.Keys) as { PK?: unknown; SK?: unknown };
  const workspace = typeof keys.PK === 'string' ? RESOURCE_KEY.exec(keys.PK) : null;
  const sort = typeof keys.SK === 'string' ? RESOURCE_SORT_KEY.exec(keys.SK) : null;
  if (!workspace || !sort) return undefined;
  const kind = sort[1]!;
  if (!Object.hasOwn(SOURCES, kind)) return undefined;
  const toObject = SOURCES[kind]!;
  const images = {
    eventName: record.eventName,
    oldItem: image.OldImage ? itemOfImage(image.OldImage) : undefined,
    newItem: image.NewImage ? itemOfImage(image.NewImage) : undefined,
  };
  const change = (kind === INVOICE_TYPE ? invoiceChange : kind === BILLING_RUN_TYPE ? billingRunChange : SINGLETONS.has(kind) ? singletonChange : plainChange)(images);
  if (!change) return undefined;
  const { action, item } = change;
  const object = toObject(item);
  let previous: Record<string, unknown> | undefined;
  if (hasPreviousAttributes(action)) {
    // A singleton's first change is from its defaults: the object of an item that holds none of its fields.
    previous = previousAttributes(toObject(images.oldItem ?? { data: { id: object.id, workspace_id: workspace[1] } }), object);
    if (previous === undefined) return undefined; // a counter or another internal attribute
  }
  const version = item[VERSION_ATTRIBUTE];
  const order = change.after === undefined ? '' : `#after#${change.after === null ? 'none' : `v${change.after}`}`;
  return {
    workspaceId: workspace[1]!,
    kind,
    objectId: sort[2]!,
    type: `${object.object}.${action}` as EventType,
    // A delete's time and request come from its deletion record (consumer.ts).
    createdAt: action === 'deleted' ? undefined : str(dataOfItem(item)[record.eventName === 'INSERT' ? 'created_at' : 'updated_at']),
    requestId: action === 'deleted' ? undefined : strOrNull(item[REQUEST_ID_ATTRIBUTE]),
    object,
    ...(previous === undefined ? {} : { previousAttributes: previous }),
    changeKey: version === undefined ? `${keys.SK}#${action}#${record.eventID}` : `${keys.SK}#${action}#v${String(version)}${order}`,
  };
}

/** The old value of every API field whose value changed; undefined when none did. */
export function previousAttributes(before: ApiObject, after: ApiObject): Record<string, unknown> | undefined {
  const previous: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name] ?? null) !== JSON.stringify(after[name] ?? null)) previous[name] = before[name] ?? null;
  }
  return Object.keys(previous).length === 0 ? undefined : previous;
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const strOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
