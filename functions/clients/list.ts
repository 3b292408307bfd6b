import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { client } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listClients', async (req) => ok(await list(req.caller, client, req.query())));
