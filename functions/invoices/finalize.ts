import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { finalizeInvoice } from '../../shared/domain/invoices.ts';
import { invoiceSchemas } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('finalizeInvoice', 'finalize', invoiceSchemas, (req) => finalizeInvoice(req.caller, req.id(), req.body(), req.expectedVersion()));
