import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { createInvoice } from '../../shared/domain/invoices.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('createInvoice', 'create', invoiceSchemas, (req) => createInvoice(req.caller, req.body()));
