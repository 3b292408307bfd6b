import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { clientSchemas } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listClients', 'list', clientSchemas, async (req) => ok(await list(req.caller, clientSchemas, req.query())));
