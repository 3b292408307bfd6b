import { defineHandler, ok } from '../../shared/http/handler.ts';
import { ListTimeEntriesQuery } from '../../shared/schemas/resources.ts';
import { listTimeEntries } from '../../shared/domain/time-entries.ts';

export const handler = defineHandler('listTimeEntries', async (req) => ok(await listTimeEntries(req.caller, req.query(ListTimeEntriesQuery))));
