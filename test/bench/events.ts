/**
 * Section 8: events and webhooks on the local stack.
 *
 * - Units per change: what the stream consumer spends to turn one change into its event (run in
 *   process on a record built from a real item, in a workspace of its own so that nothing is a
 *   duplicate), beside the floor docs/data-model.md derives: one put of the event item.
 * - Feed lag: from the response to a change to its event being visible in the feed (sync mode).
 * - Delivery lag: from the response to a change to its webhook reaching a local receiver.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { keys } from '../../shared/data/keys.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../shared/data/table.ts';
import { newId } from '../../shared/core/ids.ts';
import { observe, unitsOf, type ObservedCall, type Units } from './lib/sdk-hooks.ts';
import { itemSize } from './scenarios.ts';
import { quantile } from './lib/stats.ts';
import { atFloorRules, transactionCharges } from './units.ts';
import type { StreamChange } from '../../shared/events/build.ts';
import type { FeedViewRow } from './feed-views.ts';

export interface LagResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface ChangeUnits {
  change: 'INSERT' | 'MODIFY' | 'REMOVE';
  label: string;
  /** Changes of one workspace in the consumer's batch (the figures are per change: the batch's divided by it). */
  batch?: number;
  measured: Units;
  /** The same at AWS's rate for transactions (2 units per item written), which DynamoDB Local does not apply. */
  atTransactionRate: number;
  /** One put of the event item: ⌈event bytes / 1 KB⌉ WCU. */
  floorWcu: number;
  /** The largest event item written (its feed item, type copy or change record), in DynamoDB's item size. */
  eventBytes: number;
  commands: string[];
}

/** Changes of one workspace per consumer batch in the cost model (a batching window on the event source mapping: cost.ts). */
export const CONSUMER_BATCH = 10;

export interface EventsBenchResult {
  /** Per change, in a batch of CONSUMER_BATCH changes of a workspace. */
  consumerUnits: ChangeUnits[];
  /** Per change, one change per batch (no batching). Absent in results written before decision 0018. */
  unbatchedUnits?: ChangeUnits[];
  /** Absent in results written before event views (decision 0016). */
  feedViews?: FeedViewRow[];
  feedLag: LagResult;
  deliveryLag: LagResult;
  /** In-process duration of the consumer per change (its batch's divided by CONSUMER_BATCH), and of one delivery attempt. */
  consumerMs: number;
  deliveryMs: number;
}

const lag = (values: number[]): LagResult => ({
  samples: values.length,
  p50Ms: quantile(values, 0.5),
  p99Ms: quantile(values, 0.99),
  maxMs: Math.max(...values),
});

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { at: performance.now(), requestId: response.headers.get('x-request-id') ?? '', body: JSON.parse(text) as any };
}

/** A command list with repeats counted: `GetItem + BatchWriteItem x2`. */
const commandList = (calls: readonly ObservedCall[]) => {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.command.replace(/Command$/, ''), (counts.get(c.command.replace(/Command$/, '')) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n === 1 ? name : `${name} x${n}`));
};

/** The items a call wrote (a transaction's puts, a batch's puts). */
const writtenItems = (call: ObservedCall): Record<string, unknown>[] => {
  const input = call.input as { TransactItems?: { Put?: { Item: Record<string, unknown> } }[]; RequestItems?: Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]> };
  return [
    ...(input.TransactItems ?? []).flatMap((t) => (t.Put ? [t.Put.Item] : [])),
    ...Object.values(input.RequestItems ?? {}).flatMap((requests) => requests.flatMap((r) => (r.PutRequest ? [r.PutRequest.Item] : []))),
  ];
};

/**
 * The consumer's units per change for each kind of change: one batch of `size` changes of real
 * client items (copies of one, each its own id) in a workspace of their own, divided by `size`.
 */
