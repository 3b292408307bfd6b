import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { logTimeEntry } from '../../shared/domain/time-entries.ts';
import { withCreate } from '../../shared/model/define.ts';
import { timeEntryFields } from '../../shared/model/resources.ts';

export const handler = defineCreateHandler('logTimeEntry', withCreate(timeEntryFields), (req) => logTimeEntry(req.caller, req.body()));
