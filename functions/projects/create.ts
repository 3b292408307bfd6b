import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createProject } from '../../shared/domain/projects.ts';
import { withCreate } from '../../shared/model/define.ts';
import { projectFields } from '../../shared/model/resources.ts';

export const handler = defineCreateHandler('createProject', withCreate(projectFields), (req) => createProject(req.caller, req.body()));
