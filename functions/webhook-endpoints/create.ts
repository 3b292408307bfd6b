import { created, defineWriteHandler } from '../../shared/http/write-handler.ts';
import { CreateWebhookEndpointBody } from '../../shared/schemas/events.ts';
import { createWebhookEndpoint } from '../../shared/domain/webhook-endpoints.ts';

// The response holds the endpoint's secret: the one time it is shown (an idempotent retry replays it).
export const handler = defineWriteHandler('createWebhookEndpoint', async (req) =>
  created(await createWebhookEndpoint(req.caller, req.body(CreateWebhookEndpointBody)), req.path),
);
