/**
 * The conditions the generic resource operations write, and how they read a failed one: the
 * cases DynamoDB Local cannot be made to produce on demand (an item that vanishes between the
 * read and the transaction), with a mocked client.
 */
import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';

Object.assign(process.env, { TABLE_NAME: 'timebill-unit', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'unit', AWS_SECRET_ACCESS_KEY: 'unit' });
const { create, remove, update, retrieve } = await import('../../shared/domain/entity.ts');
const { updateProject } = await import('../../shared/domain/projects.ts');
const { client, project, timeEntry } = await import('../../shared/model/resources.ts');
const { ApiError } = await import('../../shared/core/errors.ts');

const ddb = mockClient(DynamoDBDocumentClient);
const ctx = { workspaceId: 'ws', apiClientId: 'c', scopes: [], requestId: 'r' };
/** A token that could list what blocks a delete: the 409 counts it. */
const reader = { ...ctx, scopes: ['clients:write', 'projects:write', 'projects:read', 'time_entries:read'] };
const CLIENT_ID = 'cli_01M80V5QD5HHXT44J8T6S4HD6W';
const PROJECT_ID = 'prj_01M80V5Z1BGJ4D4KG6XRMJFSS6';
const ENTRY_ID = 'te_01M80V5Z1BGJ4D4KG6XRMJFSS7';
const now = new Date('2026-11-21T09:00:00.000Z');

const cancelled = (...reasons: CancellationReason[]) => new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
const failed = (item?: Record<string, unknown>): CancellationReason => ({ Code: 'ConditionalCheckFailed', ...(item ? { Item: marshall(item) } : {}) });
const NONE: CancellationReason = { Code: 'None' };
const conditionFailed = (item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, ...(item ? { Item: marshall(item) } : {}) });

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as InstanceType<typeof ApiError>;
}

