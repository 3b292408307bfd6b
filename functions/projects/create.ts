import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createProject } from '../../shared/domain/projects.ts';
import { withCreate } from '../../shared/resources/define.ts';
import { projectFields } from '../../shared/resources/registry.ts';

export const handler = defineCreateHandler('createProject', withCreate(projectFields), (req) => createProject(req.caller, req.body()));
