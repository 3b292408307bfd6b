import { defineDeleteHandler } from '../../shared/http/write-handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { project } from '../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deleteProject', project, (req) => remove(req.caller, project, req.id(), req.expectedVersion()));
