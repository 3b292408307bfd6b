import { current, defineHandler } from '../../../shared/http/handler.ts';
import { retrievePayment } from '../../../shared/domain/invoices/payments.ts';
import { payment } from '../../../shared/model/resources.ts';

export const handler = defineHandler('retrievePayment', payment, async (req) => current(await retrievePayment(req.caller, req.id(), req.childId())));
