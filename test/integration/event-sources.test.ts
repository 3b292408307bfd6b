/**
 * What the event builder reads from the items (docs/events.md): each write through the generic
 * operations of shared/domain/entity.ts records its request id on the item, and a delete of a
 * resource that makes events writes a deletion record (request id, time) in the same
 * transaction, since a REMOVE stream record carries only the old image.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSharedTable } from '../support/in-process.ts';
import { requestIdOf } from '../support/assertions.ts';
import { createClient, workspace, type Api } from '../support/api.ts';

let dynamo: typeof import('../../shared/data/dynamo.ts');
let keys: typeof import('../../shared/data/keys.ts').keys;

beforeAll(async () => {
  useSharedTable('event-sources-test-cursor-signing-key-0123456789');
  dynamo = await import('../../shared/data/dynamo.ts');
  ({ keys } = await import('../../shared/data/keys.ts'));
});

const read = async (key: { PK: string; SK: string }) =>
  (await dynamo.dynamo().send(new GetCommand({ TableName: dynamo.tableName(), Key: key, ConsistentRead: true }))).Item;

describe('event sources on items', () => {
  let api: Api;
  let ws: string;
  beforeAll(async () => {
    ({ api, id: ws } = await workspace('evsrc'));
  });

  it('create and update record the request id of the version they write', async () => {
    const created = await api.post('/clients', { company_name: 'Req Co', company_email: 'req@req.test' });
    expect(created.status).toBe(201);
    const key = keys.item(ws, 'CLIENT', created.body.id);
    expect((await read(key))?.request_id).toBe(requestIdOf(created));
    const updated = await api.patch(`/clients/${created.body.id}`, { status: 'ACTIVE' });
    expect(updated.status).toBe(200);
    expect(requestIdOf(updated)).not.toBe(requestIdOf(created));
    expect((await read(key))?.request_id).toBe(requestIdOf(updated));
  });

  it('a delete writes its deletion record with the item gone, and a refused delete writes none', async () => {
    const client = await createClient(api);
    const project = await api.post('/projects', { name: 'Guard', client_id: client.id, billing_type: 'Monthly' });
    const refused = await api.delete(`/clients/${client.id}`);
    expect(refused.status).toBe(409);
    expect(await read(keys.deletion(ws, 'CLIENT', client.id))).toBeUndefined();

    const deleted = await api.delete(`/projects/${project.body.id}`);
    expect(deleted.status).toBe(200);
    expect(await read(keys.item(ws, 'PROJECT', project.body.id))).toBeUndefined();
    const record = await read(keys.deletion(ws, 'PROJECT', project.body.id));
    expect(record).toMatchObject({ request_id: requestIdOf(deleted), deleted_at: expect.any(String) });
    expect(Number(record!.expires_at)).toBeGreaterThan(Date.now() / 1000);
  });

  it('webhook endpoints make no events: their delete writes no deletion record', async () => {
    const endpoint = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'] });
    expect((await api.delete(`/webhook_endpoints/${endpoint.body.id}`)).status).toBe(200);
    expect(await read(keys.deletion(ws, 'WEBHOOK_ENDPOINT', endpoint.body.id))).toBeUndefined();
  });
});
