import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { CreateProjectBody } from '../../shared/schemas/resources.ts';
import { createProject } from '../../shared/domain/projects.ts';

export const handler = defineWriteHandler('createProject', async (req) => {
  const project = await createProject(req.caller, req.body(CreateProjectBody));
  return created(project, req.path);
});
