/**
 * The move of a time entry (shared/domain/time-entries.ts): the transaction it writes, and the
 * cases DynamoDB Local cannot be made to produce on demand (the entry changed by another writer
 * between the read and the transaction, every time), with a mocked client.
 */
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';

Object.assign(process.env, { TABLE_NAME: 'timebill-unit', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'unit', AWS_SECRET_ACCESS_KEY: 'unit' });
const { updateTimeEntry } = await import('../../shared/domain/time-entries.ts');
const { ApiError } = await import('../../shared/core/errors.ts');

const ddb = mockClient(DynamoDBDocumentClient);
const ctx = { workspaceId: 'ws', apiClientId: 'c', scopes: [], requestId: 'req-move' };
const CLIENT_A = 'cli_01M80V5QD5HHXT44J8T6S4HD6W';
const CLIENT_B = 'cli_01M80V5QD5HHXT44J8T6S4HD6X';
const PROJECT_A = 'prj_01M80V5Z1BGJ4D4KG6XRMJFSS6';
const PROJECT_B = 'prj_01M80V5Z1BGJ4D4KG6XRMJFSS8';
const ENTRY_ID = 'te_01M80V5Z1BGJ4D4KG6XRMJFSS7';
const STARTED = '2026-11-20T09:00:00.000Z';
const now = new Date('2026-11-21T09:00:00.000Z');

const entryItem = (version = 4) => ({
  PK: 'WS#ws',
  SK: `TIME_ENTRY#${ENTRY_ID}`,
  GSI1PK: 'WS#ws#TIME_ENTRY',
  GSI2PK: `WS#ws#TIME_ENTRY#project_id#${PROJECT_A}`,
  GSI3PK: `WS#ws#TIME_ENTRY#client_id#${CLIENT_A}`,
  GSISK: `TIME_ENTRY#${STARTED}#${ENTRY_ID}`,
  version,
  data: {
    id: ENTRY_ID,
    project_id: PROJECT_A,
    client_id: CLIENT_A,
    started_at: STARTED,
    duration_minutes: 30,
    billable: true,
    description: null,
    workspace_id: 'ws',
    created_at: '2026-11-20T10:00:00.000Z',
    // A stored time ahead of the request's clock: the move's updated_at must still move forward.
    updated_at: '2026-11-21T09:00:00.500Z',
  },
});
const projectB = { PK: 'WS#ws', SK: `PROJECT#${PROJECT_B}`, version: 1, data: { id: PROJECT_B, client_id: CLIENT_B } };

const cancelled = (...reasons: CancellationReason[]) => new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
const NONE: CancellationReason = { Code: 'None' };
const FAILED: CancellationReason = { Code: 'ConditionalCheckFailed' };

function answerReads() {
  ddb.on(GetCommand).callsFake((input: { Key: { SK: string } }) => ({ Item: input.Key.SK.startsWith('PROJECT#') ? projectB : entryItem() }));
}

beforeEach(() => ddb.reset());

