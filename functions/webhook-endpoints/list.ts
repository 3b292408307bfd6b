import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { webhookEndpointSchemas } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineHandler('listWebhookEndpoints', 'list', webhookEndpointSchemas, async (req) => ok(await list(req.caller, webhookEndpointSchemas, req.query())));
