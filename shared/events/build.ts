/**
 * From a change of the table (a DynamoDB Streams record) to the event it means, if any.
 * Pure: no I/O. Only API resources (clients, projects, time entries) make events; counters,
 * idempotency records, registry items, webhook endpoints and the events' own items do not. A
 * change that touches no API field (a deletion-guard counter) makes none either.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { toClient } from '../domain/clients.ts';
import { toProject } from '../domain/projects.ts';
import { toTimeEntry } from '../domain/time-entries.ts';
import type { Kind } from '../data/keys.ts';
import type { ApiObject, EventType } from './types.ts';

/** The resources that make events: their kind in the key schema, and item → API object. */
const SOURCES: Partial<Record<Kind, (item: Record<string, unknown>) => ApiObject>> = {
  CLIENT: (item) => toClient(item) as unknown as ApiObject,
  PROJECT: (item) => toProject(item) as unknown as ApiObject,
  TIME_ENTRY: (item) => toTimeEntry(item) as unknown as ApiObject,
};

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
  const kind = sort[1] as Kind;
  const toObject = SOURCES[kind];
  if (!toObject) return undefined;
  const workspaceId = workspace[1]!;
  const oldItem = image.OldImage ? unmarshall(image.OldImage) : undefined;
  const newItem = image.NewImage ? unmarshall(image.NewImage) : undefined;
  const base = { workspaceId, kind, objectId: sort[2]! };
  const changeKey = (item: Record<string, unknown>, name: string) =>
    item.version === undefined ? `${keys.SK}#${name}#${record.eventID}` : `${keys.SK}#${name}#v${String(item.version)}`;
  const typeOf = (action: string) => `${toObject(oldItem ?? newItem ?? {}).object}.${action}` as EventType;

  if (record.eventName === 'INSERT' && newItem) {
    return {
      ...base,
      type: typeOf('created'),
      createdAt: str(newItem.created_at),
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
      createdAt: str(newItem.updated_at),
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

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const strOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
