import { defineDeleteHandler } from '../../shared/http/write-handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { client } from '../../shared/model/resources.ts';

export const handler = defineDeleteHandler('deleteClient', client, (req) => remove(req.caller, client, req.id(), req.expectedVersion()));
