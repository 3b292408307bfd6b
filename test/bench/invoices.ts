/**
 * Section 10: invoices (docs/decisions/0023-invoices.md). In process, over DynamoDB Local:
 *
 * - a create of the invoice of a client's month at 100 and at 2,000 time entries of one project
 *   (entries spread evenly over November 2026, made by the log handler with its writes held back,
 *   then written with BatchWriteItem), then its finalize and void; a second create of the same
 *   time (released by the void), its finalize and pay. Units of each, split into the reads, the
 *   draft's transaction and each batch's (its entries, its invoiced totals items, the invoice),
 *   and wall time (one run each: a create of 2,000 entries is 23 transactions);
 * - list pages of two workspaces of 10 and of 1,000 invoices (copies of one sealed invoice under
 *   fresh ids), walked as section 5 walks the other lists: the same units at any size and depth.
 *
 * Transactions are counted at the floor's rules (2 units per item, 1 per index item) beside what
 * DynamoDB Local reports, as in section 4.
 */
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SDK_BUDGET } from '../../shared/data/budget.ts';
import { keys } from '../../shared/data/keys.ts';
import { DATA_ATTRIBUTE } from '../../shared/data/table.ts';
import { newId } from '../../shared/ids.ts';
import { client, counterOf, invoice, timeEntry } from '../../shared/resources/registry.ts';
import { COUNTED_ATTRIBUTE } from '../../shared/totals/totals.ts';
import { invoke, invokeOk, type Caller, type Request } from './lib/invoke.ts';
import { observe, unitsOf, type ObservedCall } from './lib/sdk-hooks.ts';
import { idOf, itemsOf, walk, writeItems, type ListVariant, type ScalingResult, type ScaleWorkspace } from './scaling.ts';
import { clientBody, invoiceBody, itemSize, projectBody } from './scenarios.ts';
import { atFloorRules, transactionCharges } from './units.ts';

export const INVOICE_SIZES = [100, 2000] as const;
export const INVOICE_LIST_SIZES = [10, 1000] as const;
/** Per entry, per batch and constant, as decision 0023 bounds a create (its "Units"). */
export const CREATE_BOUND = { perEntry: 6, invoicePerKb: 5, perTotalsItem: 2, draftBase: 9, planPerKb: 2 } as const;

export interface InvoiceTransaction {
  /** What it is: `draft`, `batch`, `step` (a finalize, pay or the void's own), `release`. */
  kind: string;
  entries: number;
  totalsItems: number;
  items: number;
  /** As DynamoDB Local reported it: base table and index units. */
  tableUnits: number;
  indexUnits: number;
  /** At the floor's rules: 2 per item, 1 per index item (DynamoDB Local's index units halved). */
  atFloorRules: number;
}

export interface InvoiceOperation {
  label: string;
  entries: number;
  status: number;
  ms: number;
  /** Longer than a request's DynamoDB deadline (lifted for the measurement): through the API it would answer 503 part-way. */
  overDeadline: boolean;
  readUnits: number;
  /** Write units as DynamoDB Local reported them. */
  writeUnits: number;
  /** Write units with transactions at the floor's rules. */
  writeAtFloorRules: number;
  commands: Record<string, number>;
  transactions: InvoiceTransaction[];
  /** The invoice's size after the operation (bytes, as DynamoDB counts it). */
  invoiceBytes: number;
  /** The plan's size (bytes), for a create. */
  planBytes?: number;
}

/** A create split as decision 0023 counts it, at the floor's rules. */
export interface CreateSplit {
  entries: number;
  batches: number;
  /** Write units of one locked entry: the entry (2) and its index items. */
  perEntry: number;
  /** Write units of a batch beside its entries, on average: the invoice and its index items, the invoiced totals items. */
  perBatch: number;
  /** Invoiced totals items per batch, on average. */
  totalsPerBatch: number;
  /** The draft's transaction. */
  constant: number;
  /** Read units per entry (the selection's query, the batches' re-read of their entries). */
  readPerEntry: number;
  writePerEntry: number;
  /** Decision 0023's bound: 6 per entry + (5S + 2t) per batch + 9 + 2 per plan KB. */
  bound: number;
}

export interface InvoiceBenchResult {
  operations: InvoiceOperation[];
  creates: CreateSplit[];
  lists: ScalingResult[];
  listWorkspaces: { size: number; writeSeconds: number }[];
}

