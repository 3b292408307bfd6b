/**
 * The events feed (events.md). Newest first by default; with `after=` (sync mode), the events
 * after that one, oldest first. Both read the workspace's event partition strongly consistent,
 * in id order, which is the workspace's sequence order (docs/decisions/0010-event-feed-order.md).
 * Filters (`type`, `object_id`) are applied to the read and pages are kept full.
 */
import { keys, listSources } from '../data/keys.ts';
import { invalidParam, notFound } from '../errors.ts';
import { isWellFormedId } from '../ids.ts';
import type { ListEventsInput } from '../schemas/events.ts';
import { getEventItem, storedOf } from '../events/store.ts';
import { EVENT_RETENTION_DAYS, type Event } from '../events/types.ts';
import type { CallerContext } from './context.ts';
import { listPage, type ListEnvelope } from './paging.ts';

const isKept = (item: Record<string, unknown>, nowSeconds: number) => Number(item.expires_at) > nowSeconds;

export async function retrieveEvent(ctx: CallerContext, id: string, now = new Date()): Promise<Event> {
  if (!isWellFormedId('event', id)) throw notFound('event', id);
  const item = await getEventItem(ctx.workspaceId, id);
  if (!item || !isKept(item, now.getTime() / 1000)) throw notFound('event', id);
  return storedOf(item).event;
}

export async function listEvents(ctx: CallerContext, query: ListEventsInput, now = new Date()): Promise<ListEnvelope<Event>> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  let start: string | undefined;
  if (query.after !== undefined && query.cursor === undefined) {
    const known = await getEventItem(ctx.workspaceId, query.after);
    if (!known || !isKept(known, nowSeconds)) {
      throw invalidParam(
        'after',
        `after names no event that is still kept (events are kept ${EVENT_RETENTION_DAYS} days): re-list the resources you sync, then start again from the newest event (GET /api/v1/events?limit=1)`,
      );
    }
    start = keys.event(ctx.workspaceId, query.after).SK;
  }
  // TTL deletes expired events within days, not at the second: the feed hides them itself.
  const conditions = ['#expires_at > :now'];
  const names: Record<string, string> = { '#expires_at': 'expires_at' };
  const values: Record<string, unknown> = { ':now': nowSeconds };
  for (const [name, value] of [['type', query.type], ['object_id', query.object_id]] as const) {
    if (value === undefined) continue;
    conditions.push(`#${name} = :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  }
  return listPage({
    binding: { list: 'events', workspaceId: ctx.workspaceId, filters: { type: query.type, object_id: query.object_id, after: query.after } },
    source: listSources.events(ctx.workspaceId),
    limit: query.limit,
    cursor: query.cursor,
    filter: { expression: conditions.join(' AND '), names, values },
    ...(start === undefined ? {} : { start }),
    ascending: query.after !== undefined,
    toResource: (item) => storedOf(item).event,
  });
}
