import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listBillingRunResults } from '../../shared/domain/billing-runs.ts';
import { BILLING_RUN_RESULT_COLUMNS, billingRunResultSchemas } from '../../shared/api/billing-run-result-schemas.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listBillingRunResults', billingRunResultSchemas, async (req) => ok(await listBillingRunResults(req.caller, req.id(), req.query())), {
  columns: () => BILLING_RUN_RESULT_COLUMNS,
});
