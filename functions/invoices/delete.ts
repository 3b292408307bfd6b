import { defineDeleteHandler } from '../../shared/http/write-handler.ts';
import { deleteInvoice } from '../../shared/domain/invoices/release.ts';
import { invoice } from '../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deleteInvoice', invoice, (req) => deleteInvoice(req.caller, req.id(), req.expectedVersion()));
