/**
 * Section 11: billing runs (decision 0033), on the local stack and in process.
 *
 * - **The run**: a fresh workspace of N clients made through the API (20 at once), most with a
 *   project and one or two time entries in November 2026, every tenth with nothing; then one run
 *   over the month, timed from its 202 to `completed` (the local queue idle), its counts and its
 *   results (paged, limit=100) checked: one row per client, the outcomes expected.
 * - **A client's work**: in a workspace of its own, a run is started and its client messages are
 *   worked with `workOn` in process, 10 at once (as the Lambda handler works a batch), for clients
 *   invoiced with one entry and for clients with nothing to invoice; beside them, the invoice's
 *   plain create (the handler, no key) of clients like the invoiced ones, a plan page of 100 clients,
 *   and the run's last page with its completion. Units at AWS's rules (as section 10 counts them),
 *   then priced per 1,000 clients (DynamoDB on demand, Lambda, SQS).
 */
import { cpus, loadavg } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.ts';
import { planPage } from '../../shared/domain/billing-runs.ts';
import { firstPlan, type ClientMessage } from '../../shared/domain/billing-run-messages.ts';
import { workOn } from '../../shared/billing/work.ts';
import { DATA_ATTRIBUTE, TABLE } from '../../shared/data/table.ts';
import { FUNCTION_MEMORY_MB } from '../../infra/names.ts';
import { PRICES, QUEUE_BATCH } from './cost.ts';
import { invokeOk, type Caller } from './lib/invoke.ts';
import { isWriteCommand, observe, unitsOf, type ObservedCall } from './lib/sdk-hooks.ts';
import { clientBody, itemSize, projectBody } from './scenarios.ts';

/** The month every run invoices. */
export const RUN_PERIOD = { from: '2026-11-01', to: '2026-12-01', timezone: 'UTC' } as const;
/** Clients a plan page holds (domain/billing-runs.ts); clients made at once through the API. */
export const PLAN_PAGE = 100;
const MADE_AT_ONCE = 20;
/** Decision 0033's figures beside the create: the result row's Put and the run's update (2 + 2 WCU), the row's and the run's reads (2 RCU). */
export const RESULT_WRITE_UNITS = 4;
export const RESULT_READ_UNITS = 2;
/** The target: an invoiced client's work within this factor of its create plus the result's transaction and reads. */
export const CLIENT_UNITS_FACTOR = 1.3;
/** The target: clients per second from the 202 to completed, on the local stack (test/bench/README.md says why 5). */
export const MIN_CLIENTS_PER_SECOND = 5;
/** Clients a cost row prices. */
export const PRICED_CLIENTS = 1000;

export interface BillingRunMeasure {
  clients: number;
  /** Clients made with time (their outcome must be `invoiced`) and without (`nothing_to_invoice`). */
  withTime: number;
  withNothing: number;
  /** Making the workspace through the API (seconds). */
  setupSeconds: number;
  /** From the start's 202 to the run completed (seconds). */
  seconds: number;
  clientsPerSecond: number;
  status: string;
  clientsTotal: number;
  clientsDone: number;
  invoicesCreated: number;
  /** Rows of its results, the distinct clients among them, those of clients not made, by outcome. */
  rows: number;
  distinctClients: number;
  strangers: number;
  outcomes: Record<string, number>;
  /** The whole run's units per client, start excluded, as DynamoDB Local reports them. */
  localReadUnits: number;
  localWriteUnits: number;
  /** The machine's 1-minute load average as the run ended, and its cores: the run's pace depends on them. */
  loadAverage: number;
  cores: number;
}

