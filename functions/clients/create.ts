import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { create } from '../../shared/domain/entity.ts';
import { clientSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createClient', clientSchemas, async (req) => created(await create(req.caller, clientSchemas, req.body(), new Date()), req.path));
