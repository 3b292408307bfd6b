import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { voidInvoice } from '../../shared/domain/invoices.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';

// The body is optional and empty when sent ({}): parsed, so that an unknown member is a 400.
export const handler = defineWriteHandler('voidInvoice', 'void', invoiceSchemas, (req) => (req.body(), voidInvoice(req.caller, req.id(), req.expectedVersion())));
