import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { logTimeEntry } from '../../shared/domain/time-entries.ts';
import { timeEntrySchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('logTimeEntry', timeEntrySchemas, async (req) => created(await logTimeEntry(req.caller, req.body()), req.path));