/** One measured piece of work, its units per `per`. */
export interface BillingWork {
  label: string;
  per: string;
  /** How many were measured together (the units are their average). */
  count: number;
  /** Wall time of the whole measurement (ms): 10 clients worked at once, a page, a completion. */
  ms: number;
  /** At AWS's rules: reads as DynamoDB Local reports them, a Query that finds nothing at AWS's minimum; transactions from their items. */
  readUnits: number;
  writeUnits: number;
  localReadUnits: number;
  localWriteUnits: number;
  /** Read calls per `per`, by what they read: `client (GetItem)`, `Query GSI3`, ... */
  reads: Record<string, number>;
  /** Write units per `per` at AWS's rules, by transaction (its items' kinds: `result+billing_run`). */
  transactions: Record<string, number>;
}

export interface BillingCost {
  label: string;
  clients: number;
  readUnits: number;
  writeUnits: number;
  lambdaInvocations: number;
  lambdaGbSeconds: number;
  sqsRequests: number;
  dollars: { dynamo: number; lambda: number; sqs: number; total: number };
}

export interface BillingBenchResult {
  run: BillingRunMeasure;
  invoiced: BillingWork;
  nothing: BillingWork;
  /** The invoice's create through its handler (no key), of clients like the invoiced ones. */
  create: BillingWork;
  planPage: BillingWork;
  /** The run's last plan page (a few clients) and its completion: once per run. */
  completion: BillingWork;
  /** The functions' memory (MB): the cost's GB-s (costOf, at rendering: dollars per 1,000 clients are below the file's rounding). */
  memoryMb: number;
}

// ---- units at AWS's rules (section 10's: 2 per KB of each item, 1 per KB of each index item written, 2 when its key moves)

type Item = Record<string, unknown>;
type Snapshot = Map<string, Item>;
type Part = { Put?: { Item: Item }; Update?: { Key: Item; UpdateExpression: string }; Delete?: { Key: Item }; ConditionCheck?: { Key: Item } };

const kbOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const keyOf = (key: Item) => `${String(key.PK)}|${String(key.SK)}`;
const PROJECTED_CHANGE = new RegExp(`#data\\b|\\b${DATA_ATTRIBUTE}\\b`);

function transactionUnits(parts: readonly Part[], current: Snapshot, after: Snapshot): number {
  let units = 0;
  for (const part of parts) {
    const k = keyOf(part.Put ? part.Put.Item : (part.Update ?? part.Delete ?? part.ConditionCheck)!.Key);
    const before = current.get(k);
    const now = part.Put ? part.Put.Item : part.Delete ? undefined : part.Update ? (after.get(k) ?? before) : before;
    if (!part.ConditionCheck) units += 2 * kbOf(Math.max(before ? itemSize(before) : 0, now ? itemSize(now) : 0));
    const projectedChanged = part.Put !== undefined || (part.Update !== undefined && PROJECTED_CHANGE.test(part.Update.UpdateExpression));
    for (const index of TABLE.indexes) {
      const keyIn = (item: Item | undefined) => (item?.[index.partitionKey] === undefined ? undefined : `${String(item[index.partitionKey])}|${String(item[index.sortKey])}`);
      const [was, is] = [keyIn(before), keyIn(now)];
      const writes = was === undefined && is === undefined ? 0 : was === undefined || is === undefined ? 1 : was !== is ? 2 : projectedChanged ? 1 : 0;
      const projection = (item: Item | undefined) => (item ? itemSize(Object.fromEntries(['PK', 'SK', index.partitionKey, index.sortKey, ...index.projected].filter((a) => a in item).map((a) => [a, item[a]]))) : 0);
      units += writes * kbOf(Math.max(projection(before), projection(now)));
    }
    if (part.Delete) current.delete(k);
    else if (now) current.set(k, now);
  }
  return units;
}

/** What an item is, by its key: `invoice`, `client`, `record` (an idempotency record), `result` (a run's result row), ... */
function kindOf(key: Item): string {
  const pk = String(key.PK);
  const kinds: [string, string][] = [['#IDEMPOTENCY', 'record'], ['#INVOICE_ENTRIES', 'plan'], ['#TOTALS#', 'totals'], ['#BILLING_RUN#', 'result']];
  return kinds.find(([part]) => pk.includes(part))?.[1] ?? String(key.SK).split('#')[0]!.toLowerCase();
}

