import { current, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateProject } from '../../shared/domain/projects.ts';

export const handler = defineWriteHandler('updateProject', async (req) => current(await updateProject(req.caller, req.id(), req.body(), req.expectedVersion())));
