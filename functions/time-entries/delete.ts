import { defineDeleteHandler } from '../../shared/http/write-handler.ts';
import { deleteTimeEntry } from '../../shared/domain/time-entries.ts';
import { timeEntry } from '../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deleteTimeEntry', timeEntry, (req) => deleteTimeEntry(req.caller, req.id(), req.expectedVersion()));