/** What a read call read: `client (GetItem)`, `Query GSI3`, `BatchGetItem`. */
const readOf = (call: ObservedCall) =>
  call.command === 'GetItemCommand' ? `${kindOf(call.input.Key as Item)} (GetItem)` : call.command === 'QueryCommand' ? `Query ${String(call.input.IndexName ?? 'table')}` : call.command.replace(/Command$/, '');

/** Read and write units of `calls` at AWS's rules, from the partitions read before and after; reads and transactions by what they were. */
function awsUnits(calls: readonly ObservedCall[], before: Snapshot, after: Snapshot) {
  const current: Snapshot = new Map(before);
  let read = 0;
  let write = 0;
  const reads: Record<string, number> = {};
  const transactions: Record<string, number> = {};
  for (const call of calls) {
    if (call.command === 'TransactWriteItemsCommand') {
      const parts = call.input.TransactItems as Part[];
      const units = transactionUnits(parts, current, after);
      const what = parts.map((p) => kindOf(p.Put?.Item ?? (p.Update ?? p.Delete ?? p.ConditionCheck)!.Key)).join('+');
      transactions[what] = (transactions[what] ?? 0) + units;
      write += units;
    } else if (isWriteCommand(call.command)) write += unitsOf([call]).write;
    else {
      const reported = unitsOf([call]).read;
      // AWS charges a Query its minimum even when it finds nothing; DynamoDB Local reports 0.
      read += reported === 0 && call.command === 'QueryCommand' ? (call.input.ConsistentRead ? 1 : 0.5) : reported;
      reads[readOf(call)] = (reads[readOf(call)] ?? 0) + 1;
    }
  }
  return { read, write, reads, transactions };
}

/** The partitions a piece of work writes, from its calls. */
function partitionsOf(calls: readonly ObservedCall[]): string[] {
  const keys = calls.filter((c) => isWriteCommand(c.command)).flatMap((c) =>
    c.command === 'TransactWriteItemsCommand' ? (c.input.TransactItems as Part[]).map((p) => p.Put?.Item ?? (p.Update ?? p.Delete ?? p.ConditionCheck)!.Key) : [(c.input.Item ?? c.input.Key) as Item],
  );
  return [...new Set(keys.map((key) => String(key.PK)))];
}

function reader(endpoint: string, tableName: string) {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1' }));
  return {
    /** Every item of these partitions, by key (outside the functions' client: not observed). */
    snapshot: async (partitions: Iterable<string>): Promise<Snapshot> => {
      const items: Snapshot = new Map();
      for (const pk of new Set(partitions)) {
        let start: Item | undefined;
        do {
          const out = await db.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ExclusiveStartKey: start }));
          for (const item of out.Items ?? []) items.set(keyOf(item), item);
          start = out.LastEvaluatedKey;
        } while (start);
      }
      return items;
    },
    destroy: () => db.destroy(),
  };
}
type Reader = ReturnType<typeof reader>;

/** Runs `work` observed, between two snapshots of `partitions`; units per `count`. */
async function measure(db: Reader, partitions: string[], label: string, per: string, count: number, work: () => Promise<unknown>): Promise<BillingWork> {
  const before = await db.snapshot(partitions);
  const started = performance.now();
  const { calls } = await observe(work);
  const ms = performance.now() - started;
  const after = await db.snapshot(partitions);
  const aws = awsUnits(calls, before, after);
  const local = unitsOf(calls);
  const perCount = (figures: Record<string, number>) => Object.fromEntries(Object.entries(figures).map(([what, n]) => [what, n / count]));
  return {
    label,
    per,
    count,
    ms,
    readUnits: aws.read / count,
    writeUnits: aws.write / count,
    localReadUnits: local.read / count,
    localWriteUnits: local.write / count,
    reads: perCount(aws.reads),
    transactions: perCount(aws.transactions),
  };
}

