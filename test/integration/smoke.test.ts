import { describe, expect, it } from 'vitest';
import { createClient, createProject, expectError, logTime, workspace } from '../support/api.ts';

describe('the local stack, end to end', () => {
  it('creates a client, a project, logs time, refuses the guarded deletes, then deletes in order', async () => {
    const { api, id: ws } = await workspace();
    const client = await createClient(api);
    expect(client).toMatchObject({ object: 'client', status: 'LEAD', language: 'ENGLISH', workspace_id: ws });
    const project = await createProject(api, client.id);
    const entry = await logTime(api, { project_id: project.id });
    expect(entry.client_id).toBe(client.id);

    expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict');
    expectError(await api.delete(`/projects/${project.id}`), 409, 'conflict');

    expect((await api.delete(`/time_entries/${entry.id}`)).body).toEqual({ object: 'time_entry', id: entry.id, deleted: true });
    expect((await api.delete(`/projects/${project.id}`)).body).toEqual({ object: 'project', id: project.id, deleted: true });
    const deleted = await api.delete(`/clients/${client.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'client', id: client.id, deleted: true });
    expectError(await api.get(`/clients/${client.id}`), 404, 'not_found');
  });
});
