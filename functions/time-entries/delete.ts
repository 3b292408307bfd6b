import { defineHandler, ok } from '../../shared/http/handler.ts';
import { deleteTimeEntry } from '../../shared/domain/time-entries.ts';

export const handler = defineHandler('deleteTimeEntry', async (req) => ok(await deleteTimeEntry(req.caller, req.id(), req.expectedVersion())));
