import { defineHandler, ok } from '../../shared/http/handler.ts';
import { retrieveClient } from '../../shared/domain/clients.ts';

export const handler = defineHandler('retrieveClient', async (req) => ok(await retrieveClient(req.caller, req.id())));