// ---- the run on the local stack

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const reply = { status: response.status, body: (await response.json()) as any };
  if (reply.status >= 300) throw new Error(`billing: ${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
}

/** Client n: every tenth has nothing; the others a project and one entry (two for even n) in November 2026. */
const entriesOf = (n: number) => (n % 10 === 9 ? 0 : n % 2 === 0 ? 2 : 1);
const entryBody = (projectId: string, n: number, k: number) => ({ project_id: projectId, started_at: `2026-11-${String(10 + k).padStart(2, '0')}T09:00:00Z`, duration_minutes: 30 + (n % 60), description: 'Implementation work' });

async function measureRun(stack: LocalStack, token: string, workspaceId: string, clients: number, log: (line: string) => void): Promise<BillingRunMeasure> {
  const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, token, method, path, body);
  const setupStarted = performance.now();
  const made: string[] = [];
  for (let start = 0; start < clients; start += MADE_AT_ONCE) {
    const batch = Array.from({ length: Math.min(MADE_AT_ONCE, clients - start) }, (_, i) => start + i);
    made.push(
      ...(await Promise.all(
        batch.map(async (n) => {
          const clientId = String((await call('POST', '/clients', clientBody(n))).body.id);
          if (entriesOf(n) > 0) {
            const projectId = String((await call('POST', '/projects', projectBody(n, clientId))).body.id);
            for (let k = 0; k < entriesOf(n); k++) await call('POST', '/time_entries', entryBody(projectId, n, k));
          }
          return clientId;
        }),
      )),
    );
  }
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const withNothing = made.filter((_, n) => entriesOf(n) === 0).length;
  log(`billing: ${clients.toLocaleString('en-US')} clients made through the API in ${setupSeconds.toFixed(1)} s (${withNothing} with nothing to invoice)`);

  const started = await call('POST', '/billing_runs', RUN_PERIOD);
  if (started.status !== 202) throw new Error(`billing: the start answered ${started.status}, not 202`);
  const t0 = performance.now();
  const runId = String(started.body.id);
  // The stream consumer sends a run's first plan (decision 0033); the bench's stream is paused, so the bench sends it.
  const { calls } = await observe(async () => {
    await stack.billing.send([firstPlan(workspaceId, runId)]);
    await stack.billing.idle();
  });
  const seconds = (performance.now() - t0) / 1000;
  const run = (await call('GET', `/billing_runs/${runId}`)).body;

  const rows: { client_id: string; outcome: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: typeof rows; next_cursor: string | null } = (await call('GET', `/billing_runs/${runId}/results?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  const ids = new Set(made);
  const outcomes: Record<string, number> = {};
  for (const row of rows) outcomes[row.outcome] = (outcomes[row.outcome] ?? 0) + 1;
  const local = unitsOf(calls);
  const result: BillingRunMeasure = {
    clients,
    withTime: clients - withNothing,
    withNothing,
    setupSeconds,
    seconds,
    clientsPerSecond: clients / seconds,
    status: String(run.status),
    clientsTotal: Number(run.clients_total),
    clientsDone: Number(run.clients_done),
    invoicesCreated: Number(run.invoices_created),
    rows: rows.length,
    distinctClients: new Set(rows.map((r) => r.client_id)).size,
    strangers: rows.filter((r) => !ids.has(r.client_id)).length,
    outcomes,
    localReadUnits: local.read / clients,
    localWriteUnits: local.write / clients,
    loadAverage: loadavg()[0]!,
    cores: cpus().length,
  };
  log(`billing: a run of ${clients.toLocaleString('en-US')} clients ${result.status} in ${seconds.toFixed(1)} s (${result.clientsPerSecond.toFixed(0)} clients/s): ${JSON.stringify(outcomes)}`);
  return result;
}

