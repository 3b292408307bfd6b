import { defineHandler, ok } from '../../shared/http/handler.ts';
import { retrieveEvent } from '../../shared/domain/event-feed.ts';
import { EVENT_FEED } from '../../shared/model/event-types.ts';

export const handler = defineHandler('retrieveEvent', EVENT_FEED, async (req) => ok(await retrieveEvent(req.caller, req.id())));
