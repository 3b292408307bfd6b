import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { projectSchemas } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineHandler('listProjects', 'list', projectSchemas, async (req) => ok(await list(req.caller, projectSchemas, req.query())));
