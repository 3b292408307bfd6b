import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';

export const handler = defineWriteHandler('createWebhookEndpoint', async (req) => created(await createWebhookEndpoint(req.caller, req.body()), req.path));
