import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { timeEntrySchemas } from '../../shared/resources/time-entry.ts';

export const handler = defineHandler('listTimeEntries', timeEntrySchemas, async (req) => ok(await list(req.caller, timeEntrySchemas, req.query())));
