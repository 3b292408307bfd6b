import { defineHandler, ok } from '../../shared/http/handler.ts';
import { ListWebhookEndpointsQuery } from '../../shared/schemas/events.ts';
import { listWebhookEndpoints } from '../../shared/domain/webhook-endpoints.ts';

export const handler = defineHandler('listWebhookEndpoints', async (req) => ok(await listWebhookEndpoints(req.caller, req.query(ListWebhookEndpointsQuery))));