/** The requests' DynamoDB deadline as deployed (read before any run lifts it). */
export const REQUEST_DEADLINE_MS = SDK_BUDGET.requestDeadlineMs;

const kbOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const sk = (key: unknown) => String((key as { SK?: unknown } | undefined)?.SK ?? '');
const pk = (key: unknown) => String((key as { PK?: unknown } | undefined)?.PK ?? '');

/** The key of a transaction's item, whatever its action. */
function keyOfPart(part: Record<string, { Key?: unknown; Item?: unknown }>): unknown {
  const action = Object.values(part)[0]!;
  return action.Key ?? action.Item;
}

function transactionsOf(calls: readonly ObservedCall[], kinds: (entries: number, totals: number, index: number) => string): InvoiceTransaction[] {
  const txCalls = calls.filter((c) => c.command === 'TransactWriteItemsCommand');
  const charges = transactionCharges(calls);
  return txCalls.map((call, i) => {
    const parts = call.input.TransactItems as Record<string, { Key?: unknown; Item?: unknown }>[];
    const itemKeys = parts.map(keyOfPart);
    const entries = itemKeys.filter((k) => sk(k).startsWith(`${timeEntry.type}#`)).length;
    const totalsItems = itemKeys.filter((k) => pk(k).includes('#TOTALS#')).length;
    const charge = charges[i]!;
    return {
      kind: kinds(entries, totalsItems, i),
      entries,
      totalsItems,
      items: charge.items,
      tableUnits: charge.tableUnits,
      indexUnits: charge.indexUnits,
      atFloorRules: 2 * charge.items + charge.indexUnits / 2,
    };
  });
}

async function measure(repoRoot: string, caller: Caller, label: string, entries: number, request: Request, readItem: (id: string) => Promise<Record<string, unknown>>): Promise<{ op: InvoiceOperation; id: string }> {
  const t0 = performance.now();
  const { result, calls } = await observe(() => invoke(repoRoot, caller, request));
  const ms = performance.now() - t0;
  if (result.status >= 300) throw new Error(`invoices: ${label}: ${result.status} ${JSON.stringify(result.body)}`);
  const units = unitsOf(calls);
  const transactions = transactionsOf(calls, (n, _t, i) => (request.operation === 'createInvoice' ? (i === 0 ? 'draft' : 'batch') : n > 0 ? 'release' : 'step'));
  const commands: Record<string, number> = {};
  for (const c of calls) commands[c.command.replace(/Command$/, '')] = (commands[c.command.replace(/Command$/, '')] ?? 0) + 1;
  const id = String((result.body as { id: string }).id);
  const draft = calls.find((c) => c.command === 'TransactWriteItemsCommand' && request.operation === 'createInvoice');
  const plan = draft && (draft.input.TransactItems as { Put?: { Item: Record<string, unknown> } }[]).map((p) => p.Put?.Item).find((item) => item && pk(item).endsWith('#INVOICE_ENTRIES'));
  return {
    id,
    op: {
      label,
      entries,
      status: result.status,
      ms,
      overDeadline: ms > REQUEST_DEADLINE_MS,
      readUnits: units.read,
      writeUnits: units.write,
      writeAtFloorRules: atFloorRules({ measured: units, transactions: transactionCharges(calls) }) - units.read,
      commands,
      transactions,
      invoiceBytes: itemSize(await readItem(id)),
      ...(plan ? { planBytes: itemSize(plan) } : {}),
    },
  };
}

/**
 * A create split per entry, per batch and constant: each batch's entries cost their item (2) and
 * their index items, found from the index units of the batches (the invoice's three index items
 * taken out: it changes its lines, which every index projects); the rest of a batch is the
 * invoice and its invoiced totals items; the constant is the draft's transaction.
 */
