import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { create } from '../../shared/domain/entity.ts';
import { clientSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createClient', 'create', clientSchemas, (req) => create(req.caller, clientSchemas, req.body(), new Date()));
