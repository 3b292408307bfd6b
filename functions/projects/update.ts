import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateProject } from '../../shared/domain/projects.ts';
import { projectSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateProject', 'update', projectSchemas, (req) => updateProject(req.caller, req.id(), req.body(), req.expectedVersion()));
