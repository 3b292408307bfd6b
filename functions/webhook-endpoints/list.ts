import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { webhookEndpoint } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listWebhookEndpoints', async (req) => ok(await list(req.caller, webhookEndpoint, req.query())));
