import { defineHandler, ok } from '../../shared/http/handler.ts';
import { ListProjectsQuery } from '../../shared/schemas/resources.ts';
import { listProjects } from '../../shared/domain/projects.ts';

export const handler = defineHandler('listProjects', async (req) => ok(await listProjects(req.caller, req.query(ListProjectsQuery))));
