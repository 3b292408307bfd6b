import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { payInvoice } from '../../shared/domain/invoices.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('payInvoice', 'pay', invoiceSchemas, (req) => payInvoice(req.caller, req.id(), req.body(), req.expectedVersion()));
