import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { client } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveClient', client, async (req) => current(await retrieve(req.caller, client, req.id())));
