/**
 * The time-entry side of invoices (shared/domain/invoices/lock.ts, decision 0023): the shapes of the lock,
 * release and invoiced-totals parts; and the lock's rule in a PATCH and a DELETE when the lock
 * lands between their read and their write (a mocked client: DynamoDB Local cannot be made to
 * land it there on demand). Over HTTP: test/integration/time-entry-invoice-lock.test.ts.
 */
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';

Object.assign(process.env, { TABLE_NAME: 'timebill-unit', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'unit', AWS_SECRET_ACCESS_KEY: 'unit' });
const { lockEntryPart, releaseEntryPart, invoicedTotalsParts, INVOICED_LEVELS } = await import('../../shared/domain/invoices/lock.ts');
const { deleteTimeEntry, updateTimeEntry } = await import('../../shared/domain/time-entries.ts');
const { countersOf, totalsParts } = await import('../../shared/totals/totals.ts');
const { ApiError } = await import('../../shared/core/errors.ts');

const INVOICE = 'inv_01M80V5Z1BGJ4D4KG6XRMJFSS9';
const ENTRY_ID = 'te_01M80V5Z1BGJ4D4KG6XRMJFSS7';
const CLIENT = 'cli_01M80V5QD5HHXT44J8T6S4HD6W';
const PROJECT = 'prj_01M80V5Z1BGJ4D4KG6XRMJFSS6';
const STARTED = '2026-11-20T09:20:00.000Z';
const now = new Date('2026-11-21T09:00:00.000Z');

const entryItem = (version = 4, invoiceId: string | null = null) => ({
  PK: 'WS#ws',
  SK: `TIME_ENTRY#${ENTRY_ID}`,
  version,
  counted: 1,
  data: {
    id: ENTRY_ID,
    project_id: PROJECT as string | null,
    client_id: CLIENT,
    started_at: STARTED,
    duration_minutes: 30,
    billable: true,
    billable_rate: 90,
    description: null as string | null,
    invoice_id: invoiceId,
    workspace_id: 'ws',
    created_at: '2026-11-20T10:00:00.000Z',
    // Ahead of the lock's clock: updated_at still moves forward.
    updated_at: '2026-11-21T09:00:00.500Z',
  },
});
const entry = (over: Partial<ReturnType<typeof entryItem>['data']> = {}) => ({ ...entryItem().data, ...over });

describe('lockEntryPart', () => {
  it('sets invoice_id, a new version, updated_at, the request id, counted and the GSI4 partition key, on the version read and no invoice', () => {
    const update = lockEntryPart('ws', entryItem(), INVOICE, now, 'req-lock').Update!;
    expect(update.Key).toEqual({ PK: 'WS#ws', SK: `TIME_ENTRY#${ENTRY_ID}` });
    expect(update.ConditionExpression).toBe('attribute_exists(PK) AND #version = :read AND (attribute_not_exists(#data.#invoice_id) OR attribute_type(#data.#invoice_id, :NULL))');
    const names = update.ExpressionAttributeNames!;
    const values = update.ExpressionAttributeValues!;
    // Each SET target, resolved through the names and values.
    const sets = Object.fromEntries(
      update.UpdateExpression!.replace(/^SET /, '').split(', ').map((a) => {
        const [path, value] = a.split(' = ');
        return [path!.split('.').map((p) => names[p]).join('.'), values[value!]];
      }),
    );
    expect(sets).toEqual({
      'data.invoice_id': INVOICE,
      'data.updated_at': '2026-11-21T09:00:00.501Z',
      version: 5,
      request_id: 'req-lock',
      counted: 1,
      GSI4PK: `WS#ws#TIME_ENTRY#invoice_id#${INVOICE}`,
    });
    // Not the sort key GSI1 to GSI4 share: the entry holds it already (GSI1 lists every entry).
    expect(Object.values(names)).not.toContain('GSISK');
    expect(values[':read']).toBe(4);
    expect(values[':NULL']).toBe('NULL');
  });
});

describe('releaseEntryPart', () => {
  it('clears invoice_id and removes the GSI4 partition key (not the shared sort key), on condition that the entry names this invoice', () => {
    const update = releaseEntryPart('ws', entryItem(5, INVOICE), INVOICE, now, 'req-void').Update!;
    expect(update.Key).toEqual({ PK: 'WS#ws', SK: `TIME_ENTRY#${ENTRY_ID}` });
    expect(update.UpdateExpression).toBe('SET #data.#invoice_id = :none, #data.#updated_at = :updated, #version = #version + :one, #request_id = :request REMOVE #index_pk');
    expect(update.ConditionExpression).toBe('#data.#invoice_id = :invoice');
    expect(update.ExpressionAttributeNames).toEqual({ '#data': 'data', '#invoice_id': 'invoice_id', '#updated_at': 'updated_at', '#index_pk': 'GSI4PK', '#version': 'version', '#request_id': 'request_id' });
    expect(Object.values(update.ExpressionAttributeNames!)).not.toContain('GSISK');
    expect(update.ExpressionAttributeValues).toEqual({ ':none': null, ':updated': '2026-11-21T09:00:00.501Z', ':one': 1, ':request': 'req-void', ':invoice': INVOICE });
  });
});

