import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { withListQuery } from '../../shared/model/define.ts';
import { billingRunFields } from '../../shared/model/resources.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

/** The fields and the list query schema alone. */
const schemas = withListQuery(billingRunFields);

export const handler = defineListHandler('listBillingRuns', schemas, async (req) => ok(await list(req.caller, schemas, req.query())));