export function splitCreate(op: InvoiceOperation): CreateSplit {
  const batches = op.transactions.filter((t) => t.kind === 'batch');
  const draft = op.transactions.find((t) => t.kind === 'draft')!;
  const entries = batches.reduce((n, t) => n + t.entries, 0);
  const INVOICE_INDEX_ITEMS = 3;
  const entryIndexItems = batches.reduce((n, t) => n + t.indexUnits / 2 - INVOICE_INDEX_ITEMS, 0);
  const perEntry = 2 + entryIndexItems / entries;
  const batchTotal = batches.reduce((n, t) => n + t.atFloorRules, 0);
  const perBatch = (batchTotal - perEntry * entries) / batches.length;
  const totals = batches.reduce((n, t) => n + t.totalsItems, 0);
  const s = kbOf(op.invoiceBytes);
  const bound =
    CREATE_BOUND.perEntry * entries +
    batches.reduce((n, t) => n + CREATE_BOUND.invoicePerKb * s + CREATE_BOUND.perTotalsItem * t.totalsItems, 0) +
    CREATE_BOUND.draftBase +
    CREATE_BOUND.planPerKb * kbOf(op.planBytes ?? 0);
  return {
    entries,
    batches: batches.length,
    perEntry,
    perBatch,
    totalsPerBatch: totals / batches.length,
    constant: draft.atFloorRules,
    readPerEntry: op.readUnits / entries,
    writePerEntry: op.writeAtFloorRules / entries,
    bound,
  };
}

/** The n-th of `count` entries: evenly over November 2026 (UTC), 30 minutes each. */
const startOf = (n: number, count: number) => new Date(Date.UTC(2026, 10, 1) + Math.floor((n * 30 * 24 * 60) / count) * 60_000).toISOString();

/** A client with one project (a rate) and `count` entries on it in November 2026, written with BatchWriteItem. */
async function timeWorkspace(repoRoot: string, caller: Caller, count: number, endpoint: string, tableName: string) {
  const clientItem = await itemsOf(repoRoot, caller, { operation: 'createClient', body: clientBody(1) });
  const clientId = idOf(clientItem);
  const project = await itemsOf(repoRoot, caller, { operation: 'createProject', body: projectBody(1, clientId, { hourly_rate: 142.5 }) });
  const entries: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    const body = { project_id: idOf(project), started_at: startOf(n, count), duration_minutes: 30, description: 'Implementation work' };
    entries.push({ ...(await itemsOf(repoRoot, caller, { operation: 'logTimeEntry', body }, () => ({ Item: project }))), [COUNTED_ATTRIBUTE]: 1 });
  }
  Object.assign(clientItem, { project_count: 1, time_entry_count: count });
  Object.assign(project, { time_entry_count: count });
  await writeItems(endpoint, tableName, [clientItem, project, ...entries]);
  return { clientId, projectId: idOf(project) };
}

function reader(endpoint: string, tableName: string, workspaceId: string) {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1' }));
  return {
    read: async (id: string) => (await db.send(new GetCommand({ TableName: tableName, Key: keys.item(workspaceId, invoice.type, id) }))).Item ?? {},
    readKey: async (key: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: tableName, Key: key }))).Item,
    destroy: () => db.destroy(),
  };
}

/**
 * Runs `work` with the requests' DynamoDB deadline (SDK_BUDGET.requestDeadlineMs, 6 s) lifted: over
 * DynamoDB Local a create or void of 2,000 entries takes longer than that, and would answer 503
 * part-way (to be resumed by a keyed retry or the finisher), which would measure only a part.
 * The handlers run in this process, so they read the same SDK_BUDGET object.
 */
async function withoutDeadline<T>(work: () => Promise<T>): Promise<T> {
  const budget = SDK_BUDGET as { requestDeadlineMs: number };
  const before = budget.requestDeadlineMs;
  budget.requestDeadlineMs = 10 * 60_000;
  try {
    return await work();
  } finally {
    budget.requestDeadlineMs = before;
  }
}

