/**
 * Sync mode under DynamoDB's read-committed Query (decision 0018): a Query may return some items of
 * an append transaction and not others, and an event's feed item and type-view copy are written
 * after its transaction. DynamoDB Local never shows that, so the document client is mocked
 * (aws-sdk-client-mock) to answer each Query as DynamoDB Local does, less the items of one event
 * of a transaction, as a Query running while that transaction is being applied could. Every page
 * must stop before the missing event, and the next poll must show it, in order.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient, type AwsStub } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventDraft } from '../../shared/events/build.ts';
import type { CallerContext } from '../../shared/domain/context.ts';
import { EVENT_OBJECTS } from '../../shared/model/event-types.ts';
import { readScopeOf } from '../../shared/events/visibility.ts';
import { useSharedTable } from '../support/in-process.ts';

let store: typeof import('../../shared/events/store.ts');
let feed: typeof import('../../shared/domain/event-feed.ts');
let real: DynamoDBDocumentClient;
let dynamoModule: typeof import('../../shared/data/dynamo.ts');
let docMock: AwsStub<any, any, any> | undefined;

beforeAll(async () => {
  useSharedTable('isolation-cursor-key-0123456789abcdef');
  store = await import('../../shared/events/store.ts');
  feed = await import('../../shared/domain/event-feed.ts');
  dynamoModule = await import('../../shared/data/dynamo.ts');
  real = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: process.env.AWS_REGION }));
});

afterEach(() => {
  docMock?.restore();
  docMock = undefined;
});

const change = (ws: string, type: EventDraft['type'], objectId: string, version: number): EventDraft => ({
  workspaceId: ws,
  type,
  kind: type.startsWith('client') ? 'CLIENT' : 'PROJECT',
  objectId,
  createdAt: new Date().toISOString(),
  requestId: `req-${objectId}-${version}`,
  object: { object: type.slice(0, type.indexOf('.')), id: objectId, version },
  ...(type.endsWith('.updated') ? { previousAttributes: { version: version - 1 } } : {}),
  changeKey: `${type.startsWith('client') ? 'CLIENT' : 'PROJECT'}#${objectId}#${type.slice(type.indexOf('.') + 1)}#v${version}`,
});

/** Every Query answered as DynamoDB Local answers it, without the items of the event `hidden` names. */
function hideFromQueries(hidden: string) {
  const queries: string[] = [];
  docMock = mockClient(dynamoModule.dynamo());
  docMock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
  docMock.on(QueryCommand).callsFake(async (input: QueryCommandInput) => {
    const out = await real.send(new QueryCommand(input));
    const items = out.Items ?? [];
    const kept = items.filter((item) => JSON.parse(String(item.body)).id !== hidden);
    if (kept.length < items.length) queries.push(String(input.ExpressionAttributeValues?.[':pk']));
    return { ...out, Items: kept };
  });
  return queries;
}

/** By default every collection that makes events is readable: the feed itself, not its type views. */
const caller = (ws: string, scopes = ['events:read', ...new Set(EVENT_OBJECTS.map(readScopeOf))]): CallerContext => ({
  workspaceId: ws,
  apiClientId: 'isolation',
  scopes,
  requestId: randomUUID(),
});

const ids = (page: { data: { id: string }[] }) => page.data.map((e) => e.id);

