import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { payInvoice } from '../../shared/domain/invoices/payments.ts';
import { invoiceWith } from '../../shared/model/resources.ts';
import { invoicePayBody } from '../../shared/model/invoice-fields.ts';

/** The declaration and this action's body alone: this bundle holds no other action's rules. */
const schemas = invoiceWith('pay', invoicePayBody());

// The body is read once the invoice is known to be open: its status is answered first (contract).
export const handler = defineWriteHandler('payInvoice', schemas, (req) => payInvoice(req.caller, req.id(), () => req.body(), req.expectedVersion()));
