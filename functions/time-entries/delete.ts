import { defineHandler, ok } from '../../shared/http/handler.ts';
import { remove } from '../../shared/domain/entity.ts';
import { timeEntry } from '../../shared/resources/registry.ts';

export const handler = defineHandler('deleteTimeEntry', timeEntry, async (req) => ok(await remove(req.caller, timeEntry, req.id(), req.expectedVersion())));