describe('moving a time entry', () => {
  it("writes the entry on condition of the version read, and moves both owners' counters, in one transaction", async () => {
    answerReads();
    ddb.on(TransactWriteCommand).resolves({});
    const moved = await updateTimeEntry(ctx, ENTRY_ID, { project_id: PROJECT_B, duration_minutes: 45 }, undefined, now);
    expect(moved.version).toBe(5);
    expect(moved.resource).toMatchObject({ project_id: PROJECT_B, client_id: CLIENT_B, duration_minutes: 45, started_at: STARTED, updated_at: '2026-11-21T09:00:00.501Z' });
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    // The entry, four counters, and its totals (minutes, billable and unpriced: it has no rate): an entry stored before them counts only where it goes.
    expect(items).toHaveLength(7);
    expect(items.slice(5).map((i) => [i.Update!.Key!.PK, i.Update!.UpdateExpression])).toEqual([
      [`WS#ws#TOTALS#CLIENT#${STARTED.slice(0, 7)}`, 'ADD #c0 :c0, #c1 :c1, #c2 :c2'],
      [`WS#ws#TOTALS#PROJECT#${STARTED.slice(0, 7)}`, 'ADD #c0 :c0, #c1 :c1, #c2 :c2'],
    ]);
    const entry = items[0]!.Update!;
    // The lock's rule stands in the write: an invoice's lock landing after the read cancels it.
    expect(entry.ConditionExpression).toBe('attribute_exists(PK) AND #version = :read AND (attribute_not_exists(#data.#invoice_id) OR attribute_type(#data.#invoice_id, :NULL))');
    expect(entry.ExpressionAttributeNames).toMatchObject({ '#invoice_id': 'invoice_id' });
    expect(entry.ExpressionAttributeValues).toMatchObject({ ':NULL': 'NULL' });
    // It had no invoice index keys: none to remove.
    expect(entry.UpdateExpression).not.toContain('REMOVE');
    expect(entry.ExpressionAttributeValues).toMatchObject({
      ':read': 4,
      ':next': 5,
      ':a_GSI2PK': `WS#ws#TIME_ENTRY#project_id#${PROJECT_B}`,
      ':a_GSI3PK': `WS#ws#TIME_ENTRY#client_id#${CLIENT_B}`,
      ':a_GSISK': `TIME_ENTRY#${STARTED}#${ENTRY_ID}`,
      ':a_request_id': 'req-move',
    });
    const counters = items.slice(1, 5).map((i) => [i.Update!.Key!.SK, i.Update!.ExpressionAttributeValues![':delta']]);
    expect(counters).toEqual([
      [`PROJECT#${PROJECT_A}`, -1],
      [`PROJECT#${PROJECT_B}`, 1],
      [`CLIENT#${CLIENT_A}`, -1],
      [`CLIENT#${CLIENT_B}`, 1],
    ]);
    // Joining the project: it must exist and still belong to the client the entry takes.
    expect(items[2]!.Update!.ConditionExpression).toContain('#data.#owner_client = :owner_client');
    expect(items[2]!.Update!.ExpressionAttributeValues![':owner_client']).toBe(CLIENT_B);
  });

  it('removes the project index keys of an entry that leaves its project', async () => {
    answerReads();
    ddb.on(TransactWriteCommand).resolves({});
    await updateTimeEntry(ctx, ENTRY_ID, { project_id: null }, undefined, now);
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(4);
    // Its project index's partition key alone: the sort key is the one its other indexes share.
    expect(items[0]!.Update!.UpdateExpression).toMatch(/ REMOVE #gone0$/);
    expect(items[0]!.Update!.ExpressionAttributeNames!['#gone0']).toBe('GSI2PK');
    expect(items[1]!.Update!.Key!.SK).toBe(`PROJECT#${PROJECT_A}`);
  });

  it('reads again and retries when another writer changed the entry in between, then gives up with a 503', async () => {
    answerReads();
    ddb.on(TransactWriteCommand).rejects(cancelled(FAILED, NONE, NONE, NONE, NONE));
    const error = await updateTimeEntry(ctx, ENTRY_ID, { project_id: PROJECT_B }, undefined, now).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as InstanceType<typeof ApiError>).status).toBe(503);
    expect((error as InstanceType<typeof ApiError>).headers['Retry-After']).toBe('1');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(20);
  });

  it('is a 412 when the entry moved past the If-Match before the read, with nothing written', async () => {
    answerReads();
    const error = await updateTimeEntry(ctx, ENTRY_ID, { project_id: PROJECT_B }, [3], now).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as InstanceType<typeof ApiError>).status).toBe(412);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('names project_id when the target project went away between the read and the transaction', async () => {
    answerReads();
    ddb.on(TransactWriteCommand).rejects(cancelled(NONE, NONE, FAILED, NONE, NONE));
    const error = await updateTimeEntry(ctx, ENTRY_ID, { project_id: PROJECT_B }, undefined, now).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as InstanceType<typeof ApiError>).status).toBe(400);
    expect((error as InstanceType<typeof ApiError>).param).toBe('project_id');
  });
});