async function lifecycle(repoRoot: string, count: number, endpoint: string, tableName: string, log: (line: string) => void): Promise<InvoiceOperation[]> {
  const caller: Caller = { workspaceId: `bench-invoices-${count}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const { clientId } = await timeWorkspace(repoRoot, caller, count, endpoint, tableName);
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const ops: InvoiceOperation[] = [];
    const run = async (label: string, request: Request) => {
      const { op, id } = await measure(repoRoot, caller, label, count, request, db.read);
      ops.push(op);
      return id;
    };
    const first = await run('create', { operation: 'createInvoice', body: invoiceBody(clientId) });
    await run('finalize', { operation: 'finalizeInvoice', id: first });
    await run('void', { operation: 'voidInvoice', id: first });
    const second = await run('create again (the time the void released)', { operation: 'createInvoice', body: invoiceBody(clientId) });
    await run('finalize', { operation: 'finalizeInvoice', id: second });
    await run('pay', { operation: 'payInvoice', id: second });
    const reply = await invokeOk(repoRoot, caller, { operation: 'retrieveInvoice', id: second });
    if (reply.body.time_entry_count !== count) throw new Error(`invoices: the second invoice holds ${String(reply.body.time_entry_count)} entries, not ${count}`);
    log(`invoices: ${count.toLocaleString('en-US')} entries: create ${(ops[0]!.ms / 1000).toFixed(1)} s, void ${(ops[2]!.ms / 1000).toFixed(1)} s`);
    return ops;
  } finally {
    db.destroy();
  }
}

export const INVOICE_LIST_VARIANTS: readonly ListVariant[] = [
  { key: 'invoices', operation: 'listInvoices', query: () => ({}) },
  { key: 'invoices by status (GSI1)', operation: 'listInvoices', query: () => ({ status: 'draft' }) },
  { key: 'invoices of a client (GSI2)', operation: 'listInvoices', query: (ws) => ({ client_id: ws.clientId }) },
  { key: 'invoices of a client by status (GSI3)', operation: 'listInvoices', query: (ws) => ({ client_id: ws.clientId, status: 'draft' }) },
];

/** A workspace of `size` invoices of one client, all drafts: one made by the handler, the others copies of it under fresh ids. */
async function listWorkspace(repoRoot: string, size: number, endpoint: string, tableName: string): Promise<ScaleWorkspace> {
  const caller: Caller = { workspaceId: `bench-invoice-list-${String(size).padStart(5, '0')}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const { clientId, projectId } = await timeWorkspace(repoRoot, caller, 3, endpoint, tableName);
  const made = await invokeOk(repoRoot, caller, { operation: 'createInvoice', body: invoiceBody(clientId) });
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const original = await db.read(String(made.body.id));
    const started = performance.now();
    const copies: Record<string, unknown>[] = [];
    for (let n = 1; n < size; n++) {
      const id = newId(invoice.idPrefix, new Date(Date.UTC(2026, 11, 1) + n * 1000));
      const data = { ...(original[DATA_ATTRIBUTE] as Record<string, unknown>), id };
      copies.push({ ...original, ...keys.item(caller.workspaceId, invoice.type, id), ...keys.indexes(invoice, caller.workspaceId, id, data), [DATA_ATTRIBUTE]: data });
    }
    const clientItem = (await db.readKey(keys.item(caller.workspaceId, client.type, clientId)))!;
    await writeItems(endpoint, tableName, [...copies, { ...clientItem, [counterOf(invoice)]: size }]);
    return { size, caller, clientId, projectId, writeSeconds: (performance.now() - started) / 1000 };
  } finally {
    db.destroy();
  }
}

export async function runInvoiceBench(repoRoot: string, endpoint: string, tableName: string, repeats: number, log: (line: string) => void): Promise<InvoiceBenchResult> {
  const operations: InvoiceOperation[] = [];
  for (const count of INVOICE_SIZES) {
    log(`invoices: a month of ${count.toLocaleString('en-US')} time entries, created, finalized, voided, created again, finalized, paid`);
    operations.push(...(await withoutDeadline(() => lifecycle(repoRoot, count, endpoint, tableName, log))));
  }
  const creates = operations.filter((o) => o.label === 'create').map(splitCreate);
  const workspaces: ScaleWorkspace[] = [];
  for (const size of INVOICE_LIST_SIZES) workspaces.push(await listWorkspace(repoRoot, size, endpoint, tableName));
  log(`invoices: list workspaces of ${INVOICE_LIST_SIZES.join(' and ')} invoices written`);
  // Warm the list handler so the first measured page does not pay for module loading and JIT.
  await walk(repoRoot, workspaces[0]!, INVOICE_LIST_VARIANTS[0]!, 25, [1], 1);
  const lists: ScalingResult[] = [];
  for (const variant of INVOICE_LIST_VARIANTS) {
    for (const ws of workspaces) {
      for (const limit of [1, 25]) lists.push(await walk(repoRoot, ws, variant, limit, [1, 10, 100], repeats));
    }
  }
  return { operations, creates, lists, listWorkspaces: workspaces.map((w) => ({ size: w.size, writeSeconds: w.writeSeconds })) };
}
