import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateInvoice } from '../../shared/domain/invoices/lifecycle.ts';
import { invoiceWith } from '../../shared/model/resources.ts';
import { invoiceUpdateBody } from '../../shared/model/invoice-fields.ts';

/** The declaration and this action's body alone: this bundle holds no other action's rules. */
const schemas = invoiceWith('update', invoiceUpdateBody());

export const handler = defineWriteHandler('updateInvoice', schemas, (req) => updateInvoice(req.caller, req.id(), req.body(), req.expectedVersion()));