describe('sync mode when a Query sees part of an append transaction', () => {
  const cases: { name: string; query: Record<string, string>; scopes?: string[]; partition: (ws: string) => string }[] = [
    { name: 'the whole feed', query: {}, partition: (ws) => `WS#${ws}#EVENT` },
    { name: 'a type view (type=)', query: { type: 'client.updated' }, partition: (ws) => `WS#${ws}#EVENT_BY#type#client.updated` },
    { name: "an object's view (object_id=)", query: { object_id: 'cli_a' }, partition: (ws) => `WS#${ws}#EVENT_BY#object_id#cli_a` },
    {
      name: 'merged type views (a token that reads clients only)',
      query: {},
      scopes: ['events:read', 'clients:read'],
      partition: (ws) => `WS#${ws}#EVENT_BY#type#client.updated`,
    },
  ];
  for (const c of cases) {
    it(`stops before the missing event, and shows it next time, in order: ${c.name}`, async () => {
      const ws = `iso-${randomUUID().slice(0, 8)}`;
      const [start] = await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
      // One transaction of three events of cli_a; the middle one is the one a Query misses.
      const group = await store.appendEvents(ws, [2, 3, 4].map((v) => change(ws, 'client.updated', 'cli_a', v)));
      const [second, hidden, fourth] = group.map((s) => s.event.id);
      const query = { limit: 25, after: start!.event.id, ...c.query } as Parameters<typeof feed.listEvents>[1];

      const queries = hideFromQueries(hidden!);
      const partial = await feed.listEvents(caller(ws, c.scopes), query);
      // The mock did hide the event from a Query that read past it; the page stopped before its place.
      expect(queries).toContain(c.partition(ws));
      expect(ids(partial)).toEqual([second]);
      expect(partial.has_more).toBe(false);
      docMock!.restore();
      docMock = undefined;

      const next = await feed.listEvents(caller(ws, c.scopes), { ...query, after: second! });
      expect(ids(next)).toEqual([hidden, fourth]);
    });
  }

  it('in a merged page, holds back an event of one view while an earlier event of another view is missing', async () => {
    const ws = `iso-${randomUUID().slice(0, 8)}`;
    const [start] = await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
    const group = await store.appendEvents(ws, [change(ws, 'client.updated', 'cli_a', 2), change(ws, 'project.created', 'prj_b', 1), change(ws, 'client.updated', 'cli_a', 3)]);
    const [clientEvent, projectEvent, laterClientEvent] = group.map((s) => s.event.id);
    const scopes = ['events:read', 'clients:read', 'projects:read'];
    const query = { limit: 25, after: start!.event.id } as Parameters<typeof feed.listEvents>[1];

    hideFromQueries(projectEvent!);
    const partial = await feed.listEvents(caller(ws, scopes), query);
    // The client view is whole, but the later client event's `vec` names a project event not read yet.
    expect(ids(partial)).toEqual([clientEvent]);
    docMock!.restore();
    docMock = undefined;
    expect(ids(await feed.listEvents(caller(ws, scopes), { ...query, after: clientEvent! }))).toEqual([projectEvent, laterClientEvent]);
  });

  it('passes a missing event once the event after it is older than the bound: it can no longer be written', async () => {
    const ws = `iso-${randomUUID().slice(0, 8)}`;
    const [start] = await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
    const group = await store.appendEvents(ws, [2, 3, 4].map((v) => change(ws, 'client.updated', 'cli_a', v)));
    const [second, hidden, fourth] = group.map((s) => s.event.id);
    const { GAP_BOUND_MS } = await import('../../shared/events/sync.ts');
    hideFromQueries(hidden!);
    const query = { limit: 25, after: start!.event.id } as Parameters<typeof feed.listEvents>[1];
    const later = new Date(Date.now() + GAP_BOUND_MS + 60_000);
    expect(ids(await feed.listEvents(caller(ws), query, later))).toEqual([second, fourth]);
    expect(ids(await feed.listEvents(caller(ws), query, new Date(Date.now() + GAP_BOUND_MS - 60_000)))).toEqual([second]);
  });

  it('a crash between the transaction and the feed items leaves a gap that the redelivered records fill, with the same events', async () => {
    const ws = `iso-${randomUUID().slice(0, 8)}`;
    const [start] = await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
    const drafts = [2, 3].map((v) => change(ws, 'client.updated', 'cli_a', v));
    docMock = mockClient(dynamoModule.dynamo());
    docMock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
    docMock.on(TransactWriteCommand).callsFake((input) => real.send(new TransactWriteCommand(input)));
    docMock.on(BatchWriteCommand).rejects(new Error('the consumer stopped here'));
    await expect(store.appendEvents(ws, drafts)).rejects.toThrow('the consumer stopped here');
    docMock.restore();
    docMock = undefined;
    const query = { limit: 25, after: start!.event.id } as Parameters<typeof feed.listEvents>[1];
    // The transaction committed (the counter moved), the feed items were never written: nothing to show yet.
    expect(ids(await feed.listEvents(caller(ws), query))).toEqual([]);
    // The stream delivers the records again: their change records exist, so the same events come back and their items are written.
    const again = await store.appendEvents(ws, drafts);
    expect(again.map((s) => s.sequence)).toEqual([2, 3]);
    expect(ids(await feed.listEvents(caller(ws), query))).toEqual(again.map((s) => s.event.id));
    expect(ids(await feed.listEvents(caller(ws), { ...query, type: 'client.updated' }))).toEqual(again.map((s) => s.event.id));
  });

  it("syncs after an event read in its object's view before its feed item is written (object_id=)", async () => {
    const ws = `iso-${randomUUID().slice(0, 8)}`;
    await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
    // The transaction commits; the feed items are not written yet (here: not at all, as after a crash).
    docMock = mockClient(dynamoModule.dynamo());
    docMock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
    docMock.on(TransactWriteCommand).callsFake((input) => real.send(new TransactWriteCommand(input)));
    docMock.on(BatchWriteCommand).rejects(new Error('the feed items come later'));
    await expect(store.appendEvents(ws, [2, 3].map((v) => change(ws, 'client.updated', 'cli_a', v)))).rejects.toThrow('the feed items come later');
    docMock.restore();
    docMock = undefined;

    // The object's view already shows both changes: a reader may take the older one as its place.
    const seen = await feed.listEvents(caller(ws), { limit: 25, object_id: 'cli_a' } as Parameters<typeof feed.listEvents>[1]);
    expect(seen.data.map((e) => e.type)).toEqual(['client.updated', 'client.updated', 'client.created']);
    const [third, second] = ids(seen);
    const synced = await feed.listEvents(caller(ws), { limit: 25, object_id: 'cli_a', after: second } as Parameters<typeof feed.listEvents>[1]);
    expect(ids(synced)).toEqual([third]);
    // The whole feed has no item of it yet, so there `after` names no event it can place.
    await expect(feed.listEvents(caller(ws), { limit: 25, after: second } as Parameters<typeof feed.listEvents>[1])).rejects.toMatchObject({ status: 400, param: 'after' });
  });

  it('syncs after an event read in its type view before its feed item lands (type=, or a merged page)', async () => {
    const ws = `iso-${randomUUID().slice(0, 8)}`;
    await store.appendEvents(ws, [change(ws, 'client.created', 'cli_a', 1)]);
    const [second, third] = (await store.appendEvents(ws, [2, 3].map((v) => change(ws, 'client.updated', 'cli_a', v)))).map((s) => s.event.id);
    // The feed item and the type-view copy are one BatchWriteItem, whose items land in any order:
    // here the copy is there and the feed item not yet.
    await real.send(new DeleteCommand({ TableName: dynamoModule.tableName(), Key: { PK: `WS#${ws}#EVENT`, SK: `EVENT#${second}` } }));
    const query = { limit: 25, after: second, type: 'client.updated' } as Parameters<typeof feed.listEvents>[1];
    expect(ids(await feed.listEvents(caller(ws), query))).toEqual([third]);
    // So does a token that reads some collections only: its pages merge their types' views.
    const merged = { limit: 25, after: second } as Parameters<typeof feed.listEvents>[1];
    expect(ids(await feed.listEvents(caller(ws, ['events:read', 'clients:read']), merged))).toEqual([third]);
    // The whole feed, read by a token that reads everything, has no item of it yet.
    await expect(feed.listEvents(caller(ws), merged)).rejects.toMatchObject({ status: 400, param: 'after' });
  });
});
