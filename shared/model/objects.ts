/**
 * A resource's stored item and its API object: the last of the registry's files, read top-down
 * as declare.ts (plain declarations) → define.ts (how field schemas are built) → resources.ts
 * (each resource, declared with its schemas) → schemas.ts (every resource's schemas, by kind) →
 * here. The object types come from the schemas (a type-only import); the code reads only the
 * plain declaration, so a function that maps items carries no field schema.
 */
import type { AnyResource } from './declare.ts';
import type { ObjectsByKind } from './schemas.ts';

/** The object the API returns for a resource (typed by its schemas, ./schemas.ts). */
export type ObjectOf<R extends { kind: string }> = R['kind'] extends keyof ObjectsByKind
  ? ObjectsByKind[R['kind']]
  : { object: R['kind']; id: string; workspace_id: string; created_at: string; updated_at: string } & Record<string, unknown>;

export type Client = ObjectsByKind['client'];
export type Project = ObjectsByKind['project'];
export type TimeEntry = ObjectsByKind['time_entry'];
export type Invoice = ObjectsByKind['invoice'];
export type WebhookEndpoint = ObjectsByKind['webhook_endpoint'];

/** The stored item's API part (`data`): exactly the declared fields, absent ones null. */
export function dataOf(
  resource: Pick<AnyResource, 'fieldNames' | 'readOnly'>,
  ids: { id: string; workspaceId: string },
  input: Record<string, unknown>,
  at: string,
): Record<string, unknown> {
  const data: Record<string, unknown> = { id: ids.id };
  for (const name of resource.fieldNames) {
    const readOnly = resource.readOnly?.[name];
    data[name] = readOnly === 'created_at' ? at : readOnly === 'server' ? null : (input[name] ?? null);
  }
  return { ...data, workspace_id: ids.workspaceId, created_at: at, updated_at: at };
}

/**
 * A stored field as the API reads it: null when absent, or what the declaration says an item
 * stored before the field (or before its elements' members) reads as. Every object is read through
 * it (objectOf), and so is whatever the domain reads of such a field (an invoice's lines).
 */
export function storedField(resource: Pick<AnyResource, 'storedDefaults' | 'storedElementDefaults' | 'storedDerived'>, data: Record<string, unknown>, name: string): unknown {
  const value = data[name] ?? resource.storedDerived?.[name]?.(data) ?? resource.storedDefaults?.[name] ?? null;
  const defaults = resource.storedElementDefaults?.[name];
  return defaults && Array.isArray(value) ? value.map((element: object) => ({ ...defaults, ...element })) : value;
}

/** The object's fields in the order objectOf answers them (a CSV page's header row). */
export const objectColumns = (resource: Pick<AnyResource, 'fieldNames' | 'unchanging' | 'singleton'>): string[] => [
  'object',
  'id',
  ...resource.fieldNames,
  'workspace_id',
  ...(resource.singleton ? [] : ['created_at']),
  ...(resource.unchanging ? [] : ['updated_at']),
];

/** The object of a stored item, fields in their declared order. */
export function objectOf<R extends Pick<AnyResource, 'kind' | 'fieldNames' | 'storedDefaults' | 'storedElementDefaults' | 'storedDerived' | 'unchanging' | 'singleton'>>(
  resource: R,
  item: Record<string, unknown>,
): ObjectOf<R> {
  const data = (item.data ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { object: resource.kind, id: data.id };
  for (const name of resource.fieldNames) out[name] = storedField(resource, data, name);
  out.workspace_id = data.workspace_id;
  if (!resource.singleton) out.created_at = data.created_at;
  if (!resource.unchanging) out.updated_at = data.updated_at ?? null;
  return out as ObjectOf<R>;
}
