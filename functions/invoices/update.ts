import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateInvoice } from '../../shared/domain/invoices.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('updateInvoice', 'update', invoiceSchemas, (req) => updateInvoice(req.caller, req.id(), req.body(), req.expectedVersion()));
