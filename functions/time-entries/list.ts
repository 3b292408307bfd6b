import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listTimeEntries } from '../../shared/domain/time-entries.ts';
import { withListQuery } from '../../shared/model/define.ts';
import { timeEntryFields } from '../../shared/model/resources.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listTimeEntries', withListQuery(timeEntryFields), async (req) => ok(await listTimeEntries(req.caller, req.query())));
