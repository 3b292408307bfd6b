import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listInvoices', 'list', invoiceSchemas, async (req) => ok(await list(req.caller, invoiceSchemas, req.query())));
