import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { webhookEndpointSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateWebhookEndpoint', 'update', webhookEndpointSchemas, (req) => updateWebhookEndpoint(req.caller, req.id(), req.body(), req.expectedVersion()));
