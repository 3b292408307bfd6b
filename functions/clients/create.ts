import { defineCreateHandler } from '../../shared/http/write-handler.ts';
import { create } from '../../shared/domain/entity.ts';
import { withCreate } from '../../shared/model/define.ts';
import { clientFields } from '../../shared/model/resources.ts';

/** The fields and the create schema alone: this bundle holds no other action's rules. */
const schemas = withCreate(clientFields);

export const handler = defineCreateHandler('createClient', schemas, (req) => create(req.caller, schemas, req.body(), new Date()));
