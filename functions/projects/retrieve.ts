import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieveProject } from '../../shared/domain/projects.ts';

export const handler = defineHandler('retrieveProject', async (req) => current(await retrieveProject(req.caller, req.id())));
