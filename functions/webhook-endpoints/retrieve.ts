import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieveWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';

export const handler = defineHandler('retrieveWebhookEndpoint', async (req) => current(await retrieveWebhookEndpoint(req.caller, req.id())));
