import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listTimeSummaries } from '../../shared/domain/time-summaries.ts';
import { timeSummaryCsv, timeSummarySchemas } from '../../shared/api/time-summary-schemas.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listTimeSummaries', timeSummarySchemas, async (req) => ok(await listTimeSummaries(req.caller, req.query())), timeSummaryCsv);
