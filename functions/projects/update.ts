import { current, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { UpdateProjectBody, type UpdateProjectInput } from '../../shared/schemas/resources.ts';
import { updateProject } from '../../shared/domain/projects.ts';

export const handler = defineWriteHandler('updateProject', async (req) =>
  current(await updateProject(req.caller, req.id(), req.body(UpdateProjectBody) as UpdateProjectInput, req.expectedVersion())),
);
