import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieveTimeEntry } from '../../shared/domain/time-entries.ts';

export const handler = defineHandler('retrieveTimeEntry', async (req) => current(await retrieveTimeEntry(req.caller, req.id())));
