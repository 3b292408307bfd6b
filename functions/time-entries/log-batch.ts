import { defineCreateManyHandler } from '../../shared/http/write-handler.ts';
import { logTimeEntryBatch, timeEntriesNow } from '../../shared/domain/time-entry-batch.ts';
import { withCreateMany } from '../../shared/model/define.ts';
import { timeEntryFields } from '../../shared/model/resources.ts';

export const handler = defineCreateManyHandler('logTimeEntryBatch', withCreateMany(timeEntryFields), (req) => logTimeEntryBatch(req.caller, req.body()), timeEntriesNow);
