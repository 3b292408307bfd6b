import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { withListQuery } from '../../shared/resources/define.ts';
import { invoiceFields } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

/** The fields and the list query schema alone: this bundle holds no invoice body. */
const schemas = withListQuery(invoiceFields);

export const handler = defineListHandler('listInvoices', 'list', schemas, async (req) => ok(await list(req.caller, schemas, req.query())));
