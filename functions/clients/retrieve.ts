import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieveClient } from '../../shared/domain/clients.ts';

export const handler = defineHandler('retrieveClient', async (req) => current(await retrieveClient(req.caller, req.id())));
