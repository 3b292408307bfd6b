import { created, defineHandler } from '../../shared/http/handler.ts';
import { CreateProjectBody } from '../../shared/schemas/resources.ts';
import { createProject } from '../../shared/domain/projects.ts';

export const handler = defineHandler('createProject', async (req) => {
  const project = await createProject(req.caller, req.body(CreateProjectBody));
  return created(project, req.path);
});
