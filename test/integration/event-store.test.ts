/**
 * The event store against DynamoDB Local, in process: what makes sync mode exact when several
 * consumers append to one workspace at once (as stream shards do in AWS), and what makes a
 * redelivered stream record harmless. (From issue-12; the feed's own reads join with the feed.)
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSharedTable } from '../support/in-process.ts';
import type { EventDraft } from '../../shared/events/build.ts';

let store: typeof import('../../shared/events/store.ts');
let dynamo: typeof import('../../shared/data/dynamo.ts');
let keys: typeof import('../../shared/data/keys.ts').keys;

beforeAll(async () => {
  useSharedTable('event-store-test-cursor-signing-key-01234567890');
  store = await import('../../shared/events/store.ts');
  dynamo = await import('../../shared/data/dynamo.ts');
  ({ keys } = await import('../../shared/data/keys.ts'));
});

const draft = (workspaceId: string, objectId: string, n: number): EventDraft => ({
  workspaceId,
  type: 'client.updated',
  kind: 'CLIENT',
  objectId,
  createdAt: new Date().toISOString(),
  requestId: `req-${objectId}-${n}`,
  object: { object: 'client', id: objectId, n },
  previousAttributes: { n: n - 1 },
  changeKey: `CLIENT#${objectId}#updated#v${n}`,
});

/** The workspace's events in id order (oldest first), as the feed's sync mode reads them. */
async function eventsOf(workspaceId: string, partition = keys.eventPartition(workspaceId), prefix = 'EVENT#'): Promise<{ id: string; sequence: number; event: any }[]> {
  const out: { id: string; sequence: number; event: any }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.dynamo().send(
      new QueryCommand({
        TableName: dynamo.tableName(),
        ConsistentRead: true,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const event = JSON.parse(String(item.body));
      out.push({ id: event.id, sequence: Number(item.sequence), event });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

describe('appending events', () => {
  it('gives racing appenders a gap-free sequence whose id order is the sequence order, each object in its append order', async () => {
    const ws = `store-${randomUUID().slice(0, 8)}`;
    const appenders = 4;
    const perAppender = 8;
    await Promise.all(
      Array.from({ length: appenders }, async (_, a) => {
        for (let n = 1; n <= perAppender; n++) await store.appendEvents(ws, [draft(ws, `cli_${a}`, n)]);
      }),
    );
    const seen = await eventsOf(ws);
    expect(seen.map((e) => e.sequence)).toEqual(Array.from({ length: appenders * perAppender }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.id)).size).toBe(appenders * perAppender);
    for (let a = 0; a < appenders; a++) {
      expect(seen.filter((e) => e.event.data.object.id === `cli_${a}`).map((e) => e.event.data.object.n)).toEqual(
        Array.from({ length: perAppender }, (_, i) => i + 1),
      );
    }
    expect(seen[0]!.event).toMatchObject({ object: 'event', type: 'client.updated', workspace_id: ws, data: { previous_attributes: { n: 0 } } });
    // Each event's view copies (its type's copy, its object's change record) were written with it: the
    // same events, in the same order, as the feed's own partition filtered to the view.
    expect(await eventsOf(ws, keys.eventView(ws, { by: 'type', value: 'client.updated' }))).toEqual(seen);
    expect(await eventsOf(ws, keys.eventView(ws, { by: 'type', value: 'client.created' }))).toEqual([]);
    expect(await eventsOf(ws, keys.eventView(ws, { by: 'object_id', value: 'cli_2' }), 'CHANGE#')).toEqual(seen.filter((e) => e.event.data.object.id === 'cli_2'));
  });

  it('reads the counter once while it alone appends to a workspace; moved by another appender since, it appends after that one', async () => {
    const ws = `counter-${randomUUID().slice(0, 8)}`;
    const counterKey = keys.eventSequence(ws);
    let counterReads = 0;
    const client = dynamo.dynamoClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: Record<string, unknown> };
        if (context.commandName === 'GetItemCommand' && Key?.PK === counterKey.PK && Key.SK === counterKey.SK) counterReads++;
        return next(args);
      },
      { step: 'initialize', name: 'countCounterReads' },
    );
    try {
      for (let n = 1; n <= 3; n++) await store.appendEvents(ws, [draft(ws, 'cli_a', n)]);
      expect(counterReads).toBe(1);
      // Another consumer appends (as another shard's would): the counter moves past what this one wrote.
      await dynamo.dynamo().send(new UpdateCommand({ TableName: dynamo.tableName(), Key: counterKey, UpdateExpression: 'SET #value = :moved', ExpressionAttributeNames: { '#value': 'value' }, ExpressionAttributeValues: { ':moved': 4 } }));
      const [after] = await store.appendEvents(ws, [draft(ws, 'cli_a', 4)]);
      expect(after!.sequence).toBe(5);
      expect(counterReads).toBe(2);
    } finally {
      client.middlewareStack.remove('countCounterReads');
    }
    expect((await eventsOf(ws)).map((e) => e.sequence)).toEqual([1, 2, 3, 5]);
  });

  it('makes no second event of a change appended again (a redelivered record), and returns the first one', async () => {
    const ws = `redeliver-${randomUUID().slice(0, 8)}`;
    const drafts = [draft(ws, 'cli_a', 1), draft(ws, 'cli_a', 2)];
    const first = await store.appendEvents(ws, drafts);
    const again = await store.appendEvents(ws, [drafts[1]!, draft(ws, 'cli_a', 3)]);
    expect(again[0]!.event.id).toBe(first[1]!.event.id);
    expect(again[1]!.sequence).toBe(3);
    expect((await eventsOf(ws)).map((e) => e.event.data.object.n)).toEqual([1, 2, 3]);
  });
});
