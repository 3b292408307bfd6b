/**
 * You see only what you could read (contract, "Authentication and workspaces"): the events of a
 * collection are visible to a token that holds that collection's read scope, in the feed and in
 * what a webhook endpoint it creates or updates may subscribe to.
 */
import { insufficientScope } from '../core/errors.ts';
import { RESOURCES, resourceOf } from '../model/resources.ts';
import type { AnyResource } from '../model/declare.ts';
import { EVENT_OBJECTS, type EventObject, type EventType } from '../model/event-types.ts';

/** The read scope of an object's collection, of the collection it lives under (a payment's: invoices:read), or of the one whose scopes it takes (a billing run's). */
export const readScopeOf = (object: EventObject) => {
  const resource: AnyResource = RESOURCES[object];
  return `${resource.scopesOf ?? (resource.parent ? resourceOf(resource.parent) : resource).collection}:read`;
};

/** The objects whose events a token with these scopes may see, in EVENT_OBJECTS order. */
export const readableObjects = (scopes: readonly string[]): EventObject[] => EVENT_OBJECTS.filter((object) => scopes.includes(readScopeOf(object)));

export const objectOfType = (type: EventType): EventObject => type.slice(0, type.lastIndexOf('.')) as EventObject;

/** The object an id names, by its prefix (the feed's `object_id` is checked against them all). */
export const objectOfId = (id: string): EventObject | undefined => EVENT_OBJECTS.find((object) => id.startsWith(RESOURCES[object].idPrefix));

/** 403 unless the token can read this object's collection. */
export function requireReadable(scopes: readonly string[], object: EventObject, what: string): void {
  const scope = readScopeOf(object);
  if (!scopes.includes(scope)) throw insufficientScope(scope, `${what} needs the scope '${scope}': a token sees only the events of the collections it can read`);
}

/** 403 when the token can read none of the collections that make events: the feed would hold nothing it may see. */
export function requireSomeReadable(scopes: readonly string[]): EventObject[] {
  const readable = readableObjects(scopes);
  if (readable.length === 0) {
    const all = [...new Set(EVENT_OBJECTS.map(readScopeOf))];
    throw insufficientScope(all.join(' '), `The events feed shows the events of the collections the token can read: it needs one of ${all.join(', ')} beside events:read`);
  }
  return readable;
}
