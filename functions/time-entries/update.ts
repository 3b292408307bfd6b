import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateTimeEntry } from '../../shared/domain/time-entries.ts';
import { timeEntrySchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateTimeEntry', 'update', timeEntrySchemas, (req) => updateTimeEntry(req.caller, req.id(), req.body(), req.expectedVersion()));
