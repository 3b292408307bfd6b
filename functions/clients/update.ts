import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { update } from '../../shared/domain/entity.ts';
import { clientSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateClient', 'update', clientSchemas, (req) => update(req.caller, clientSchemas, req.id(), req.body(), req.expectedVersion(), new Date()));
