import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { createInvoice } from '../../shared/domain/invoices/create.ts';
import { invoiceStored } from '../../shared/model/resources.ts';
import { invoiceAcrossFields, invoiceCreateBody } from '../../shared/model/invoice-fields.ts';

/**
 * What the invoice's writes read of its declaration (invoiceStored), this action's body and its
 * range rule: this bundle holds no other action's rules, nor what only lists, deletes and the
 * OpenAPI document read of the declaration.
 */
const schemas = { ...invoiceStored, create: invoiceCreateBody(), acrossFields: invoiceAcrossFields };

export const handler = defineCreateHandler('createInvoice', schemas, (req) => createInvoice(req.caller, req.body()));
