import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { update } from '../../shared/domain/entity.ts';
import { withUpdate } from '../../shared/resources/define.ts';
import { clientFields } from '../../shared/resources/registry.ts';

/** The fields and the update schema alone: this bundle holds no other action's rules. */
const schemas = withUpdate(clientFields);

export const handler = defineWriteHandler('updateClient', 'update', schemas, (req) => update(req.caller, schemas, req.id(), req.body(), req.expectedVersion(), new Date()));
