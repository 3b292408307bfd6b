/**
 * Time entries: logged against a project (whose client they then belong to) or a client.
 * Logging or deleting one adjusts the counters of its project and client in the same
 * transaction (shared/domain/entity.ts), which is what guards their deletes.
 */
import * as v from 'valibot';
import { invalidParam } from '../errors.ts';
import { objectOf, type TimeEntry } from '../resources/objects.ts';
import { project, timeEntry, type timeEntrySchemas } from '../resources/registry.ts';
import type { CallerContext, Versioned } from './context.ts';
import { create, readItem, unknownReference } from './entity.ts';

export async function logTimeEntry(ctx: CallerContext, input: v.InferOutput<typeof timeEntrySchemas.create>, now = new Date()): Promise<Versioned<TimeEntry>> {
  const projectId = input.project_id ?? null;
  let clientId = input.client_id;
  if (projectId !== null) {
    const item = await readItem(ctx, project, projectId);
    if (!item) throw unknownReference('project_id', project);
    const projectClient = objectOf(project, item).client_id;
    if (clientId !== undefined && clientId !== projectClient) {
      throw invalidParam('client_id', `client_id must be the client of project ${projectId} (${projectClient}), or be omitted`);
    }
    clientId = projectClient;
  }
  if (clientId === undefined) {
    throw invalidParam('project_id', 'project_id or client_id is required: a time entry is logged against a project or a client');
  }
  // With a project, its client was read from it: a failure of either is the project's.
  return create(ctx, timeEntry, { ...input, project_id: projectId, client_id: clientId }, now, {
    unknownReference: (field, target) => (projectId !== null ? unknownReference('project_id', project) : unknownReference(field, target)),
  });
}