/** What the parts add, by `PK|SK` and counter name. */
function addsOf(parts: Record<string, { Update?: { Key?: Record<string, unknown>; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } }>) {
  const out = new Map<string, Record<string, bigint>>();
  for (const part of Object.values(parts)) {
    const { Key, ExpressionAttributeNames: names, ExpressionAttributeValues: values } = part.Update!;
    const id = `${String(Key!.PK)}|${String(Key!.SK)}`;
    expect(out.has(id), `${id} touched twice`).toBe(false);
    out.set(id, Object.fromEntries(Object.entries(names!).map(([ref, name]) => [name, values![`:${ref.slice(1)}`] as bigint])));
  }
  return out;
}

describe('invoicedTotalsParts', () => {
  const a = entry();
  const b = entry({ duration_minutes: 45, billable_rate: 100.5 });
  const otherDay = entry({ started_at: '2026-11-21T23:59:00.000Z', duration_minutes: 15, project_id: null });

  it('adds each entry to its invoiced client and project items, one part per item however many entries fall on it', () => {
    const parts = invoicedTotalsParts('ws', [a, b, otherDay].map((e) => ({ entry: e, counted: true })), 1n);
    expect(Object.keys(parts)).toEqual(['invoiced0', 'invoiced1', 'invoiced2', 'invoiced3']);
    const adds = addsOf(parts);
    const q = 9 * 4 + 1; // 09:20 UTC
    const sum = countersOf(a).a + countersOf(b).a;
    expect(adds.get(`WS#ws#TOTALS#CLIENT_INVOICED#2026-11|${CLIENT}#20`)).toEqual({ [`m${q}`]: 75n, [`b${q}`]: 75n, [`a${q}`]: sum });
    expect(adds.get(`WS#ws#TOTALS#PROJECT_INVOICED#2026-11|${CLIENT}#${PROJECT}#20`)).toEqual({ [`m${q}`]: 75n, [`b${q}`]: 75n, [`a${q}`]: sum });
    expect(adds.get(`WS#ws#TOTALS#CLIENT_INVOICED#2026-11|${CLIENT}#21`)).toEqual({ m95: 15n, b95: 15n, a95: countersOf(otherDay).a });
    expect(adds.get(`WS#ws#TOTALS#PROJECT_INVOICED#2026-11|${CLIENT}#-#21`)).toEqual({ m95: 15n, b95: 15n, a95: countersOf(otherDay).a });
    expect(INVOICED_LEVELS).toEqual(['CLIENT_INVOICED', 'PROJECT_INVOICED']);
  });

  it('subtracts them on release, the same items with the opposite sign', () => {
    const locked = addsOf(invoicedTotalsParts('ws', [a, b].map((e) => ({ entry: e, counted: true })), 1n));
    const released = addsOf(invoicedTotalsParts('ws', [a, b].map((e) => ({ entry: e, counted: true })), -1n));
    expect([...released.keys()]).toEqual([...locked.keys()]);
    for (const [id, adds] of locked) expect(released.get(id)).toEqual(Object.fromEntries(Object.entries(adds).map(([n, v]) => [n, -v])));
  });

  it('counts a locked entry not counted before in the base levels too, merged with the others there; never on release', () => {
    const adds = addsOf(invoicedTotalsParts('ws', [{ entry: a, counted: true }, { entry: b, counted: false }], 1n));
    expect([...adds.keys()].map((id) => id.split('|')[0]!.split('#')[3])).toEqual(['CLIENT_INVOICED', 'PROJECT_INVOICED', 'CLIENT', 'PROJECT']);
    // The base levels take b alone, as the totals of a log of b would.
    const base = addsOf(totalsParts('ws', undefined, b));
    for (const [id, counters] of base) expect(adds.get(id)).toEqual(counters);
    expect([...addsOf(invoicedTotalsParts('ws', [{ entry: b, counted: false }], -1n)).keys()].every((id) => id.includes('_INVOICED'))).toBe(true);
  });

  it('leaves out what adds nothing: no parts for no entries, no counter of an unbillable entry but its minutes', () => {
    expect(invoicedTotalsParts('ws', [], 1n)).toEqual({});
    const adds = addsOf(invoicedTotalsParts('ws', [{ entry: entry({ billable: false }), counted: true }], 1n));
    for (const counters of adds.values()) expect(counters).toEqual({ m37: 30n });
  });
});

