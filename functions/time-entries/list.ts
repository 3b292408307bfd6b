import { defineHandler, ok } from '../../shared/http/handler.ts';
import { listTimeEntries } from '../../shared/domain/time-entries.ts';
import { timeEntrySchemas } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineHandler('listTimeEntries', 'list', timeEntrySchemas, async (req) => ok(await listTimeEntries(req.caller, req.query())));
