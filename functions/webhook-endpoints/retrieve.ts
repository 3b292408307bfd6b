import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { webhookEndpoint } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveWebhookEndpoint', webhookEndpoint, async (req) => current(await retrieve(req.caller, webhookEndpoint, req.id())));
