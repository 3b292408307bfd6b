/**
 * Helpers of the events and webhooks tests: reading the feed (over HTTP) or the event store (the
 * table in DynamoDB Local), and a local webhook receiver that verifies what it got as integrators do.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { keys } from '../../shared/data/keys.ts';
import { createClient, createProject, logTime, type Api, type ApiResponse } from './api.ts';

/** The local stack's first webhook retry delay in the tests (global-setup.ts starts it so). */
export const WEBHOOK_RETRY_BASE_MS = 200;

/**
 * Waits until `probe` returns a value (not undefined), polling. The ceiling only bounds a failing
 * wait: generous, so that a machine under load (a second suite beside this one) does not fail a
 * correct run; a passing wait returns as soon as the condition holds.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every event of the workspace, oldest first (the newest-first list, all pages, reversed). */
export async function allEvents(api: Api, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get(`/events?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.status !== 200) throw new Error(`list events: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...page.body.data);
    cursor = page.body.has_more ? page.body.next_cursor : undefined;
  } while (cursor);
  return events.reverse();
}

/** Waits until the feed holds `count` events and returns them, oldest first. */
export const eventsWhen = (api: Api, count: number, query = '') =>
  waitFor(async () => {
    const events = await allEvents(api, query);
    return events.length >= count ? events : undefined;
  }, `${count} events`);

/** Every event of the workspace, once it holds one of each of `types`. */
export const eventsOfEach = (api: Api, types: readonly string[]) =>
  waitFor(async () => {
    const events = await allEvents(api);
    return types.every((type) => events.some((e) => e.type === type)) ? events : undefined;
  }, `an event of each of ${types.length} types`);

/**
 * Every invoice event once, over HTTP: an invoice created, patched, finalized and paid; one
 * finalized and voided; one deleted (each of its own day's time). Returns the responses that made
 * them, in the order of their events, and how many events the feed gains in all (a client, a
 * project, and per invoice an entry logged and locked; a release unlocks one).
 */
export async function invoiceLifecycle(api: Api): Promise<{ changes: [string, ApiResponse][]; events: number }> {
  const client = await createClient(api);
  const project = await createProject(api, client.id, { hourly_rate: 120 });
  const invoiceOn = async (day: number) => {
    await logTime(api, { project_id: project.id, started_at: `2026-11-0${day}T09:00:00Z` });
    const made = await api.post('/invoices', { client_id: client.id, from: `2026-11-0${day}`, to: `2026-11-0${day + 1}` });
    if (made.status !== 201) throw new Error(`create invoice: ${made.status} ${JSON.stringify(made.body)}`);
    return made;
  };
  const changes: [string, ApiResponse][] = [];
  const paid = await invoiceOn(2);
  changes.push(['invoice.created', paid], ['invoice.updated', await api.patch(`/invoices/${paid.body.id}`, { memo: 'November' })]);
  changes.push(['invoice.finalized', await api.post(`/invoices/${paid.body.id}/finalize`, {})], ['invoice.paid', await api.post(`/invoices/${paid.body.id}/pay`, {})]);
  const voided = await invoiceOn(3);
  changes.push(['invoice.created', voided], ['invoice.finalized', await api.post(`/invoices/${voided.body.id}/finalize`, {})]);
  changes.push(['invoice.voided', await api.post(`/invoices/${voided.body.id}/void`, {})]);
  const deleted = await invoiceOn(4);
  changes.push(['invoice.created', deleted], ['invoice.deleted', await api.delete(`/invoices/${deleted.body.id}`)]);
  for (const [type, response] of changes) if (response.status >= 300) throw new Error(`${type}: ${response.status} ${JSON.stringify(response.body)}`);
  // The client and the project; per invoice its entry's log and lock; the invoice events; the pay's payment; the void's and the delete's release.
  return { changes, events: 2 + 3 * 2 + changes.length + 1 + 2 };
}

/** One sync-mode pass: follows `after=` and next_cursor to the end; returns the events read. */
export async function syncFrom(api: Api, after: string, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get(`/events?after=${after}&limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.status !== 200) throw new Error(`sync events: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...page.body.data);
    cursor = page.body.has_more ? page.body.next_cursor : undefined;
  } while (cursor);
  return events;
}

/**
 * The events the consumer stored for a workspace, oldest first, each as the exact JSON it serves
 * and posts (`body`), read from the table: for tests of the pipeline that do not go through the feed.
 */
export async function storedEvents(table: { endpoint: string; tableName: string }, workspaceId: string): Promise<{ event: any; body: string }[]> {
  const client = new DynamoDBClient({
    endpoint: table.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  try {
    const db = DynamoDBDocumentClient.from(client);
    // Event items only: the sequence counter shares the partition.
    const { PK, SK: eventPrefix } = keys.event(workspaceId, '');
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :event)',
          ExpressionAttributeValues: { ':pk': PK, ':event': eventPrefix },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items.map((item) => ({ event: JSON.parse(String(item.body)), body: String(item.body) }));
  } finally {
    client.destroy();
  }
}

export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get (status), in order; after the list, 200. */
  respondWith: number[];
  close(): Promise<void>;
}

/**
 * What a receiver does (and the README's): verify a delivery with the Standard Webhooks library,
 * `standardwebhooks`. Returns the parsed event; throws WebhookVerificationError when the body or
 * a header was tampered with, the secret is another, or the timestamp is over 5 minutes off.
 */
export const verifiedEvent = (secret: string, delivery: Pick<Received, 'headers' | 'body'>): any =>
  new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);

/** A webhook receiver on `host` (a loopback address), answering each request once its body is read. */
export async function startReceiver(path = '/hooks', host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { url: '', received, respondWith: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ at: Date.now(), headers: req.headers, body });
      res.writeHead(receiver.respondWith.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  receiver.url = `http://${host}:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

const repoRoot = resolve(import.meta.dirname, '../..');

/** The README's `receiver.mjs`: its one js block that imports standardwebhooks. */
export function readmeReceiverCode(): string {
  const blocks = readFileSync(resolve(repoRoot, 'README.md'), 'utf8').split('```js\n').slice(1).map((b) => b.slice(0, b.indexOf('```')));
  const [code, ...others] = blocks.filter((b) => b.includes("from 'standardwebhooks'"));
  if (!code || others.length > 0) throw new Error('the README should hold one receiver.mjs');
  return code;
}

/**
 * Runs the README's receiver as a reader would (`WEBHOOK_SECRET=… node receiver.mjs`, from the
 * repository), on a free port instead of 4242; `output()` is what it printed.
 */
export async function startReadmeReceiver(secret: string): Promise<{ url: string; output(): string; stop(): Promise<void> }> {
  const probe = createTcpServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((done) => probe.close(done));
  const code = readmeReceiverCode().replace('.listen(4242,', `.listen(${port},`);
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, env: { ...process.env, WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise((done) => child.once('exit', done));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  // Ready once it accepts a connection (a connection without a request makes it print nothing).
  await waitFor(
    () =>
      new Promise<true | undefined>((answer) => {
        if (child.exitCode !== null) throw new Error(`the README's receiver exited: ${output}`);
        const socket = connect(port, '127.0.0.1', () => (socket.destroy(), answer(true)));
        socket.on('error', () => answer(undefined));
      }),
    "the README's receiver listening",
  ).catch(async (error) => {
    await stop();
    throw error;
  });
  return { url: `http://127.0.0.1:${port}/hooks`, output: () => output, stop };
}
