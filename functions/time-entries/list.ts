import { defineHandler, ok } from '../../shared/http/handler.ts';
import { list } from '../../shared/domain/entity.ts';
import { timeEntry } from '../../shared/resources/registry.ts';

export const handler = defineHandler('listTimeEntries', async (req) => ok(await list(req.caller, timeEntry, req.query())));
