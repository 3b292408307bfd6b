import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { finalizeInvoice } from '../../shared/domain/invoices/lifecycle.ts';
import { invoiceWith } from '../../shared/model/resources.ts';
import { invoiceFinalizeBody } from '../../shared/model/invoice-fields.ts';

/** The declaration and this action's body alone: this bundle holds no other action's rules. */
const schemas = invoiceWith('finalize', invoiceFinalizeBody());

export const handler = defineWriteHandler('finalizeInvoice', schemas, (req) => finalizeInvoice(req.caller, req.id(), req.body(), req.expectedVersion()));
