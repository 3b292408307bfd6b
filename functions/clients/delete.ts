import { defineHandler, ok } from '../../shared/http/handler.ts';
import { deleteClient } from '../../shared/domain/clients.ts';

export const handler = defineHandler('deleteClient', async (req) => ok(await deleteClient(req.caller, req.id(), req.expectedVersion())));
