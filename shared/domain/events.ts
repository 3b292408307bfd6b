/**
 * The events feed (events.md). Newest first by default; with `after=` (sync mode), the events
 * after that one, oldest first. Both read the workspace's event partition strongly consistent, in
 * id order, which is the order of the workspace's event sequence: events only ever join at its
 * end, so a reader following `after=` misses none and sees none twice
 * (docs/decisions/0009-event-feed-order.md). The filters `type` and `object_id` are applied to
 * the read, and pages are kept full.
 */
import { eventListSource, keys } from '../data/keys.ts';
import { invalidParam, notFound } from '../errors.ts';
import { isWellFormedId } from '../ids.ts';
import type { ListEventsInput } from '../schemas/events.ts';
import { feedFilter, getEventItem, isKept, storedOf } from '../events/store.ts';
import { EVENT_FEED, EVENT_RETENTION_DAYS, type Event } from '../events/types.ts';
import type { CallerContext } from './context.ts';
import { listPage, type ListEnvelope } from './paging.ts';

export async function retrieveEvent(ctx: CallerContext, id: string, now = new Date()): Promise<Event> {
  if (!isWellFormedId(EVENT_FEED.idPrefix, id)) throw notFound(EVENT_FEED.kind, id);
  const item = await getEventItem(ctx.workspaceId, id);
  // Another workspace's event is not in this workspace's partition: the same 404 as an unknown id.
  if (!item || !isKept(item, now)) throw notFound(EVENT_FEED.kind, id);
  return storedOf(item).event;
}

export async function listEvents(ctx: CallerContext, query: ListEventsInput, now = new Date()): Promise<ListEnvelope<Event>> {
  // Sync mode's first page starts after the named event; the next pages' cursors carry on from there.
  let start: string | undefined;
  if (query.after !== undefined && query.cursor === undefined) {
    const known = await getEventItem(ctx.workspaceId, query.after);
    if (!known || !isKept(known, now)) {
      throw invalidParam(
        'after',
        `after names no event that is still kept (events are kept ${EVENT_RETENTION_DAYS} days): re-list the resources you sync, then start again from the newest event (GET /api/v1/events?limit=1)`,
      );
    }
    start = keys.event(ctx.workspaceId, query.after).SK;
  }
  return listPage({
    // `after` is part of the binding: a sync-mode cursor does not continue a newest-first list, nor the reverse.
    binding: { list: EVENT_FEED.collection, workspaceId: ctx.workspaceId, filters: { type: query.type, object_id: query.object_id, after: query.after } },
    source: eventListSource(ctx.workspaceId),
    limit: query.limit,
    cursor: query.cursor,
    filter: feedFilter({ type: query.type, objectId: query.object_id }, now),
    ...(start === undefined ? {} : { start }),
    ascending: query.after !== undefined,
    toResource: (item) => storedOf(item).event,
  });
}