async function consumerUnits(baseUrl: string, token: string, workspaceId: string, size: number): Promise<{ rows: ChangeUnits[]; ms: number }> {
  const { consumeChanges } = await import('../../shared/webhooks/consumer.ts');
  const created = await api(baseUrl, token, 'POST', '/clients', { company_name: 'Units Inc', company_email: 'units@bench.test', website: 'https://units.test' });
  // Let the stream poller consume that change first: only the measured call may run in the window.
  for (;;) {
    const newest = await api(baseUrl, token, 'GET', '/events?limit=1');
    if (newest.body.data[0]?.request_id === created.requestId) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const stored = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.item(workspaceId, 'CLIENT', created.body.id), ConsistentRead: true }))).Item!;
  // The same item in a workspace of its own: its changes are new to the consumer.
  const shadow = `bench-units-${randomUUID().slice(0, 8)}`;
  // API fields live in the item's data map (docs/data-model.md).
  const data = stored[DATA_ATTRIBUTE] as Record<string, unknown>;
  const clients = Array.from({ length: size }, () => {
    const id = newId('cli_', new Date());
    const item: Record<string, unknown> = { ...stored, ...keys.item(shadow, 'CLIENT', id), [DATA_ATTRIBUTE]: { ...data, id, workspace_id: shadow } };
    const changed = {
      ...item,
      [VERSION_ATTRIBUTE]: Number(item[VERSION_ATTRIBUTE]) + 1,
      [DATA_ATTRIBUTE]: { ...data, id, workspace_id: shadow, status: 'ACTIVE', updated_at: new Date(Date.parse(String(data.updated_at)) + 1000).toISOString() },
    };
    return { id, item, changed };
  });
  const record = (id: string, eventName: ChangeUnits['change'], oldImage?: object, newImage?: object): StreamChange => ({
    eventID: randomUUID(),
    eventName,
    dynamodb: {
      Keys: marshall(keys.item(shadow, 'CLIENT', id)),
      ...(oldImage ? { OldImage: marshall(oldImage, { removeUndefinedValues: true }) } : {}),
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) } : {}),
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
    },
  });
  const cases: [ChangeUnits['change'], string, StreamChange[]][] = [
    ['INSERT', 'create (client.created)', clients.map((c) => record(c.id, 'INSERT', undefined, c.item))],
    ['MODIFY', 'update (client.updated)', clients.map((c) => record(c.id, 'MODIFY', c.item, c.changed))],
    ['REMOVE', 'delete (client.deleted)', clients.map((c) => record(c.id, 'REMOVE', c.changed, undefined))],
  ];
  const rows: ChangeUnits[] = [];
  const durations: number[] = [];
  const per = (u: Units): Units => ({ total: u.total / size, read: u.read / size, write: u.write / size, table: u.table / size, indexes: {} });
  for (const [change, label, records] of cases) {
    const started = performance.now();
    const { calls } = await observe(() => consumeChanges(records));
    durations.push((performance.now() - started) / size);
    const feedItems = calls.flatMap(writtenItems).filter((item) => String(item.SK).startsWith('EVENT#') && String(item.PK).endsWith('#EVENT'));
    const measured = unitsOf(calls);
    rows.push({
      change,
      label,
      batch: size,
      measured: per(measured),
      atTransactionRate: atFloorRules({ measured, transactions: transactionCharges(calls) }) / size,
      floorWcu: Math.max(...feedItems.map((item) => Math.ceil(itemSize(item) / 1024))),
      eventBytes: Math.max(...calls.flatMap(writtenItems).map(itemSize)),
      commands: commandList(calls),
    });
  }
  return { rows, ms: quantile(durations, 0.5) };
}

export async function runEventsBench(baseUrl: string, token: string, workspaceId: string, samples: number, log: (s: string) => void): Promise<EventsBenchResult> {
  log(`events: consumer units per change (batches of ${CONSUMER_BATCH} and of 1)`);
  const units = await consumerUnits(baseUrl, token, workspaceId, CONSUMER_BATCH);
  const unbatched = await consumerUnits(baseUrl, token, workspaceId, 1);

  const client = await api(baseUrl, token, 'POST', '/clients', { company_name: 'Lag Inc', company_email: 'lag@bench.test' });
  const newest = await api(baseUrl, token, 'GET', '/events?limit=1');
  let after: string = newest.body.data[0].id;

  /** From the response to a change of the client to its event in the feed (sync mode, from `after`). */
  const feedLagOf = async (name: string): Promise<number> => {
    const change = await api(baseUrl, token, 'PATCH', `/clients/${client.body.id}`, { company_name: name });
    for (;;) {
      const page = await api(baseUrl, token, 'GET', `/events?after=${after}&limit=100`);
      const events = page.body.data as { id: string; request_id: string }[];
      if (events.length > 0) after = events[events.length - 1]!.id;
      if (events.some((e) => e.request_id === change.requestId)) return page.at - change.at;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  // The earlier sections' changes waited in the stream while the poller was paused; consuming
  // them wrote as many events, change records and sequence updates, which come back through the stream
  // and are read and skipped. Measure once that backlog is gone: a change seen within a second.
  const drainStarted = performance.now();
  let drained = 0;
  while ((await feedLagOf(`Drain ${drained}`)) > 1000 && performance.now() - drainStarted < 300_000) drained++;
  log(`events: stream backlog drained in ${Math.round((performance.now() - drainStarted) / 1000)} s (${drained + 1} probe changes)`);

  log(`events: feed lag (${samples} changes)`);
  const feed: number[] = [];
  for (let i = 0; i < samples; i++) feed.push(await feedLagOf(`Lag ${i}`));

  log(`events: delivery lag (${samples} changes)`);
  const arrivals = new Map<string, number>();
  const durations: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const at = performance.now();
      arrivals.set((JSON.parse(body) as { request_id: string }).request_id, at);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const endpoint = await api(baseUrl, token, 'POST', '/webhook_endpoints', { url, enabled_events: ['client.updated'] });
  const { observeAttempts } = await import('../../shared/webhooks/attempt.ts');
  observeAttempts((r) => r.outcome && durations.push(r.outcome.durationMs));
  const delivery: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const change = await api(baseUrl, token, 'PATCH', `/clients/${client.body.id}`, { company_name: `Delivered ${i}` });
      for (;;) {
        const at = arrivals.get(change.requestId);
        if (at !== undefined) {
          delivery.push(at - change.at);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  } finally {
    observeAttempts(undefined);
    await api(baseUrl, token, 'DELETE', `/webhook_endpoints/${endpoint.body.id}`);
    server.closeAllConnections();
    server.close();
  }
  return {
    consumerUnits: units.rows,
    unbatchedUnits: unbatched.rows,
    feedLag: lag(feed),
    deliveryLag: lag(delivery),
    consumerMs: units.ms,
    deliveryMs: quantile(durations, 0.5),
  };
}
