import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { listTimeEntries } from '../../shared/domain/time-entries.ts';
import { withListQuery } from '../../shared/resources/define.ts';
import { timeEntryFields } from '../../shared/resources/registry.ts';
import { readCursorKeyAtLoad } from '../../shared/config.ts';

readCursorKeyAtLoad();

export const handler = defineListHandler('listTimeEntries', 'list', withListQuery(timeEntryFields), async (req) => ok(await listTimeEntries(req.caller, req.query())));
