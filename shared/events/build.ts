/**
 * From a change of the table (a DynamoDB Streams record) to the event it means, if any.
 * Pure: no I/O. Only API resources (clients, projects, time entries) make events; counters,
 * idempotency records, registry items, webhook endpoints and the events' own items do not. A
 * change that touches no API field (a deletion-guard counter) makes none either.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { objectOf } from '../resources/objects.ts';
import { resourceOf } from '../resources/registry.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { EVENT_OBJECTS, type ApiObject, type EventType } from './types.ts';

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

/** A resource item's key: `WS#<workspace>` / `<KIND>#<id>`, nothing after. */
const RESOURCE_KEY = /^WS#([A-Za-z0-9_-]{1,64})$/;
const RESOURCE_SORT_KEY = /^([A-Z_]+)#([A-Za-z0-9_]+)$/;

export interface StreamChange {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | string;
  dynamodb?: {
    Keys?: Record<string, AttributeValue>;
    NewImage?: Record<string, AttributeValue>;
    OldImage?: Record<string, AttributeValue>;
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
  /** Names this change for good: a redelivered record has the same, so it makes no second event. */
  changeKey: string;
}

export function draftOf(record: StreamChange): EventDraft | undefined {
  const image = record.dynamodb;
  if (!image?.Keys) return undefined;
  const keys = unmarshall(image.Keys) as { PK?: unknown; SK?: unknown };
  const workspace = typeof keys.PK === 'string' ? RESOURCE_KEY.exec(keys.PK) : null;
  const sort = typeof keys.SK === 'string' ? RESOURCE_SORT_KEY.exec(keys.SK) : null;
  if (!workspace || !sort) return undefined;
  const kind = sort[1]!;
  if (!Object.hasOwn(SOURCES, kind)) return undefined;
  const toObject = SOURCES[kind]!;
  const workspaceId = workspace[1]!;
  const oldItem = image.OldImage ? unmarshall(image.OldImage) : undefined;
  const newItem = image.NewImage ? unmarshall(image.NewImage) : undefined;
  const base = { workspaceId, kind, objectId: sort[2]! };
  const changeKey = (item: Record<string, unknown>, name: string) =>
    item[VERSION_ATTRIBUTE] === undefined ? `${keys.SK}#${name}#${record.eventID}` : `${keys.SK}#${name}#v${String(item[VERSION_ATTRIBUTE])}`;
  const typeOf = (action: string) => `${toObject(oldItem ?? newItem ?? {}).object}.${action}` as EventType;

  if (record.eventName === 'INSERT' && newItem) {
    return {
      ...base,
      type: typeOf('created'),
      createdAt: str(dataOf(newItem).created_at),
      requestId: strOrNull(newItem.request_id),
      object: toObject(newItem),
      changeKey: changeKey(newItem, 'created'),
    };
  }
  if (record.eventName === 'MODIFY' && newItem && oldItem) {
    const before = toObject(oldItem);
    const after = toObject(newItem);
    const previous = previousAttributes(before, after);
    if (previous === undefined) return undefined; // a counter or another internal attribute
    return {
      ...base,
      type: typeOf('updated'),
      createdAt: str(dataOf(newItem).updated_at),
      requestId: strOrNull(newItem.request_id),
      object: after,
      previousAttributes: previous,
      changeKey: changeKey(newItem, 'updated'),
    };
  }
  if (record.eventName === 'REMOVE' && oldItem) {
    return { ...base, type: typeOf('deleted'), createdAt: undefined, requestId: undefined, object: toObject(oldItem), changeKey: changeKey(oldItem, 'deleted') };
  }
  return undefined;
}

/** The old value of every API field whose value changed; undefined when none did. */
export function previousAttributes(before: ApiObject, after: ApiObject): Record<string, unknown> | undefined {
  const previous: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name] ?? null) !== JSON.stringify(after[name] ?? null)) previous[name] = before[name] ?? null;
  }
  return Object.keys(previous).length === 0 ? undefined : previous;
}

/** The API fields of an item. */
const dataOf = (item: Record<string, unknown>) => (item[DATA_ATTRIBUTE] ?? {}) as Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const strOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
