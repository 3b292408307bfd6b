import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { webhookEndpointSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createWebhookEndpoint', 'create', webhookEndpointSchemas, (req) => createWebhookEndpoint(req.caller, req.body()));
