import { defineHandler, ok } from '../../shared/http/handler.ts';
import { retrieveProject } from '../../shared/domain/projects.ts';

export const handler = defineHandler('retrieveProject', async (req) => ok(await retrieveProject(req.caller, req.id())));
