import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { invoice } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveInvoice', invoice, async (req) => current(await retrieve(req.caller, invoice, req.id())));
