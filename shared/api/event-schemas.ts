/** The events feed's query (events.md); the event object is in object-schemas.ts. */
import * as v from 'valibot';
import { ULID_PATTERN } from '../core/ids.ts';
import { listBase } from '../model/define.ts';
import { resourceOf } from '../model/resources.ts';
import { EVENT_FEED, EVENT_OBJECTS, EVENT_TYPES } from '../model/event-types.ts';
import { enumOf } from '../model/fields.ts';

const { limit, cursor } = listBase();
const SOURCES = EVENT_OBJECTS.map((kind) => resourceOf(kind));
const nouns = SOURCES.map((r) => r.noun);
const sourceNames = `${nouns.slice(0, -1).join(', ')} or ${nouns.at(-1)}`;
const eventId = new RegExp(`^${EVENT_FEED.idPrefix}${ULID_PATTERN}$`);
const objectId = new RegExp(`^(${SOURCES.map((r) => r.idPrefix).join('|')})${ULID_PATTERN}$`);

export const ListEventsQuery = v.strictObject({
  limit,
  cursor,
  type: v.optional(enumOf('type', EVENT_TYPES)),
  object_id: v.optional(
    v.pipe(
      v.string('object_id must be a string'),
      v.regex(objectId, `object_id must be the id of a ${sourceNames} (${SOURCES.map((r) => `${r.idPrefix}…`).join(', ')})`),
    ),
  ),
  after: v.optional(
    v.pipe(
      v.string('after must be a string'),
      v.regex(eventId, `after must be an event id (${EVENT_FEED.idPrefix}…): the id of the last event you read`),
      v.metadata({ description: 'Sync mode: the events after this one, oldest first' }),
    ),
  ),
});
export type ListEventsInput = v.InferOutput<typeof ListEventsQuery>;

/**
 * The feed's CSV (contract, "CSV and bulk import"): the event's fields, its `data` as two columns,
 * `data.object` and `data.previous_attributes` (empty on *.created and *.deleted), always both.
 */
export const EVENT_CSV_COLUMNS = ['object', 'id', 'type', 'created_at', 'workspace_id', 'request_id', 'data.object', 'data.previous_attributes'] as const;
export const eventCsv = {
  columns: () => EVENT_CSV_COLUMNS,
  row: (event: Record<string, unknown>) => {
    const data = event.data as { object: unknown; previous_attributes?: unknown };
    return { ...event, 'data.object': data.object, 'data.previous_attributes': data.previous_attributes ?? null };
  },
};

/** The feed as its list function passes it to the handler frame: its names, and its query. */
export const eventFeedSchemas = { ...EVENT_FEED, listQuery: ListEventsQuery } as const;
export type EventFeedSchemas = typeof eventFeedSchemas;
