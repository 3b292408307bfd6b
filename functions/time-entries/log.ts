import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { logTimeEntry } from '../../shared/domain/time-entries.ts';
import { timeEntrySchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('logTimeEntry', 'create', timeEntrySchemas, (req) => logTimeEntry(req.caller, req.body()));
