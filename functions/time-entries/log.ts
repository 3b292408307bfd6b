import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { LogTimeEntryBody } from '../../shared/schemas/resources.ts';
import { logTimeEntry } from '../../shared/domain/time-entries.ts';

export const handler = defineWriteHandler('logTimeEntry', async (req) => {
  const entry = await logTimeEntry(req.caller, req.body(LogTimeEntryBody));
  return created(entry, req.path);
});
