/**
 * The event store against DynamoDB Local, in process: what makes sync mode exact when several
 * consumers append to one workspace at once (as stream shards do in AWS), and what makes a
 * redelivered stream record harmless.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventDraft } from '../../shared/events/build.ts';

let store: typeof import('../../shared/events/store.ts');
let listEvents: typeof import('../../shared/domain/events.ts').listEvents;

beforeAll(async () => {
  Object.assign(process.env, {
    TABLE_NAME: inject('tableName'),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    CURSOR_SIGNING_KEY: 'x'.repeat(40),
  });
  store = await import('../../shared/events/store.ts');
  ({ listEvents } = await import('../../shared/domain/events.ts'));
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

describe('appending events', () => {
  it('keeps the visible events a gap-free prefix of the sequence while appenders race, so a tailing reader misses and repeats nothing', async () => {
    const ws = `store-${randomUUID().slice(0, 8)}`;
    const ctx = { workspaceId: ws, apiClientId: 't', scopes: [], requestId: 'r' };
    const appenders = 5;
    const perAppender = 12;
    let appending = true;
    const seen: any[] = [];
    const reader = (async () => {
      let after: string | undefined;
      for (;;) {
        const wasAppending = appending;
        const page = after === undefined ? await listEvents(ctx, { limit: 100 }) : await listEvents(ctx, { limit: 100, after });
        // The first read is newest-first: start from its oldest event, read the rest in sync mode.
        const batch = after === undefined ? [...page.data].reverse() : page.data;
        seen.push(...batch);
        if (batch.length > 0) after = batch[batch.length - 1]!.id;
        if (!wasAppending && batch.length === 0 && !page.has_more) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: appenders }, async (_, a) => {
        for (let n = 1; n <= perAppender; n++) await store.appendEvents(ws, [draft(ws, `cli_${a}`, n)]);
      }),
    );
    appending = false;
    await reader;
    expect(new Set(seen.map((e) => e.id)).size).toBe(appenders * perAppender);
    expect(seen.length).toBe(appenders * perAppender);
    // Each object's events in the order they were appended.
    for (let a = 0; a < appenders; a++) {
      expect(seen.filter((e) => e.data.object.id === `cli_${a}`).map((e) => e.data.object.n)).toEqual(Array.from({ length: perAppender }, (_, i) => i + 1));
    }
    // Ids sort as the sequence: the reader's order is the id order.
    expect(seen.map((e) => e.id)).toEqual([...seen.map((e) => e.id)].sort());
  });

  it('makes no second event of a change appended again (a redelivered record), and returns the first one', async () => {
    const ws = `redeliver-${randomUUID().slice(0, 8)}`;
    const drafts = [draft(ws, 'cli_a', 1), draft(ws, 'cli_a', 2)];
    const first = await store.appendEvents(ws, drafts);
    const again = await store.appendEvents(ws, [drafts[1]!, draft(ws, 'cli_a', 3)]);
    expect(again[0]!.event.id).toBe(first[1]!.event.id);
    expect(again[1]!.sequence).toBe(3);
    const ctx = { workspaceId: ws, apiClientId: 't', scopes: [], requestId: 'r' };
    expect((await listEvents(ctx, { limit: 100 })).data.map((e) => e.data.object.n)).toEqual([3, 2, 1]);
  });
});
