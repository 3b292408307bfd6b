import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createProject } from '../../shared/domain/projects.ts';
import { projectSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createProject', projectSchemas, async (req) => created(await createProject(req.caller, req.body()), req.path));
