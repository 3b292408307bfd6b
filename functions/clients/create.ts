import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { CreateClientBody } from '../../shared/schemas/resources.ts';
import { createClient } from '../../shared/domain/clients.ts';

export const handler = defineWriteHandler('createClient', async (req) => {
  const client = await createClient(req.caller, req.body(CreateClientBody));
  return created(client, req.path);
});
