import { describe, expect, it } from 'vitest';
import { draftOf, type StreamChange } from '../../shared/events/build.ts';
import { streamRecord } from '../support/stream.ts';

const clientData = {
  id: 'cli_01JD000000000000000000000A', company_name: 'Acme', company_email: 'a@acme.test',
  company_address: null, website: null, status: 'LEAD', language: 'ENGLISH', business_number: null, tps_number: null, tvq_number: null,
  relationship_start_date: '2026-11-22T10:00:00.000Z', workspace_id: 'acme', created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:00.000Z',
};
// The stored item: API fields in its `data` map, internal attributes beside it.
const client = {
  PK: 'WS#acme', SK: 'CLIENT#cli_01JD000000000000000000000A', data: clientData,
  search_text: 'acme', project_count: 0, time_entry_count: 0, version: 1, request_id: 'req-1',
};
const record = (eventName: string, oldItem?: object, newItem?: object, keys = { PK: client.PK, SK: client.SK }): StreamChange => streamRecord(eventName, keys, oldItem, newItem);

describe('turning a change into an event draft', () => {
  it('makes client.created from an INSERT, with the request id written on the item and the API object only', () => {
    const draft = draftOf(record('INSERT', undefined, client))!;
    expect(draft).toMatchObject({ workspaceId: 'acme', type: 'client.created', objectId: clientData.id, requestId: 'req-1', createdAt: clientData.created_at });
    expect(draft.object).toMatchObject({ object: 'client', id: clientData.id, company_name: 'Acme' });
    expect(draft.object).not.toHaveProperty('search_text');
    expect(draft.object).not.toHaveProperty('version');
    expect(draft.previousAttributes).toBeUndefined();
  });

  it('makes client.updated with the old value of each changed field, and the change key of the new version', () => {
    const updated = { ...client, data: { ...clientData, status: 'ACTIVE', updated_at: '2026-11-22T10:05:00.000Z' }, version: 2, request_id: 'req-2' };
    const draft = draftOf(record('MODIFY', client, updated))!;
    expect(draft.type).toBe('client.updated');
    expect(draft.previousAttributes).toEqual({ status: 'LEAD', updated_at: clientData.updated_at });
    expect(draft.requestId).toBe('req-2');
    expect(draft.createdAt).toBe(updated.data.updated_at);
    expect(draft.changeKey).not.toBe(draftOf(record('INSERT', undefined, client))!.changeKey);
    // The same record delivered twice names the same change.
    expect(draftOf(record('MODIFY', client, updated))!.changeKey).toBe(draft.changeKey);
  });

  it('makes nothing of a counter change (no API field changed)', () => {
    expect(draftOf(record('MODIFY', client, { ...client, project_count: 1 }))).toBeUndefined();
  });

  it('makes *.deleted from a REMOVE with the last state; its request id comes later from the deletion record', () => {
    const draft = draftOf(record('REMOVE', client, undefined))!;
    expect(draft).toMatchObject({ type: 'client.deleted', requestId: undefined, createdAt: undefined });
    expect(draft.object).toMatchObject({ id: clientData.id, status: 'LEAD' });
  });

  it('makes project and time entry events', () => {
    const project = { PK: 'WS#acme', SK: 'PROJECT#prj_1', data: { id: 'prj_1', name: 'P', client_id: clientData.id, workspace_id: 'acme', status: 'ACTIVE', billing_type: 'Monthly', created_at: 'x', updated_at: 'x' }, version: 1 };
    expect(draftOf(record('INSERT', undefined, project, { PK: project.PK, SK: project.SK }))?.type).toBe('project.created');
    const entry = { PK: 'WS#acme', SK: 'TIME_ENTRY#te_1', data: { id: 'te_1', client_id: clientData.id, project_id: null, workspace_id: 'acme', started_at: 'x', duration_minutes: 5, created_at: 'x', updated_at: 'x' }, version: 1 };
    expect(draftOf(record('REMOVE', entry, undefined, { PK: entry.PK, SK: entry.SK }))?.type).toBe('time_entry.deleted');
  });

  it('ignores internal items: idempotency records, registry, counters, webhook endpoints, events and their markers', () => {
    for (const keys of [
      { PK: 'WS#acme#IDEMPOTENCY', SK: 'IDEMPOTENCY#abc' },
      { PK: 'API_CLIENT#x', SK: 'API_CLIENT' },
      { PK: 'WORKSPACE#acme', SK: 'WORKSPACE' },
      { PK: 'WS#acme', SK: 'WEBHOOK_ENDPOINT#we_1' },
      { PK: 'WS#acme', SK: 'WEBHOOK_ENDPOINT_COUNT' },
      { PK: 'WS#acme#EVENT', SK: 'EVENT#evt_1' },
      { PK: 'WS#acme#EVENT', SK: 'SEQUENCE' },
      { PK: 'WS#acme#EVENT_SOURCE', SK: 'CLIENT#cli_1#created#v1' },
      { PK: 'WS#acme#DELETION', SK: 'CLIENT#cli_1' },
    ]) {
      expect(draftOf(record('INSERT', undefined, { ...keys, id: 'x' }, keys)), JSON.stringify(keys)).toBeUndefined();
    }
  });
});
