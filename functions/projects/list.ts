import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { project } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listProjects', async (req) => ok(await list(req.caller, project, req.query())));
