import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listEvents } from '../../shared/domain/event-feed.ts';
import { eventCsv, eventFeedSchemas } from '../../shared/api/event-schemas.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listEvents', eventFeedSchemas, async (req) => ok(await listEvents(req.caller, req.query())), eventCsv);
