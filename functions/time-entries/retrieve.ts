import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { timeEntry } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveTimeEntry', timeEntry, async (req) => current(await retrieve(req.caller, timeEntry, req.id())));
