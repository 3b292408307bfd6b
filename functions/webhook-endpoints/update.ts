import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { withUpdate } from '../../shared/model/define.ts';
import { webhookEndpointFields } from '../../shared/model/resources.ts';

export const handler = defineWriteHandler('updateWebhookEndpoint', withUpdate(webhookEndpointFields), (req) => updateWebhookEndpoint(req.caller, req.id(), req.body(), req.expectedVersion()));
