import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { timeEntry } from '../../shared/resources/registry.ts';

export const handler = defineWriteHandler('deleteTimeEntry', 'delete', timeEntry, (req) => remove(req.caller, timeEntry, req.id(), req.expectedVersion()));
