import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { project } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveProject', project, async (req) => current(await retrieve(req.caller, project, req.id())));
