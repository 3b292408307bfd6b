import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateProject } from '../../shared/domain/projects.ts';
import { withUpdate } from '../../shared/model/define.ts';
import { projectFields } from '../../shared/model/resources.ts';

export const handler = defineWriteHandler('updateProject', withUpdate(projectFields), (req) => updateProject(req.caller, req.id(), req.body(), req.expectedVersion()));