const projectItem = (extra: Record<string, unknown> = {}) => ({
  PK: 'WS#ws',
  SK: `PROJECT#${PROJECT_ID}`,
  version: 3,
  time_entry_count: 0,
  data: { id: PROJECT_ID, client_id: CLIENT_ID, status: 'ACTIVE', name: 'Site', start_date: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' },
  ...extra,
});

beforeEach(() => ddb.reset());

describe('delete', () => {
  it('is 404 when the project vanished between the read and the transaction, not a 409', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    ddb.on(TransactWriteCommand).rejects(cancelled(failed(), NONE));
    const error = await refusal(remove(ctx, project, PROJECT_ID, undefined));
    expect(error.status).toBe(404);
    expect(error.message).toContain(PROJECT_ID);
  });

  it('is 409 naming the count when time entries still hold the project', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    ddb.on(TransactWriteCommand).rejects(cancelled(failed(projectItem({ time_entry_count: 2 })), NONE));
    const error = await refusal(remove(reader, project, PROJECT_ID, undefined));
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/still has 2 time entries and cannot be deleted/);
    expect(error.message).toMatch(/COMPLETED or CANCELLED/);
  });

  it('is 409 without a count to a token that cannot list what blocks the delete', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    ddb.on(TransactWriteCommand).rejects(cancelled(failed(projectItem({ time_entry_count: 2 })), NONE));
    const error = await refusal(remove({ ...ctx, scopes: ['projects:write', 'projects:read'] }, project, PROJECT_ID, undefined));
    expect(error.status).toBe(409);
    expect(error.message).toBe(
      `Project ${PROJECT_ID} still has time entries and cannot be deleted. Delete those first, or close the project instead by setting its status to COMPLETED or CANCELLED`,
    );
    expect(error.message).not.toMatch(/\d+ time entr/);
  });

  it('is 412 when the version moved past the If-Match, even while the guard also holds', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    ddb.on(TransactWriteCommand).rejects(cancelled(failed(projectItem({ version: 4, time_entry_count: 1 })), NONE));
    expect((await refusal(remove(ctx, project, PROJECT_ID, [3]))).status).toBe(412);
  });

  /** The deletion record a delete of an event-making resource writes in its own transaction (shared/data/deletion-records.ts). */
  const expectDeletionRecord = (put: { Item?: Record<string, unknown>; ConditionExpression?: string } | undefined, type: string, id: string) => {
    expect(put!.Item).toMatchObject({ PK: 'WS#ws#DELETION', SK: `${type}#${id}`, request_id: 'r' });
    const deletedAt = Date.parse(String(put!.Item!.deleted_at));
    expect(Number.isNaN(deletedAt)).toBe(false);
    // Kept three days (past the stream's 24 h), then expired by TTL.
    expect(put!.Item!.expires_at).toBe(Math.floor(deletedAt / 1000) + 3 * 24 * 60 * 60);
  };

  it('guards a client with both referrers\' counters and the If-Match versions, uncounting nothing, and records the deletion in the same transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await remove(ctx, client, CLIENT_ID, [1, 2]);
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(2);
    const input = items[0]!.Delete!;
    expect(input.Key).toEqual({ PK: 'WS#ws', SK: `CLIENT#${CLIENT_ID}` });
    expect(input.ConditionExpression).toBe('attribute_exists(PK) AND #version IN (:if_match_0, :if_match_1) AND #g0 = :zero AND #g1 = :zero AND #g2 = :zero');
    expect(input.ExpressionAttributeNames).toEqual({ '#version': 'version', '#g0': 'project_count', '#g1': 'time_entry_count', '#g2': 'invoice_count' });
    expect(input.ExpressionAttributeValues).toEqual({ ':if_match_0': 1, ':if_match_1': 2, ':zero': 0 });
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expectDeletionRecord(items[1]!.Put, 'CLIENT', CLIENT_ID);
    // The request id reaches the event through this record, never a plain delete that cannot carry it.
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it('names only the counters that hold a client, in the singular when one', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(failed({ version: 1, project_count: 1, time_entry_count: 0 }), NONE));
    const error = await refusal(remove(reader, client, CLIENT_ID, undefined));
    expect(error.status).toBe(409);
    expect(error.message).toBe(
      `Client ${CLIENT_ID} still has 1 project and cannot be deleted. Delete those first, or archive the client instead by setting its status to SLEEPING or LOST`,
    );
    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(cancelled(failed({ version: 1, project_count: 2, time_entry_count: 1 }), NONE));
    expect((await refusal(remove(reader, client, CLIENT_ID, undefined))).message).toMatch(/still has 2 projects and 1 time entry and/);
  });

  it('counts for a client only the referrers whose read scope the token holds', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(failed({ version: 1, project_count: 2, time_entry_count: 1 }), NONE));
    const only = (...scopes: string[]) => ({ ...ctx, scopes: ['clients:write', ...scopes] });
    expect((await refusal(remove(only(), client, CLIENT_ID, undefined))).message).toMatch(/still has projects and time entries and cannot be deleted/);
    expect((await refusal(remove(only('projects:read'), client, CLIENT_ID, undefined))).message).toMatch(/still has 2 projects and time entries and/);
    expect((await refusal(remove(only('time_entries:read', 'projects:write'), client, CLIENT_ID, undefined))).message).toMatch(/still has projects and 1 time entry and/);
  });

  it('is 404 for a client gone before the delete, and never reads first', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(failed(), NONE));
    expect((await refusal(remove(ctx, client, CLIENT_ID, undefined))).status).toBe(404);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('uncounts a time entry on its project and client, by name, and records the deletion', async () => {
    ddb.on(GetCommand).resolves({ Item: { version: 1, data: { id: ENTRY_ID, project_id: PROJECT_ID, client_id: CLIENT_ID } } });
    ddb.on(TransactWriteCommand).resolves({});
    expect(await remove(ctx, timeEntry, ENTRY_ID, undefined)).toEqual({ object: 'time_entry', id: ENTRY_ID, deleted: true });
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(4);
    expect(items[0]!.Delete!.ConditionExpression).toBe('attribute_exists(PK)');
    const counters = items.slice(1, 3).map((i) => [i.Update!.Key, i.Update!.ExpressionAttributeNames!['#counter'], i.Update!.ExpressionAttributeValues![':delta']]);
    expect(counters).toEqual([
      [{ PK: 'WS#ws', SK: `CLIENT#${CLIENT_ID}` }, 'time_entry_count', -1],
      [{ PK: 'WS#ws', SK: `PROJECT#${PROJECT_ID}` }, 'time_entry_count', -1],
    ]);
    expectDeletionRecord(items[3]!.Put, 'TIME_ENTRY', ENTRY_ID);
  });

  it('refuses an id of another kind without a call', async () => {
    expect((await refusal(remove(ctx, project, CLIENT_ID, undefined))).status).toBe(404);
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('create', () => {
  it('counts a time entry on its project on condition that the project belongs to the same client', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await create(ctx, timeEntry, { project_id: PROJECT_ID, client_id: CLIENT_ID, started_at: '2026-11-20T09:00:00.000Z', duration_minutes: 5 }, now);
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    const put = items[0]!.Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(put.Item).toMatchObject({ version: 1, GSI2PK: `WS#ws#TIME_ENTRY#project_id#${PROJECT_ID}`, GSI3PK: `WS#ws#TIME_ENTRY#client_id#${CLIENT_ID}` });
    expect(put.Item!.data).toMatchObject({ project_id: PROJECT_ID, client_id: CLIENT_ID, description: null, workspace_id: 'ws', created_at: now.toISOString() });
    const onProject = items[2]!.Update!;
    expect(onProject.Key).toEqual({ PK: 'WS#ws', SK: `PROJECT#${PROJECT_ID}` });
    expect(onProject.ConditionExpression).toBe('attribute_exists(PK) AND #data.#r_client_id = :r_client_id');
    expect(onProject.ExpressionAttributeValues).toEqual({ ':delta': 1, ':r_client_id': CLIENT_ID });
    const onClient = items[1]!.Update!;
    expect(onClient.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('reads a cancelled reference by its name', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(NONE, failed()));
    const error = await refusal(create(ctx, project, { name: 'Site', client_id: CLIENT_ID, billing_type: 'Monthly', status: 'ACTIVE', start_date: now.toISOString() }, now));
    expect(error.errors).toEqual([{ param: 'client_id', message: 'client_id does not name a client in this workspace' }]);
  });

  it('writes a resource without references with a plain conditional put, counters at zero', async () => {
    ddb.on(PutCommand).resolves({});
    const out = await create(ctx, client, { company_name: 'Ünïcode Co', company_email: 'a@b.co', status: 'LEAD', language: 'ENGLISH' }, now);
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({ project_count: 0, time_entry_count: 0, search_text: 'ünïcode co', version: 1 });
    expect(out.resource).toMatchObject({ object: 'client', relationship_start_date: now.toISOString(), website: null });
    expect(Object.keys(out.resource)[0]).toBe('object');
  });

  it('refuses a reference that cannot name anything, without a call', async () => {
    const error = await refusal(create(ctx, project, { name: 'Site', client_id: 'nope', billing_type: 'Monthly' }, now));
    expect(error.param).toBe('client_id');
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('update', () => {
  it('answers an empty change with the current resource when If-Match is current, writing nothing', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    const out = await update(ctx, project, PROJECT_ID, {}, [3], now);
    expect(out.version).toBe(3);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('refuses an empty change with a stale If-Match (412), and one naming nothing (404)', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    expect((await refusal(update(ctx, project, PROJECT_ID, {}, [2], now))).status).toBe(412);
    ddb.reset();
    ddb.on(GetCommand).resolves({});
    expect((await refusal(update(ctx, project, PROJECT_ID, {}, undefined, now))).status).toBe(404);
  });

  it('rewrites the index keys of a status change and the search field of a rename, in the data map, with the request id', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: projectItem() });
    await update(ctx, project, PROJECT_ID, { status: 'ON_HOLD', name: 'Nouveau' }, undefined, now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toBe(
      'SET #data.#f_status = :f_status, #data.#f_name = :f_name, #data.#f_updated_at = :f_updated_at, #a_GSI1PK = :a_GSI1PK, #a_GSI5SK = :a_GSI5SK, #a_search_text = :a_search_text, #a_request_id = :a_request_id, #version = if_not_exists(#version, :zero) + :one',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({
      // The request that made this version: its event carries it (shared/events/build.ts).
      ':a_request_id': 'r',
      ':a_GSI1PK': 'WS#ws#PROJECT#status#ON_HOLD',
      ':a_GSI5SK': `status#ON_HOLD#PROJECT#${PROJECT_ID}`,
      ':a_search_text': 'nouveau',
    });
    expect(input.ConditionExpression).toBe('attribute_exists(PK) AND #data.#f_updated_at < :f_updated_at');
  });

  it('checks both dates of a project in the request when both are sent, with no condition on the stored ones', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: projectItem() });
    await updateProject(ctx, PROJECT_ID, { start_date: '2026-02-01T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' }, undefined, now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('attribute_exists(PK) AND #data.#f_updated_at < :f_updated_at');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':f_start_date': '2026-02-01T00:00:00.000Z', ':f_end_date': '2026-03-01T00:00:00.000Z' });
    const error = await refusal(updateProject(ctx, PROJECT_ID, { start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-02-01T00:00:00.000Z' }, undefined, now));
    expect(error.param).toBe('end_date');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('checks one date sent against the stored other in the write, naming the field sent', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed(projectItem()));
    const error = await refusal(updateProject(ctx, PROJECT_ID, { start_date: '2026-05-01T00:00:00.000Z' }, undefined, now));
    expect(error.errors).toEqual([{ param: 'start_date', message: 'start_date must not be after end_date' }]);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toContain('(attribute_type(#data.#end_date, :null_type) OR #data.#end_date >= :f_start_date)');
    ddb.reset();
    ddb.on(UpdateCommand).rejects(conditionFailed(projectItem()));
    const endError = await refusal(updateProject(ctx, PROJECT_ID, { end_date: '2025-05-01T00:00:00.000Z' }, undefined, now));
    expect(endError.param).toBe('end_date');
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ConditionExpression).toContain('#data.#start_date <= :f_end_date');
  });
});

describe('retrieve', () => {
  it('answers the declared fields in order, absent ones null, with the stored version', async () => {
    ddb.on(GetCommand).resolves({ Item: projectItem() });
    const out = await retrieve(ctx, project, PROJECT_ID);
    expect(out.version).toBe(3);
    expect(Object.keys(out.resource)).toEqual(['object', 'id', ...project.fieldNames, 'workspace_id', 'created_at', 'updated_at']);
    expect(out.resource.end_date).toBeNull();
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ ConsistentRead: true, Key: { PK: 'WS#ws', SK: `PROJECT#${PROJECT_ID}` } });
  });
});

describe('create', () => {
  const input = { company_name: 'Acme', company_email: 'ap@acme.test' };

  it('counts a put that landed before its attempt timed out as done: the SDK retry meets our own item', async () => {
    // The retried attempt's condition fails on the item the first attempt wrote: same key, same creation.
    ddb.on(PutCommand).callsFake((put: { Item: Record<string, unknown> }) => Promise.reject(conditionFailed(put.Item)));
    const created = await create(ctx, client, input, now);
    expect(created.resource.company_name).toBe('Acme');
    expect(created.version).toBe(1);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('still fails on an item it did not write under that key', async () => {
    ddb.on(PutCommand).callsFake((put: { Item: Record<string, unknown> }) =>
      Promise.reject(conditionFailed({ ...put.Item, data: { ...(put.Item.data as object), created_at: '2020-01-01T00:00:00.000Z' } })),
    );
    await expect(create(ctx, client, input, now)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});
