/**
 * The events feed (events.md). Newest first by default; with `after=` (sync mode), the events
 * after that one, oldest first (shared/events/sync.ts): every read is strongly consistent, in the
 * order of the workspace's event sequence, and stops before an event whose predecessor it has not
 * read, so a reader following `after=` misses none and sees none twice (decisions 0009, 0018).
 *
 * A token sees only the events of the collections it can read. A page reads one partition: the
 * whole feed, or the view that holds exactly what was asked (one type, one object); a token that
 * can read some collections only merges their types' views. No page reads an event only to skip
 * it (docs/decisions/0016-event-views.md).
 */
import * as keys from '../data/keys.ts';
import { eventListSource, type EventView } from '../data/keys.ts';
import { invalidParam, notFound } from '../core/errors.ts';
import { isWellFormedId, orderOfId } from '../core/ids.ts';
import type { ListEventsInput } from '../api/event-schemas.ts';
import { changeAtOrBefore, changeSortKey, eventItemInView, feedFilter, getEventItem, isKept, objectView, storedOf, typeSlot, typeView } from '../events/store.ts';
import { syncPage } from '../events/sync.ts';
import { EVENT_FEED, EVENT_OBJECTS, EVENT_RETENTION_DAYS, EVENT_TYPES, type Event } from '../model/event-types.ts';
import { objectOfId, objectOfType, requireReadable, requireSomeReadable } from '../events/visibility.ts';
import type { CallerContext } from './context.ts';
import { listMergedPage, listPage, type ListEnvelope } from '../data/paging.ts';

export async function retrieveEvent(ctx: CallerContext, id: string, now = new Date()): Promise<Event> {
  requireSomeReadable(ctx.scopes);
  if (!isWellFormedId(EVENT_FEED.idPrefix, id)) throw notFound(EVENT_FEED.kind, id);
  const item = await getEventItem(ctx.workspaceId, id);
  // Another workspace's event is not in this workspace's partition: the same 404 as an unknown id.
  if (!item || !isKept(item, now)) throw notFound(EVENT_FEED.kind, id);
  const { event } = storedOf(item);
  requireReadable(ctx.scopes, objectOfType(event.type), `Event ${id} (${event.type})`);
  return event;
}

export async function listEvents(ctx: CallerContext, query: ListEventsInput, now = new Date()): Promise<ListEnvelope<Event>> {
  const readable = requireSomeReadable(ctx.scopes);
  if (query.type !== undefined) requireReadable(ctx.scopes, objectOfType(query.type), `type=${query.type}`);
  const idObject = query.object_id === undefined ? undefined : objectOfId(query.object_id);
  if (idObject !== undefined) requireReadable(ctx.scopes, idObject, `object_id=${query.object_id}`);

  // The one partition (or the readable collections' type views) holding exactly the events asked for.
  const views: (EventView | undefined)[] =
    query.object_id !== undefined ? [objectView(query.object_id)]
    : query.type !== undefined ? [typeView(query.type)]
    : readable.length === EVENT_OBJECTS.length ? [undefined]
    : EVENT_TYPES.filter((type) => readable.includes(objectOfType(type))).map(typeView);

  // Sync mode's first page starts after the named event; the next pages' cursors carry on from there.
  let known: Record<string, unknown> | undefined;
  if (query.after !== undefined && query.cursor === undefined) {
    const after = query.after;
    // An event read in a view may not be in the feed yet (decision 0018): the views this list reads say where it is.
    known =
      (await getEventItem(ctx.workspaceId, after)) ??
      (await Promise.all(views.map((view) => view && eventItemInView(ctx.workspaceId, view, after)))).find((item) => item !== undefined);
    // An event the token may not read is, to it, no event at all.
    if (!known || !isKept(known, now) || !readable.includes(objectOfType(storedOf(known).event.type))) {
      throw invalidParam(
        'after',
        `after names no event that is still kept (events are kept ${EVENT_RETENTION_DAYS} days): re-list the resources you sync, then start again from the newest event (GET /api/v1/events?limit=1)`,
      );
    }
  }

  const sources = views.map((view) => eventListSource(ctx.workspaceId, view));
  // `after` is part of the binding: a sync-mode cursor does not continue a newest-first list, nor the
  // reverse; so is what the token could read, so a cursor never continues another set of collections.
  const binding = {
    list: EVENT_FEED.collection,
    workspaceId: ctx.workspaceId,
    filters: { type: query.type, object_id: query.object_id, after: query.after, readable: readable.join(' ') },
  };
  const toResource = (item: Record<string, unknown>) => storedOf(item).event;
  // An object's view holds its few events of every type: a type filter there skips next to nothing.
  const typeFilter = query.object_id === undefined ? undefined : query.type;

  if (query.after !== undefined) {
    let start: { position: string | undefined; sequence: number } = { position: undefined, sequence: 0 };
    if (known) {
      const sequence = Number(known.sequence);
      const position =
        query.object_id === undefined ? keys.event(ctx.workspaceId, query.after).SK
        : storedOf(known).event.data.object.id === query.object_id ? changeSortKey(String(known.position))
        : await changeAtOrBefore(ctx.workspaceId, query.object_id, sequence).then((record) => record && String(record.SK));
      start = { position, sequence };
    }
    return syncPage({
      binding,
      workspaceId: ctx.workspaceId,
      limit: query.limit,
      cursor: query.cursor,
      sources: views.map((view, i) => ({
        source: sources[i]!,
        chain: view === undefined ? { kind: 'feed' } : view.by === 'type' ? { kind: 'type', slot: typeSlot(view.value) } : { kind: 'object' },
      })),
      start,
      sequenceOf: (position) => orderOfId(EVENT_FEED.idPrefix, position.slice(position.indexOf('#') + 1)),
      show: (item) => isKept(item, now) && (typeFilter === undefined || item.type === typeFilter),
      toResource,
      now,
    });
  }
  const page = {
    binding,
    limit: query.limit,
    cursor: query.cursor,
    filter: feedFilter({ type: typeFilter, changes: query.object_id !== undefined }, now),
    toResource,
  };
  if (sources.length === 1) return listPage({ ...page, source: sources[0]! });
  return listMergedPage({ ...page, sources });
}