describe('totalsParts (shared/totals/totals.ts), which the invoiced parts build on', () => {
  const a = entry();
  const q = 9 * 4 + 1; // 09:20 UTC
  const client = `WS#ws#TOTALS#CLIENT#2026-11|${CLIENT}#20`;
  const project = `WS#ws#TOTALS#PROJECT#2026-11|${CLIENT}#${PROJECT}#20`;

  it('writes nothing when nothing a summary shows changes (a write of the description)', () => {
    expect(totalsParts('ws', a, entry({ description: 'changed' }))).toEqual({});
    expect(totalsParts('ws', undefined, undefined)).toEqual({});
  });

  it('subtracts the state before and adds the one after, on each item, only the counters that change', () => {
    const longer = entry({ duration_minutes: 45 });
    const adds = addsOf(totalsParts('ws', a, longer));
    const value = countersOf(longer).a - countersOf(a).a;
    expect(value).toBe(countersOf(entry({ duration_minutes: 15 })).a);
    expect([...adds.keys()]).toEqual([client, project]);
    for (const id of [client, project]) expect(adds.get(id)).toEqual({ [`m${q}`]: 15n, [`b${q}`]: 15n, [`a${q}`]: value });
    // Counted no more (deleted): its counters taken away.
    const removed = addsOf(totalsParts('ws', a, undefined));
    for (const id of [client, project]) expect(removed.get(id)).toEqual({ [`m${q}`]: -30n, [`b${q}`]: -30n, [`a${q}`]: -countersOf(a).a });
  });
});

const ddb = mockClient(DynamoDBDocumentClient);
const ctx = { workspaceId: 'ws', apiClientId: 'c', scopes: [], requestId: 'req-edit' };
const FAILED: CancellationReason = { Code: 'ConditionalCheckFailed' };
const NONE: CancellationReason = { Code: 'None' };
const cancelled = (...reasons: CancellationReason[]) => new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });


describe('the lock on PATCH and DELETE', () => {
  beforeEach(() => ddb.reset());

  it.each([
    ['PATCH', () => updateTimeEntry(ctx, ENTRY_ID, { duration_minutes: 10 }, undefined, now)],
    ['a move', () => updateTimeEntry(ctx, ENTRY_ID, { project_id: null }, undefined, now)],
    ['an empty PATCH', () => updateTimeEntry(ctx, ENTRY_ID, {}, undefined, now)],
    ['DELETE', () => deleteTimeEntry(ctx, ENTRY_ID)],
  ])('refuses %s of an entry read on an invoice with a 409 naming it, writing nothing', async (_what, call) => {
    ddb.on(GetCommand).resolves({ Item: entryItem(5, INVOICE) });
    await expect(call()).rejects.toSatisfy((e) => e instanceof ApiError && e.status === 409 && e.type === 'time_entry_invoiced' && e.message.includes(INVOICE));
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it.each([
    ['PATCH', () => updateTimeEntry(ctx, ENTRY_ID, { duration_minutes: 10 }, undefined, now), (r: CancellationReason) => [r, NONE, NONE, NONE, NONE]],
    ['DELETE', () => deleteTimeEntry(ctx, ENTRY_ID), (r: CancellationReason) => [r, NONE, NONE, NONE, NONE, NONE]],
  ])('answers the 409 when a lock lands between the read and the write of %s: the write holds the rule and cancels', async (_what, call, reasons) => {
    ddb.on(GetCommand).resolvesOnce({ Item: entryItem(4) }).resolves({ Item: entryItem(5, INVOICE) });
    // The entry's condition fails, returning the locked entry (DELETE reads its version).
    ddb.on(TransactWriteCommand).rejects(cancelled(...reasons({ ...FAILED, Item: { version: { N: '5' }, data: { M: { invoice_id: { S: INVOICE } } } } })));
    await expect(call()).rejects.toMatchObject({ type: 'time_entry_invoiced' });
    const writes = ddb.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(1);
    const entryWrite = writes[0]!.args[0].input.TransactItems![0]!;
    const condition = entryWrite.Update?.ConditionExpression ?? entryWrite.Delete?.ConditionExpression;
    expect(condition).toContain('(attribute_not_exists(#data.#invoice_id) OR attribute_type(#data.#invoice_id, :NULL))');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
  });
});
