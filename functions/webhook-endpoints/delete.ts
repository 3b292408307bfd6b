import { defineHandler, ok } from '../../shared/http/handler.ts';
import { deleteWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';

export const handler = defineHandler('deleteWebhookEndpoint', async (req) => ok(await deleteWebhookEndpoint(req.caller, req.id(), req.expectedVersion())));
