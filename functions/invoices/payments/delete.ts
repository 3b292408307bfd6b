import { defineDeleteHandler } from '../../../shared/http/write-handler.ts';
import { deletePayment } from '../../../shared/domain/invoices/payments.ts';
import { payment } from '../../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deletePayment', payment, (req) => deletePayment(req.caller, req.id(), req.childId(), req.expectedVersion()));
