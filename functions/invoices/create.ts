import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createInvoice } from '../../shared/domain/invoices/create.ts';
import { invoiceWith } from '../../shared/model/resources.ts';
import { invoiceCreateBody } from '../../shared/model/invoice-fields.ts';

/** The declaration and this action's body alone (its range rule included): this bundle holds no other action's rules. */
const schemas = invoiceWith('create', invoiceCreateBody());

export const handler = defineCreateHandler('createInvoice', schemas, (req) => createInvoice(req.caller, req.body()));
