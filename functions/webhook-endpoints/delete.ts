import { defineDeleteHandler } from '../../shared/http/write-handler.ts';
import { deleteWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { webhookEndpoint } from '../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deleteWebhookEndpoint', webhookEndpoint, (req) => deleteWebhookEndpoint(req.caller, req.id(), req.expectedVersion()));
