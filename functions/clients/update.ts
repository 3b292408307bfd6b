import { current, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { update } from '../../shared/domain/entity.ts';
import { client } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateClient', async (req) =>
  current(await update(req.caller, client, req.id(), req.body(), req.expectedVersion(), new Date())),
);
