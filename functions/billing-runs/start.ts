import { defineStartHandler } from '../../shared/http/write-handler.ts';
import { startBillingRun } from '../../shared/domain/billing-runs.ts';
import { billingRunWithStart } from '../../shared/model/resources.ts';

export const handler = defineStartHandler('startBillingRun', billingRunWithStart(), (req) => startBillingRun(req.caller, req.body()));
