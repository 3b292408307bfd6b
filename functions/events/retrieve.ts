import { defineHandler, ok } from '../../shared/http/handler.ts';
import { retrieveEvent } from '../../shared/domain/events.ts';

export const handler = defineHandler('retrieveEvent', async (req) => ok(await retrieveEvent(req.caller, req.id())));
