import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listEvents } from '../../shared/domain/events.ts';
import { eventFeedSchemas } from '../../shared/schemas/events.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listEvents', 'list', eventFeedSchemas, async (req) => ok(await listEvents(req.caller, req.query())));
