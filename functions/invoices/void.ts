import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { voidInvoice } from '../../shared/domain/invoices/release.ts';
import { invoiceWith } from '../../shared/model/resources.ts';
import { invoiceVoidBody } from '../../shared/model/invoice-fields.ts';

/** The declaration and this action's body alone: this bundle holds no other action's rules. */
const schemas = invoiceWith('void', invoiceVoidBody());

// The body is optional and empty when sent ({}): parsed, so that an unknown member is a 400.
export const handler = defineWriteHandler('voidInvoice', schemas, (req) => (req.body(), voidInvoice(req.caller, req.id(), req.expectedVersion())));
