import { defineHandler, ok } from '../../shared/http/handler.ts';
import { listEvents } from '../../shared/domain/events.ts';

export const handler = defineHandler('listEvents', async (req) => ok(await listEvents(req.caller, req.query())));
