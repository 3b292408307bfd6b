import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createProject } from '../../shared/domain/projects.ts';
import { projectSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createProject', 'create', projectSchemas, (req) => createProject(req.caller, req.body()));
