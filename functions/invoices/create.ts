import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createInvoice } from '../../shared/domain/invoices/create.ts';
import { invoiceWith } from '../../shared/resources/registry.ts';
import { invoiceAcrossFields, invoiceCreateBody } from '../../shared/schemas/invoices.ts';

/** The declaration and this action's body alone: this bundle holds no other action's rules. */
const schemas = invoiceWith('create', invoiceCreateBody(), invoiceAcrossFields);

export const handler = defineCreateHandler('createInvoice', schemas, (req) => createInvoice(req.caller, req.body()));
