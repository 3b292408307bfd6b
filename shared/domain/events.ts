/**
 * The events feed (events.md). Newest first by default; with `after=` (sync mode), the events
 * after that one, oldest first. Every read is strongly consistent, in id order, which is the order
 * of the workspace's event sequence: events only ever join at its end, so a reader following
 * `after=` misses none and sees none twice (docs/decisions/0009-event-feed-order.md).
 *
 * A token sees only the events of the collections it can read. A page reads one partition: the
 * whole feed, or the view that holds exactly what was asked (one type, one object); a token that
 * can read some collections only merges their views. No page reads an event only to skip it
 * (docs/decisions/0016-event-views.md).
 */
import { eventListSource, keys, type EventView } from '../data/keys.ts';
import { invalidParam, notFound } from '../errors.ts';
import { isWellFormedId } from '../ids.ts';
import type { ListEventsInput } from '../schemas/events.ts';
import { feedFilter, getEventItem, isKept, readSequence, storedOf } from '../events/store.ts';
import { EVENT_FEED, EVENT_OBJECTS, EVENT_RETENTION_DAYS, type Event } from '../events/types.ts';
import { objectOfId, objectOfType, requireReadable, requireSomeReadable } from '../events/visibility.ts';
import type { CallerContext } from './context.ts';
import { listMergedPage, listPage, type ListEnvelope } from './paging.ts';

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

  // Sync mode's first page starts after the named event; the next pages' cursors carry on from there.
  let start: string | undefined;
  if (query.after !== undefined && query.cursor === undefined) {
    const known = await getEventItem(ctx.workspaceId, query.after);
    // An event the token may not read is, to it, no event at all.
    if (!known || !isKept(known, now) || !readable.includes(objectOfType(storedOf(known).event.type))) {
      throw invalidParam(
        'after',
        `after names no event that is still kept (events are kept ${EVENT_RETENTION_DAYS} days): re-list the resources you sync, then start again from the newest event (GET /api/v1/events?limit=1)`,
      );
    }
    start = keys.event(ctx.workspaceId, query.after).SK;
  }

  // The one partition (or the readable collections' views) holding exactly the events asked for.
  const views: (EventView | undefined)[] =
    query.object_id !== undefined ? [{ by: 'object_id', value: query.object_id }]
    : query.type !== undefined ? [{ by: 'type', value: query.type }]
    : readable.length === EVENT_OBJECTS.length ? [undefined]
    : readable.map((object) => ({ by: 'object', value: object }));
  const page = {
    // `after` is part of the binding: a sync-mode cursor does not continue a newest-first list, nor the
    // reverse; so is what the token could read, so a cursor never continues another set of collections.
    binding: {
      list: EVENT_FEED.collection,
      workspaceId: ctx.workspaceId,
      filters: { type: query.type, object_id: query.object_id, after: query.after, readable: readable.join(' ') },
    },
    limit: query.limit,
    cursor: query.cursor,
    // An object's view holds its few events of every type: a type filter there skips next to nothing.
    filter: feedFilter({ type: query.object_id === undefined ? undefined : query.type }, now),
    ...(start === undefined ? {} : { start }),
    ascending: query.after !== undefined,
    toResource: (item: Record<string, unknown>) => storedOf(item).event,
  };
  if (views.length === 1) return listPage({ ...page, source: eventListSource(ctx.workspaceId, views[0]) });
  // Views read one after another may see different prefixes of the sequence: sync mode shows only
  // what every view held when the page began (the sequence read first), so nothing joins behind it.
  const horizon = query.after === undefined ? undefined : await readSequence(ctx.workspaceId);
  return listMergedPage({
    ...page,
    sources: views.map((view) => eventListSource(ctx.workspaceId, view)),
    ...(horizon === undefined ? {} : { keep: (item: Record<string, unknown>) => Number(item.sequence) <= horizon }),
  });
}
