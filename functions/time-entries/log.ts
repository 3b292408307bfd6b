import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { logTimeEntry } from '../../shared/domain/time-entries.ts';

export const handler = defineWriteHandler('logTimeEntry', async (req) => created(await logTimeEntry(req.caller, req.body()), req.path));