/** A fresh workspace's run over every client is worked to completion; its results must be one row per client. */
export function runMet(r: BillingRunMeasure): boolean {
  return (
    r.status === 'completed' &&
    r.clientsTotal === r.clients &&
    r.clientsDone === r.clients &&
    r.rows === r.clients &&
    r.distinctClients === r.clients &&
    r.strangers === 0 &&
    r.invoicesCreated === r.withTime &&
    (r.outcomes.invoiced ?? 0) === r.withTime &&
    (r.outcomes.nothing_to_invoice ?? 0) === r.withNothing
  );
}

// ---- a client's work, in process

async function measureWork(repoRoot: string, endpoint: string, tableName: string, log: (line: string) => void) {
  const caller: Caller = { workspaceId: `bench-billing-work-${Date.now().toString(36)}`, apiClientId: 'bench-billing' };
  let n = 0;
  const makeClient = async (withEntry: boolean) => {
    const clientId = String((await invokeOk(repoRoot, caller, { operation: 'createClient', body: clientBody(++n) })).body.id);
    if (withEntry) {
      const projectId = String((await invokeOk(repoRoot, caller, { operation: 'createProject', body: projectBody(n, clientId) })).body.id);
      await invokeOk(repoRoot, caller, { operation: 'logTimeEntry', body: entryBody(projectId, n, 0) });
    }
    return clientId;
  };
  const many = async (count: number, withEntry: boolean) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await makeClient(withEntry));
    return ids;
  };
  // Before the run: a client of each kind to warm up with, then a batch of each.
  const [warmInvoiced, warmNothing] = [await makeClient(true), await makeClient(false)];
  const invoicedIds = await many(QUEUE_BATCH, true);
  const nothingIds = await many(QUEUE_BATCH, false);
  const runId = String((await invokeOk(repoRoot, caller, { operation: 'startBillingRun', body: RUN_PERIOD })).body.id);
  // After it (not in it): clients for the invoice's plain create.
  const createIds = await many(QUEUE_BATCH, true);
  const message = (clientId: string): ClientMessage => ({ kind: 'client', workspace_id: caller.workspaceId, run_id: runId, client_id: clientId });
  const db = reader(endpoint, tableName);
  try {
    // The warm-up loads the modules and names the partitions a client's work writes (the snapshots read them).
    const { calls } = await observe(async () => {
      await workOn(message(warmInvoiced), 'bench-warm-1');
      await workOn(message(warmNothing), 'bench-warm-2');
    });
    const partitions = partitionsOf(calls);
    const batch = (ids: string[]) => () => Promise.all(ids.map((id, i) => workOn(message(id), `bench-${id}-${i}`)));
    const invoiced = await measure(db, partitions, 'a client invoiced (one project, one entry)', 'client', QUEUE_BATCH, batch(invoicedIds));
    const nothing = await measure(db, partitions, 'a client with nothing to invoice', 'client', QUEUE_BATCH, batch(nothingIds));
    const create = await measure(db, partitions, "the invoice's create through its handler (no key), a client like the invoiced ones", 'create', QUEUE_BATCH, async () => {
      for (const clientId of createIds) await invokeOk(repoRoot, caller, { operation: 'createInvoice', body: { client_id: clientId, ...RUN_PERIOD } });
    });
    // Its plan: one page, the last (its 22 clients): the run planned, then completed (every client has its row).
    let planned: Awaited<ReturnType<typeof planPage>> | undefined;
    const completion = await measure(db, partitions, `the last plan page (${QUEUE_BATCH * 2 + 2} clients) and the completion`, 'run', 1, async () => {
      planned = await planPage(firstPlan(caller.workspaceId, runId));
    });
    const done = await invokeOk(repoRoot, caller, { operation: 'retrieveBillingRun', id: runId });
    if (planned?.next || done.body.status !== 'completed') throw new Error(`billing: the measured run is ${String(done.body.status)} after its plan`);
    log(`billing: per client ${[invoiced, nothing, create].map((w) => `${w.label}: ${w.readUnits} RCU + ${w.writeUnits} WCU (${QUEUE_BATCH} in ${w.ms.toFixed(0)} ms)`).join('; ')}`);
    return { invoiced, nothing, create, completion };
  } finally {
    db.destroy();
  }
}

