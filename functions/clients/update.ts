import { current, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { UpdateClientBody } from '../../shared/schemas/resources.ts';
import { updateClient } from '../../shared/domain/clients.ts';

export const handler = defineWriteHandler('updateClient', async (req) => current(await updateClient(req.caller, req.id(), req.body(UpdateClientBody), req.expectedVersion())));
