import { defineHandler, ok } from '../../shared/http/handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { project } from '../../shared/resources/registry.ts';

export const handler = defineHandler('deleteProject', project, async (req) => ok(await remove(req.caller, project, req.id(), req.expectedVersion())));
