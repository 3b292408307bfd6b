import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateProject } from '../../shared/domain/projects.ts';
import { withUpdate } from '../../shared/resources/define.ts';
import { projectFields } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateProject', 'update', withUpdate(projectFields), (req) => updateProject(req.caller, req.id(), req.body(), req.expectedVersion()));
