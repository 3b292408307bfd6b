import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { create } from '../../shared/domain/entity.ts';
import { client } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createClient', async (req) => created(await create(req.caller, client, req.body(), new Date()), req.path));
