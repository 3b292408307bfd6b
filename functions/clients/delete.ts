import { defineHandler, ok } from '../../shared/http/handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { client } from '../../shared/resources/registry.ts';

export const handler = defineHandler('deleteClient', client, async (req) => ok(await remove(req.caller, client, req.id(), req.expectedVersion())));
