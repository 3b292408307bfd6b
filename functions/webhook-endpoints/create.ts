import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { revealedBody } from '../../shared/http/revealed.ts';
import { createWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';
import { withCreate } from '../../shared/model/define.ts';
import { webhookEndpointFields } from '../../shared/model/resources.ts';

export const handler = defineCreateHandler('createWebhookEndpoint', withCreate(webhookEndpointFields), (req) => createWebhookEndpoint(req.caller, req.body()), revealedBody);
