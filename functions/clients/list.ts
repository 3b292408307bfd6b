import { defineHandler, ok } from '../../shared/http/handler.ts';
import { ListClientsQuery } from '../../shared/schemas/resources.ts';
import { listClients } from '../../shared/domain/clients.ts';

export const handler = defineHandler('listClients', async (req) => ok(await listClients(req.caller, req.query(ListClientsQuery))));
