import { ok } from '../../shared/http/handler.ts';
import { defineListHandler } from '../../shared/http/list-handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { withListQuery } from '../../shared/model/define.ts';
import { clientFields } from '../../shared/model/resources.ts';
import { readCursorKeyAtLoad } from '../../shared/core/config.ts';

readCursorKeyAtLoad();

/** The fields and the list query schema alone: this bundle holds no other action's rules. */
const schemas = withListQuery(clientFields);

export const handler = defineListHandler('listClients', schemas, async (req) => ok(await list(req.caller, schemas, req.query())));
