import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { billingRun } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveBillingRun', billingRun, async (req) => current(await retrieve(req.caller, billingRun, req.id())));
