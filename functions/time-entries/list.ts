import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { timeEntrySchemas } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listTimeEntries', timeEntrySchemas, async (req) => ok(await list(req.caller, timeEntrySchemas, req.query())));
