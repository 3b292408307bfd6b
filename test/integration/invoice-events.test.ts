/**
 * An invoice's stream records through the stream consumer and the event store, in process over
 * DynamoDB Local (as event-consumer.test.ts): the events of decision 0023 in order, a delete's
 * request from its deletion record, none twice on redelivery, and in each invoice's view every
 * change naming the change before it (decision 0025), so sync mode on it never waits on a version
 * that made no event.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { follows } from '../../shared/events/sync.ts';
import { useSharedTable } from '../support/in-process.ts';
import { invoiceHistory } from '../support/invoice-items.ts';
import { streamRecord } from '../support/stream.ts';


let consumer: typeof import('../../shared/events/consumer.ts');
let dynamo: typeof import('../../shared/data/dynamo.ts');
let store: typeof import('../../shared/events/store.ts');
let keys: typeof import('../../shared/data/keys.ts').keys;
let deletionRecordPut: typeof import('../../shared/events/deletions.ts').deletionRecordPut;

beforeAll(async () => {
  useSharedTable('invoice-events-cursor-key');
  let keysModule, deletions;
  [consumer, dynamo, store, keysModule, deletions] = await Promise.all([
    import('../../shared/events/consumer.ts'),
    import('../../shared/data/dynamo.ts'),
    import('../../shared/events/store.ts'),
    import('../../shared/data/keys.ts'),
    import('../../shared/events/deletions.ts'),
  ]);
  ({ keys } = keysModule);
  ({ deletionRecordPut } = deletions);
});

/** An invoice's change records (its view in the event store), in order. */
const changesOf = async (ws: string, id: string) =>
  (
    await dynamo.dynamo().send(
      new QueryCommand({
        TableName: dynamo.tableName(),
        ConsistentRead: true,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.eventView(ws, store.objectView(id)) },
      }),
    )
  ).Items!;

describe("an invoice's events", () => {
  it('come from its seal, its PATCH, its transitions and its delete, once each, each change after the one before', async () => {
    const ws = `inv-events-${Date.now().toString(36)}`;
    const [paidId, deletedId, abandonedId] = ['inv_01JD00000000000000000000PA', 'inv_01JD00000000000000000000DE', 'inv_01JD00000000000000000000AB'];
    const a = invoiceHistory(ws, paidId);
    const d = invoiceHistory(ws, deletedId);
    const x = invoiceHistory(ws, abandonedId);
    const records = [
      streamRecord('INSERT', a.key, undefined, a.inserted), streamRecord('MODIFY', a.key, a.inserted, a.batched), streamRecord('MODIFY', a.key, a.batched, a.sealed),
      streamRecord('INSERT', x.key, undefined, x.inserted), streamRecord('REMOVE', x.key, x.inserted),
      streamRecord('MODIFY', a.key, a.sealed, a.patched), streamRecord('MODIFY', a.key, a.patched, a.finalized), streamRecord('MODIFY', a.key, a.finalized, a.paid),
      streamRecord('INSERT', d.key, undefined, d.inserted), streamRecord('MODIFY', d.key, d.inserted, d.batched), streamRecord('MODIFY', d.key, d.batched, d.sealed),
      streamRecord('MODIFY', d.key, d.sealed, d.patched), streamRecord('MODIFY', d.key, d.patched, d.deleteStarted), streamRecord('MODIFY', d.key, d.deleteStarted, d.emptied),
      streamRecord('REMOVE', d.key, d.emptied),
    ];
    // The delete's transaction wrote its deletion record (shared/events/deletions.ts).
    const deletion = deletionRecordPut(ws, 'INVOICE', deletedId, 'req-delete', new Date('2026-12-01T10:09:00Z'));
    await dynamo.dynamo().send(new PutCommand({ TableName: deletion.Put.TableName, Item: deletion.Put.Item }));

    const result = await consumer.consumeChanges(records);
    const seen = result.events.map(({ event }) => [event.data.object.id, event.type, event.request_id]);
    expect(seen).toEqual([
      [paidId, 'invoice.created', 'req-1'],
      [paidId, 'invoice.updated', 'req-2'],
      [paidId, 'invoice.finalized', 'req-3'],
      [paidId, 'invoice.paid', 'req-4'],
      [deletedId, 'invoice.created', 'req-1'],
      [deletedId, 'invoice.updated', 'req-2'],
      [deletedId, 'invoice.deleted', 'req-delete'],
    ]);
    const [created, , finalized, , , , deleted] = result.events.map(({ event }) => event);
    expect(created!.data).toEqual({ object: expect.objectContaining({ object: 'invoice', status: 'draft', lines: a.lines, total: '288.00' }) });
    expect(finalized!.data.previous_attributes).toMatchObject({ status: 'draft', number: null });
    expect(deleted!.created_at).toBe('2026-12-01T10:09:00.000Z');
    for (const { event } of result.events) expect(JSON.stringify(event)).not.toMatch(/"work"|locked_count|lease_until/);

    // Delivered again (a retried batch): the same events, none new.
    const again = await consumer.consumeChanges(records);
    expect(again.events.map(({ event }) => event.id)).toEqual(result.events.map(({ event }) => event.id));

    // Each invoice's view: its changes in order, each naming the one before (none for the first).
    for (const [id, count] of [[paidId, 4], [deletedId, 3], [abandonedId, 0]] as const) {
      const changes = await changesOf(ws, id);
      expect(changes, id).toHaveLength(count);
      changes.forEach((change, i) => {
        const before = i === 0 ? undefined : String(changes[i - 1]!.SK);
        expect(follows({ kind: 'object' }, change, { sequence: 0, change: before }), `${id} change ${i}`).toBe(true);
        // ...and not before its predecessor is read.
        if (i > 0) expect(follows({ kind: 'object' }, change, { sequence: 0, change: i === 1 ? undefined : String(changes[i - 2]!.SK) }), `${id} change ${i}`).toBe(false);
      });
    }
  });
});
