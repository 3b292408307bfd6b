import { defineCreateHandler } from '../../../shared/http/write-handler.ts';
import { recordPayment } from '../../../shared/domain/invoices/payments.ts';
import { withCreate } from '../../../shared/model/define.ts';
import { paymentFields } from '../../../shared/model/resources.ts';

/** The fields and the create schema alone. */
const schemas = withCreate(paymentFields);

// The body is read once the invoice is known to take a payment: its status is answered first (contract).
export const handler = defineCreateHandler('createPayment', schemas, (req) => recordPayment(req.caller, req.id(), () => req.body()));
