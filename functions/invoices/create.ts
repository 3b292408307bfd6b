import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createInvoice } from '../../shared/domain/invoices/create.ts';
import { invoice } from '../../shared/model/resources.ts';
import { invoiceAcrossFields, invoiceCreateBody } from '../../shared/model/invoice-fields.ts';

/** The declaration, this action's body and its range rule: this bundle holds no other action's rules. */
const schemas = { ...invoice, create: invoiceCreateBody(), acrossFields: invoiceAcrossFields };

export const handler = defineCreateHandler('createInvoice', schemas, (req) => createInvoice(req.caller, req.body()));
