import { defineHandler, ok } from '../../shared/http/handler.ts';
import { retrieveEvent } from '../../shared/domain/events.ts';
import { EVENT_FEED } from '../../shared/events/types.ts';

export const handler = defineHandler('retrieveEvent', 'retrieve', EVENT_FEED, async (req) => ok(await retrieveEvent(req.caller, req.id())));
