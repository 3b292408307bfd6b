import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createProject } from '../../shared/domain/projects.ts';

export const handler = defineWriteHandler('createProject', async (req) => created(await createProject(req.caller, req.body()), req.path));