/** A plan page of 100 clients of the run's workspace: a second run is started (202) and its first page read, not sent. */
async function measurePlanPage(stack: LocalStack, token: string, workspaceId: string): Promise<BillingWork> {
  const runId = String((await api(stack.baseUrl, token, 'POST', '/billing_runs', RUN_PERIOD)).body.id);
  const db = reader(stack.dynamo.endpoint, stack.tableName);
  try {
    let clients = 0;
    const page = await measure(db, [], `a plan page of ${PLAN_PAGE} clients`, `page of ${PLAN_PAGE}`, 1, async () => {
      clients = (await planPage(firstPlan(workspaceId, runId))).clients.length;
    });
    if (clients !== PLAN_PAGE) throw new Error(`billing: a plan page gave ${clients} clients, not ${PLAN_PAGE}`);
    return page;
  } finally {
    db.destroy();
  }
}

// ---- cost

/**
 * 1,000 clients of one kind: each its work's units, a tenth of an invocation of a batch of 10 (its
 * GB-s at the batch's measured time), and 3 SQS requests per 10 messages (send, receive, delete, 10
 * a request); each plan page of 100 clients one invocation of its own and 3 requests; the last page
 * and the completion once.
 */
export function costOf(work: BillingWork, page: BillingWork, completion: BillingWork, memoryMb: number, clients = PRICED_CLIENTS): BillingCost {
  const pages = Math.ceil(clients / PLAN_PAGE);
  const readUnits = clients * work.readUnits + pages * page.readUnits + completion.readUnits;
  const writeUnits = clients * work.writeUnits + pages * page.writeUnits + completion.writeUnits;
  const batches = clients / QUEUE_BATCH;
  const lambdaInvocations = batches + pages + 1;
  const lambdaGbSeconds = ((batches * Math.ceil(work.ms) + pages * Math.ceil(page.ms) + Math.ceil(completion.ms)) / 1000) * (memoryMb / 1024);
  const sqsRequests = 3 * batches + 3 * (pages + 1);
  const dynamo = (readUnits * PRICES.dynamoReadRequestUnitPerMillion + writeUnits * PRICES.dynamoWriteRequestUnitPerMillion) / 1e6;
  const lambda = (lambdaInvocations * PRICES.lambdaRequestsPerMillion) / 1e6 + lambdaGbSeconds * PRICES.lambdaArmPerGbSecond;
  const sqs = (sqsRequests * PRICES.sqsRequestsPerMillion) / 1e6;
  return { label: work.label, clients, readUnits, writeUnits, lambdaInvocations, lambdaGbSeconds, sqsRequests, dollars: { dynamo, lambda, sqs, total: dynamo + lambda + sqs } };
}

export async function runBillingBench(options: {
  repoRoot: string;
  stack: LocalStack;
  tokenFor: (workspaceId: string) => Promise<string>;
  clients: number;
  log: (line: string) => void;
}): Promise<BillingBenchResult> {
  const { repoRoot, stack, clients, log } = options;
  const memoryMb = FUNCTION_MEMORY_MB;
  const work = await measureWork(repoRoot, stack.dynamo.endpoint, stack.tableName, log);
  const workspaceId = `bench-billing-${Date.now().toString(36)}`;
  const token = await options.tokenFor(workspaceId);
  const run = await measureRun(stack, token, workspaceId, clients, log);
  const planPageWork = await measurePlanPage(stack, token, workspaceId);
  const result = { run, invoiced: work.invoiced, nothing: work.nothing, create: work.create, planPage: planPageWork, completion: work.completion, memoryMb };
  for (const w of [work.invoiced, work.nothing]) log(`billing: ${PRICED_CLIENTS.toLocaleString('en-US')} clients, ${w.label}: $${costOf(w, planPageWork, work.completion, memoryMb).dollars.total.toFixed(4)}`);
  return result;
}
