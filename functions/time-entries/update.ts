import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateTimeEntry } from '../../shared/domain/time-entries.ts';
import { withUpdate } from '../../shared/model/define.ts';
import { timeEntryFields } from '../../shared/model/resources.ts';

export const handler = defineWriteHandler('updateTimeEntry', withUpdate(timeEntryFields), (req) => updateTimeEntry(req.caller, req.id(), req.body(), req.expectedVersion()));
