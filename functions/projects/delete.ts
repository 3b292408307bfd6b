import { defineHandler, ok } from '../../shared/http/handler.ts';
import { deleteProject } from '../../shared/domain/projects.ts';

export const handler = defineHandler('deleteProject', async (req) => ok(await deleteProject(req.caller, req.id(), req.expectedVersion())));
