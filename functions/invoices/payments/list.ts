import { ok } from '../../../shared/http/handler.ts';
import { defineListHandler } from '../../../shared/http/list-handler.ts';
import { listPayments } from '../../../shared/domain/invoices/payments.ts';
import { withListQuery } from '../../../shared/model/define.ts';
import { paymentFields } from '../../../shared/model/resources.ts';
import { readCursorKeyAtLoad } from '../../../shared/core/config.ts';

readCursorKeyAtLoad();

/** The fields and the list query schema (a page size and a cursor) alone. */
const schemas = withListQuery(paymentFields);

export const handler = defineListHandler('listPayments', schemas, async (req) => ok(await listPayments(req.caller, req.id(), req.query())));
