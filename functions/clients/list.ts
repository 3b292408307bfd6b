import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { clientSchemas } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineHandler('listClients', 'list', clientSchemas, async (req) => ok(await list(req.caller, clientSchemas, req.query())));
