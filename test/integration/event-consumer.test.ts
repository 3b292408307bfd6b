/**
 * The stream consumer's work (shared/webhooks/consumer.ts) in process over DynamoDB Local, fed
 * stream records built from the items the API wrote: events in order with the request ids the
 * items carry, a delete's request id from its deletion record, no second event for a record
 * seen again, and one delivery message per enabled endpoint that wants the event.
 * (The table-stream function and the local stream poller that feed it are not ported yet.)
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import type { StreamChange } from '../../shared/events/build.ts';
import type { DeliveryMessage } from '../../shared/webhooks/queue.ts';
import { requestIdOf } from '../support/assertions.ts';
import { workspace } from '../support/api.ts';
import { startReceiver, waitFor } from '../support/events.ts';
import { streamRecord } from '../support/stream.ts';

let consumer: typeof import('../../shared/webhooks/consumer.ts');
let queue: typeof import('../../shared/webhooks/queue.ts');
let dynamo: typeof import('../../shared/data/dynamo.ts');
let keys: typeof import('../../shared/data/keys.ts').keys;
const sent: DeliveryMessage[] = [];

beforeAll(async () => {
  Object.assign(process.env, { ...LOCAL_AWS_ENV, TABLE_NAME: inject('tableName'), DYNAMODB_ENDPOINT: inject('dynamoEndpoint') });
  consumer = await import('../../shared/webhooks/consumer.ts');
  queue = await import('../../shared/webhooks/queue.ts');
  dynamo = await import('../../shared/data/dynamo.ts');
  ({ keys } = await import('../../shared/data/keys.ts'));
  queue.useDeliveryQueue({ send: async (messages) => void sent.push(...messages) });
});
afterAll(() => queue.useDeliveryQueue(undefined));

const read = async (key: { PK: string; SK: string }) =>
  (await dynamo.dynamo().send(new GetCommand({ TableName: dynamo.tableName(), Key: key, ConsistentRead: true }))).Item!;
const change = (eventName: string, key: { PK: string; SK: string }, oldItem?: Record<string, unknown>, newItem?: Record<string, unknown>): StreamChange =>
  streamRecord(eventName, key, oldItem, newItem, Math.floor(Date.now() / 1000));
const eventsOf = async (ws: string) =>
  (
    await dynamo.dynamo().send(
      new QueryCommand({
        TableName: dynamo.tableName(),
        ConsistentRead: true,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
        ExpressionAttributeValues: { ':pk': keys.eventPartition(ws), ':p': 'EVENT#' },
      }),
    )
  ).Items!.map((item) => JSON.parse(String(item.body)));

describe('consuming changes', () => {
  it('turns create, update and delete into events with their request ids, once, and queues them for the endpoints that want them', async () => {
    const { api, id: ws } = await workspace('consume');
    // The shared stack's own pipeline delivers these events too: to a receiver that takes them.
    const receiver = await startReceiver();
    const all = await api.post('/webhook_endpoints', { url: `${receiver.url}/all`, enabled_events: ['*'] });
    const deletesOnly = await api.post('/webhook_endpoints', { url: `${receiver.url}/del`, enabled_events: ['client.deleted'] });
    const off = await api.post('/webhook_endpoints', { url: `${receiver.url}/off`, enabled_events: ['*'] });
    await api.patch(`/webhook_endpoints/${off.body.id}`, { status: 'disabled' });

    const created = await api.post('/clients', { company_name: 'Stream Co', company_email: 's@stream.test' });
    const key = keys.item(ws, 'CLIENT', created.body.id);
    const v1 = await read(key);
    const updated = await api.patch(`/clients/${created.body.id}`, { company_name: 'Stream Inc' });
    const v2 = await read(key);
    const deleted = await api.delete(`/clients/${created.body.id}`);
    // The webhook endpoints' own items make no events.
    const endpointKey = keys.item(ws, 'WEBHOOK_ENDPOINT', all.body.id);
    const records = [change('INSERT', endpointKey, undefined, await read(endpointKey)), change('INSERT', key, undefined, v1), change('MODIFY', key, v1, v2), change('REMOVE', key, v2)];

    const result = await consumer.consumeChanges(records);
    expect(result.events.map((e) => e.event.type)).toEqual(['client.created', 'client.updated', 'client.deleted']);
    expect(result.events.map((e) => e.event.request_id)).toEqual([requestIdOf(created), requestIdOf(updated), requestIdOf(deleted)]);
    expect(result.events[1]!.event.data).toMatchObject({ object: { company_name: 'Stream Inc' }, previous_attributes: { company_name: 'Stream Co' } });
    expect(result.events[0]!.event.data.object).toEqual(created.body);

    const mine = sent.filter((m) => m.workspace_id === ws);
    expect(mine.filter((m) => m.endpoint_id === all.body.id).map((m) => m.event_id)).toEqual(result.events.map((e) => e.event.id));
    expect(mine.filter((m) => m.endpoint_id === deletesOnly.body.id).map((m) => m.event_id)).toEqual([result.events[2]!.event.id]);
    expect(mine.some((m) => m.endpoint_id === off.body.id)).toBe(false);

    // The same records again (a redelivered batch): no new event, the same ids queued again.
    const again = await consumer.consumeChanges(records);
    expect(again.events.map((e) => e.event.id)).toEqual(result.events.map((e) => e.event.id));
    expect(await eventsOf(ws)).toHaveLength(3);

    // Closed only once the stack's deliveries (three to one endpoint, one to the other) are in: none is retried to a closed port.
    await waitFor(async () => (receiver.received.length >= 4 ? true : undefined), "the shared stack's four deliveries");
    await receiver.close();
  });

  it('queues an event for an endpoint only if its change happened after the endpoint was created, however late its record is consumed', async () => {
    const { api, id: ws } = await workspace('consume-late');
    const receiver = await startReceiver();
    const created = await api.post('/clients', { company_name: 'Early Co', company_email: 'e@early.test' });
    const key = keys.item(ws, 'CLIENT', created.body.id);
    const v1 = await read(key);
    // The endpoint is created after the client, before the consumer below reads the client's record.
    const endpoint = await api.post('/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    expect(endpoint.status).toBe(201);
    await api.patch(`/clients/${created.body.id}`, { status: 'ACTIVE' });
    const v2 = await read(key);

    const result = await consumer.consumeChanges([change('INSERT', key, undefined, v1), change('MODIFY', key, v1, v2)]);
    expect(result.events.map((e) => e.event.type)).toEqual(['client.created', 'client.updated']);
    const queued = sent.filter((m) => m.workspace_id === ws && m.endpoint_id === endpoint.body.id).map((m) => m.event_id);
    expect(queued).toEqual([result.events[1]!.event.id]);

    // The shared stack delivers the update too: in before the receiver closes.
    await waitFor(async () => (receiver.received.length >= 1 ? true : undefined), "the shared stack's delivery");
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['client.updated']);
    expect((await api.delete(`/webhook_endpoints/${endpoint.body.id}`)).status).toBe(200);
    await receiver.close();
  });
});
