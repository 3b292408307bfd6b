import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { update } from '../../shared/domain/entity.ts';
import { withUpdate } from '../../shared/model/define.ts';
import { clientFields } from '../../shared/model/resources.ts';

/** The fields and the update schema alone: this bundle holds no other action's rules. */
const schemas = withUpdate(clientFields);

export const handler = defineWriteHandler('updateClient', schemas, (req) => update(req.caller, schemas, req.id(), req.body(), req.expectedVersion(), new Date()));
