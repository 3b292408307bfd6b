import { defineHandler, ok } from '../../shared/http/handler.ts';
import { deleteWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { webhookEndpoint } from '../../shared/resources/registry.ts';

export const handler = defineHandler('deleteWebhookEndpoint', webhookEndpoint, async (req) => ok(await deleteWebhookEndpoint(req.caller, req.id(), req.expectedVersion())));
