/**
 * Section 10: invoices (docs/decisions/0023-invoices.md). In process, over DynamoDB Local:
 *
 * - a create of the invoice of a client's month at 100 and at 2,000 time entries of one project
 *   (entries spread evenly over November 2026, made by the log handler with its writes held back,
 *   then written with BatchWriteItem), a PATCH and the delete of that draft; a create again, its
 *   finalize and void; a third create, its finalize, then its payments (decision 0030): a record of
 *   part of the balance, a second of the rest (paid), the delete of the first (open again) and pay.
 *   Units of each, split into the reads, the draft's transaction and each batch's (its entries, its
 *   invoiced totals items, the invoice), and wall time (one run each: a create of 2,000 entries is
 *   23 transactions);
 * - an invoice of 50 items and two taxes, no period: its create and retrieve;
 * - list pages of two workspaces of 10 and of 1,000 invoices (copies of one sealed invoice under
 *   fresh ids), walked as section 5 walks the other lists: the same units at any size and depth;
 *   and of an invoice's payments, with 10 and with 100 of them (recorded through the handler).
 * - fees (decision 0029): a create of a client's month with 1, 10 and 50 fee-billed projects (monthly
 *   Retainer, then CreditBased), 3 entries each; then a Retainer project with 1 and with 100 past
 *   invoices (created then finalized through the handler) and the create of the next month, whose
 *   units must be the same (nothing a create reads grows with a project's past invoices).
 *
 * Transactions are counted at the floor's rules (2 units per item, 1 per index item) beside what
 * DynamoDB Local reports, as in section 4.
 */
import { GetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SDK_BUDGET } from '../../shared/data/budget.ts';
import { keys } from '../../shared/data/keys.ts';
import { DATA_ATTRIBUTE, TABLE } from '../../shared/data/table.ts';
import { newId } from '../../shared/core/ids.ts';
import { client, counterOf, invoice, project as projectResource, timeEntry } from '../../shared/model/resources.ts';
import { COUNTED_ATTRIBUTE } from '../../shared/totals/totals.ts';
import { routeByOperation, type Operation } from '../../shared/api/routes.ts';
import { handlerOf, invoke, invokeOk, type Caller, type Request } from './lib/invoke.ts';
import { isWriteCommand, observe, unitsOf, type ObservedCall } from './lib/sdk-hooks.ts';
import { idOf, itemsOf, walk, writeItems, type ListVariant, type ScalingResult, type ScaleWorkspace } from './scaling.ts';
import { clientBody, invoiceBody, itemSize, paymentBody, paymentTerms, projectBody } from './scenarios.ts';
import { transactionCharges } from './units.ts';

export const INVOICE_SIZES = [100, 2000] as const;
export const INVOICE_LIST_SIZES = [10, 1000] as const;
/** Limits of the pages compared: at both, page 1 of the 10-invoice workspace is full and has more after it (it reads limit + 1 items). */
export const INVOICE_LIST_LIMITS = [1, 5] as const;
/** An invoice's payments listed (each recorded through the handler), and the limits of the pages compared: at both, page 1 of the 10 is full and has more after it. */
export const PAYMENT_LIST_SIZES = [10, 100] as const;
export const PAYMENT_LIST_LIMITS = [1, 5] as const;
/** The lifecycle's first payment: part of the balance (the invoice of 100 entries is 7,125.00). */
export const PART_PAYMENT = '1000.00';
/** The lifecycle's payment operations, after the third create's finalize (table 10a's labels). */
export const PAYMENT_STEPS = {
  part: 'record a payment (part of the balance)',
  rest: 'record a payment (the rest: paid)',
  delete: 'delete a payment (the first: open again)',
  pay: 'pay (the balance: paid)',
} as const;
/** The invoice of items alone (no period): its items (LIMITS.invoiceItems, the most a create takes) and its two taxes. */
export const ITEM_INVOICE = {
  items: 50,
  taxes: [
    { name: 'TPS', rate: 5 },
    { name: 'TVQ', rate: 9.975 },
  ],
} as const;
/** Per entry, per batch and constant, as decision 0023 bounds a create (its "Units"). */
export const CREATE_BOUND = { perEntry: 6, invoicePerKb: 5, perTotalsItem: 2, draftBase: 9, planPerKb: 2 } as const;

/** An operation's transactions of one kind, summed. */
export interface InvoiceTransaction {
  /** What they are: `draft`, `batch` (a create's lock), `release` (a void's or delete's), `step` (a finalize, pay, PATCH, the void's own). */
  kind: string;
  /** How many transactions of this kind. */
  count: number;
  items: number;
  entries: number;
  totalsItems: number;
  /** As DynamoDB Local reported it, base table and index units: it does not charge a transaction by its items. */
  localUnits: number;
  /** At AWS's documented rules, from the items written: its entries' share, the invoice's, the invoiced totals', the fee marks' and credit ledgers' (decision 0029), the rest. */
  units: TransactionShares;
  /** Index items it writes (each at 1 unit per KB, 2 when its key moves). */
  indexItems: number;
}

/** A transaction's write units by what they were spent on. */
export interface TransactionShares {
  entries: number;
  invoice: number;
  totals: number;
  /** The fee marks and credit ledgers (partition `WS#<ws>#FEES#<prj>`; absent in results written before decision 0029). */
  fees?: number;
  other: number;
  total: number;
  entryIndexes: number;
}

const noShares = (): Required<TransactionShares> => ({ entries: 0, invoice: 0, totals: 0, fees: 0, other: 0, total: 0, entryIndexes: 0 });

export interface InvoiceOperation {
  label: string;
  entries: number;
  status: number;
  ms: number;
  /** Longer than a request's DynamoDB deadline (lifted for the measurement): through the API it would answer 503 part-way. */
  overDeadline: boolean;
  readUnits: number;
  /** Write units as DynamoDB Local reported them. */
  localWriteUnits: number;
  /** Write units at AWS's documented rules: transactions from their items, other writes as reported. */
  writeUnits: number;
  commands: Record<string, number>;
  /** Read units (DynamoDB Local's) and calls by what was read (absent in results written before decision 0029's fees). */
  reads?: Record<string, { calls: number; units: number }>;
  /**
   * Read units at AWS's rules: DynamoDB Local's, plus each Query it reported at 0 (one that found
   * nothing, such as a fee mark's) at AWS's minimum, 1 strongly consistent and 0.5 eventually
   * ("you'll still be charged ... even if no data exists"). Absent in results written before.
   */
  awsReadUnits?: number;
  transactions: InvoiceTransaction[];
  /** The invoice's size after the operation (bytes, as DynamoDB counts it). */
  invoiceBytes: number;
  /** The plan's size (bytes), for a create. */
  planBytes?: number;
  /** The largest time entry it wrote (bytes, as DynamoDB counts it): over 1 KB, each costs 2 units per KB. */
  entryBytes?: number;
}

/** A create split as decision 0023 counts it, at AWS's documented rules. */
export interface CreateSplit {
  entries: number;
  batches: number;
  /** Write units of one locked entry: the entry's update and its index items. */
  perEntry: number;
  /** Units of the index items one locked entry writes (1 per KB each). */
  indexUnitsPerEntry: number;
  /** Write units of a batch beside its entries, on average: the invoice and its index items, the invoiced totals items. */
  perBatch: number;
  /** Invoiced totals items per batch, on average. */
  totalsPerBatch: number;
  /** The draft's transaction. */
  constant: number;
  writeUnits: number;
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
  /** The fees' creates (decision 0029); absent in results written before them. */
  fees?: FeeCreate[];
  /** How long the fees' part took, workspaces included (seconds). */
  feesSeconds?: number;
  /** The invoice of ITEM_INVOICE's items and taxes, no period: its create, then its retrieve (absent in results written before payments). */
  items?: InvoiceOperation[];
  /** Pages of an invoice's payments, at PAYMENT_LIST_SIZES payments (absent in results written before payments). */
  paymentLists?: ScalingResult[];
  /** The invoices of paymentLists: their payments recorded through the handler (seconds). */
  paymentListWorkspaces?: { size: number; writeSeconds: number }[];
}

/** The requests' DynamoDB deadline as deployed (read before any run lifts it). */
export const REQUEST_DEADLINE_MS = SDK_BUDGET.requestDeadlineMs;

const kbOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const keyString = (key: unknown) => {
  const k = key as { PK?: unknown; SK?: unknown };
  return `${String(k.PK)}|${String(k.SK)}`;
};
const PROJECTED_CHANGE = new RegExp(`#data\\b|\\b${DATA_ATTRIBUTE}\\b`);

/** The partition of a project's fee marks and credit ledger: `WS#<ws>#FEES#<prj>` (decision 0029). */
const FEES_PARTITION = '#FEES#';

/** A transaction's kind, from its entries' count, its place in the operation and its items' keys (`PK|SK`). */
type TransactionKind = (entries: number, index: number, itemKeys: readonly string[]) => string;

type Part = { Put?: { Item: Record<string, unknown> }; Update?: { Key: Record<string, unknown>; UpdateExpression: string }; Delete?: { Key: Record<string, unknown> }; ConditionCheck?: { Key: Record<string, unknown> } };
type Snapshot = Map<string, Record<string, unknown>>;

/**
 * One transaction's write units at AWS's documented rules (docs/data-model.md; decision 0023):
 * 2 per KB of each item (the larger of before and after), and per index, 1 per KB of an index
 * item written or deleted, 2 when its key moves, 1 when its projected `data` changes. An item's
 * before is what the workspace held before the operation, or what an earlier transaction of it
 * wrote; its after, what the workspace holds after (an item written twice, the invoice, is taken
 * at its final size: an upper bound).
 */
function transactionUnits(parts: readonly Part[], current: Snapshot, after: Snapshot) {
  const units = noShares();
  let indexItems = 0;
  for (const part of parts) {
    const key = part.Put ? part.Put.Item : (part.Update ?? part.Delete ?? part.ConditionCheck)!.Key;
    const k = keyString(key);
    const before = current.get(k);
    const now = part.Put ? part.Put.Item : part.Delete ? undefined : part.Update ? (after.get(k) ?? before) : before;
    const kb = kbOf(Math.max(before ? itemSize(before) : 0, now ? itemSize(now) : 0));
    let u = part.ConditionCheck ? 0 : 2 * kb;
    let indexUnits = 0;
    /** An index item's size: the table's keys, the index's, and the projected attributes. */
    const indexKb = (index: (typeof TABLE.indexes)[number]) =>
      kbOf(Math.max(...[before, now].map((item) => (item ? itemSize(Object.fromEntries(['PK', 'SK', index.partitionKey, index.sortKey, ...index.projected].filter((a) => a in item).map((a) => [a, item[a]]))) : 0))));
    const projectedChanged = part.Put !== undefined || (part.Update !== undefined && PROJECTED_CHANGE.test(part.Update.UpdateExpression));
    for (const index of TABLE.indexes) {
      const was = before?.[index.partitionKey] === undefined ? undefined : `${String(before[index.partitionKey])}|${String(before[index.sortKey])}`;
      const is = now?.[index.partitionKey] === undefined ? undefined : `${String(now[index.partitionKey])}|${String(now[index.sortKey])}`;
      const writes = was === undefined && is === undefined ? 0 : was === undefined || is === undefined ? 1 : was !== is ? 2 : projectedChanged ? 1 : 0;
      indexItems += writes;
      indexUnits += writes * indexKb(index);
    }
    if (part.Delete) current.delete(k);
    else if (now) current.set(k, now);
    const sk = String((key as { SK?: unknown }).SK);
    const pk = String((key as { PK?: unknown }).PK);
    const share = sk.startsWith(`${timeEntry.type}#`) ? 'entries' : sk.startsWith(`${invoice.type}#`) ? 'invoice' : pk.includes('#TOTALS#') ? 'totals' : pk.includes(FEES_PARTITION) ? 'fees' : 'other';
    u += indexUnits;
    units[share] += u;
    units.total += u;
    if (share === 'entries') units.entryIndexes += indexUnits;
  }
  return { units, indexItems };
}

/** The operation's transactions, counted at AWS's rules one by one, then summed by kind. */
function transactionsOf(calls: readonly ObservedCall[], before: Snapshot, after: Snapshot, kind: TransactionKind): InvoiceTransaction[] {
  const current: Snapshot = new Map(before);
  const txCalls = calls.filter((c) => c.command === 'TransactWriteItemsCommand');
  const local = transactionCharges(calls);
  const byKind = new Map<string, InvoiceTransaction>();
  for (const [i, call] of txCalls.entries()) {
    const parts = call.input.TransactItems as Part[];
    const keysOf = parts.map((p) => keyString(p.Put ? p.Put.Item : (p.Update ?? p.Delete ?? p.ConditionCheck)!.Key));
    const entries = keysOf.filter((k) => k.includes(`|${timeEntry.type}#`)).length;
    const totalsItems = keysOf.filter((k) => k.split('|')[0]!.includes('#TOTALS#')).length;
    const { units, indexItems } = transactionUnits(parts, current, after);
    const k = kind(entries, i, keysOf);
    const sum = byKind.get(k) ?? { kind: k, count: 0, items: 0, entries: 0, totalsItems: 0, localUnits: 0, units: noShares(), indexItems: 0 };
    byKind.set(k, sum);
    sum.count += 1;
    sum.items += parts.length;
    sum.entries += entries;
    sum.totalsItems += totalsItems;
    sum.localUnits += local[i]!.tableUnits + local[i]!.indexUnits;
    sum.indexItems += indexItems;
    for (const share of Object.keys(units) as (keyof typeof units)[]) sum.units[share] = (sum.units[share] ?? 0) + units[share];
  }
  return [...byKind.values()];
}

async function measure(repoRoot: string, caller: Caller, label: string, entries: number, request: Request, db: Reader, kindOf?: TransactionKind): Promise<{ op: InvoiceOperation; id: string; body: any }> {
  const before = await db.snapshot();
  const t0 = performance.now();
  const { result, calls } = await observe(() => invoke(repoRoot, caller, request));
  const ms = performance.now() - t0;
  if (result.status >= 300) throw new Error(`invoices: ${label}: ${result.status} ${JSON.stringify(result.body)}`);
  const after = await db.snapshot();
  const units = unitsOf(calls);
  const create = request.operation === 'createInvoice';
  const transactions = transactionsOf(calls, before, after, kindOf ?? ((n, i) => (create ? (i === 0 ? 'draft' : 'batch') : n > 0 ? 'release' : 'step')));
  const otherWrites = unitsOf(calls.filter((c) => isWriteCommand(c.command) && c.command !== 'TransactWriteItemsCommand')).write;
  const commands: Record<string, number> = {};
  for (const c of calls) commands[c.command.replace(/Command$/, '')] = (commands[c.command.replace(/Command$/, '')] ?? 0) + 1;
  const id = String((result.body as { id: string }).id ?? request.id);
  // The invoice the request names (a payment's route names it as its parent), or the one it made.
  const invoiceId = request.id ?? id;
  const draft = create ? calls.find((c) => c.command === 'TransactWriteItemsCommand') : undefined;
  const entryBytes = Math.max(0, ...[...after.values()].filter((item) => String(item.SK).startsWith(`${timeEntry.type}#`)).map(itemSize));
  const plan = draft && (draft.input.TransactItems as Part[]).map((p) => p.Put?.Item).find((item) => item && String(item.PK).endsWith('#INVOICE_ENTRIES'));
  return {
    id,
    body: result.body,
    op: {
      label,
      entries,
      status: result.status,
      ms,
      overDeadline: ms > REQUEST_DEADLINE_MS,
      readUnits: units.read,
      localWriteUnits: units.write,
      writeUnits: transactions.reduce((n, t) => n + t.units.total, 0) + otherWrites,
      commands,
      reads: readsOf(calls),
      awsReadUnits: units.read + calls.filter((c) => c.command === 'QueryCommand' && unitsOf([c]).read === 0).reduce((n, c) => n + (c.input.ConsistentRead ? 1 : 0.5), 0),
      transactions,
      invoiceBytes: itemSize(after.get(keyString(keys.item(caller.workspaceId, invoice.type, invoiceId))) ?? {}),
      ...(plan ? { planBytes: itemSize(plan) } : {}),
      ...(entryBytes > 0 ? { entryBytes } : {}),
    },
  };
}

/** What a read call read, by its key or key condition: `projects (Query)`, `fee marks (Query)`, `project (GetItem)`, ... */
function readTarget(call: ObservedCall): string {
  const command = call.command.replace(/(Item)?Command$/, '');
  const typeOf = (key: { PK?: unknown; SK?: unknown }) => {
    const pk = String(key.PK);
    if (pk.includes(FEES_PARTITION)) return String(key.SK) === 'CREDIT' ? 'credit ledger' : 'fee mark';
    if (pk.endsWith('#INVOICE_ENTRIES')) return 'plan';
    return String(key.SK).split('#')[0]!.toLowerCase();
  };
  if (command === 'Get') return `${typeOf(call.input.Key as { PK: unknown })} (GetItem)`;
  if (command === 'BatchGet') {
    const requests = Object.values(call.input.RequestItems as Record<string, { Keys: { PK: unknown; SK: unknown }[] }>);
    return `${[...new Set(requests.flatMap((r) => r.Keys.map(typeOf)))].join(', ')} (BatchGetItem)`;
  }
  if (command === 'Query') {
    const partition = Object.values((call.input.ExpressionAttributeValues ?? {}) as Record<string, unknown>).map(String).find((v) => v.startsWith('WS#')) ?? '';
    const what = partition.includes(FEES_PARTITION) ? 'fee marks' : partition.includes(`#${projectResource.type}#`) ? 'projects' : partition.includes(`#${timeEntry.type}`) ? 'time entries' : partition.includes(`#${invoice.type}`) ? 'invoices' : 'items';
    return `${what} (Query${call.input.IndexName ? ` ${String(call.input.IndexName)}` : ''})`;
  }
  return command;
}

/** Read units and calls by what they read. */
function readsOf(calls: readonly ObservedCall[]): Record<string, { calls: number; units: number }> {
  const reads: Record<string, { calls: number; units: number }> = {};
  for (const call of calls.filter((c) => !isWriteCommand(c.command))) {
    const target = readTarget(call);
    const sum = (reads[target] ??= { calls: 0, units: 0 });
    sum.calls += 1;
    sum.units += unitsOf([call]).read;
  }
  return reads;
}

/** Decision 0023's bound of a create's write units: 6 per entry + (5S + 2t) per batch + 9 + 2 per plan KB (S the invoice's KB, at its final size). */
export function createBound(op: InvoiceOperation): number {
  const batches = op.transactions.find((t) => t.kind === 'batch') ?? { count: 0, entries: 0, totalsItems: 0 };
  return (
    CREATE_BOUND.perEntry * batches.entries +
    batches.count * CREATE_BOUND.invoicePerKb * kbOf(op.invoiceBytes) +
    CREATE_BOUND.perTotalsItem * batches.totalsItems +
    CREATE_BOUND.draftBase +
    CREATE_BOUND.planPerKb * kbOf(op.planBytes ?? 0)
  );
}

/** A create split per entry, per batch and constant, from its transactions' shares (decision 0023's terms). */
export function splitCreate(op: InvoiceOperation): CreateSplit {
  const batches = op.transactions.find((t) => t.kind === 'batch')!;
  const draft = op.transactions.find((t) => t.kind === 'draft')!;
  const entries = batches.entries;
  const bound = createBound(op);
  return {
    entries,
    batches: batches.count,
    perEntry: batches.units.entries / entries,
    indexUnitsPerEntry: batches.units.entryIndexes / entries,
    perBatch: (batches.units.total - batches.units.entries) / batches.count,
    totalsPerBatch: batches.totalsItems / batches.count,
    constant: draft.units.total,
    writeUnits: op.writeUnits,
    readPerEntry: op.readUnits / entries,
    writePerEntry: op.writeUnits / entries,
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

type Reader = ReturnType<typeof reader>;

/** Reads of the workspace outside the functions' client (not observed): items, and the whole `WS#<ws>` partition. */
function reader(endpoint: string, tableName: string, workspaceId: string) {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1' }));
  const partition = keys.item(workspaceId, invoice.type, 'x').PK;
  return {
    readKey: async (key: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: tableName, Key: key }))).Item,
    /** Every item of the workspace's partition (its clients, projects, entries, invoices, number counter), by key. */
    snapshot: async (): Promise<Snapshot> => {
      const items: Snapshot = new Map();
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition }, ConsistentRead: true, ExclusiveStartKey: start }));
        for (const item of out.Items ?? []) items.set(keyString(item), item);
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    },
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
      const { op, id } = await measure(repoRoot, caller, label, count, request, db);
      ops.push(op);
      return id;
    };
    const draft = await run('create', { operation: 'createInvoice', body: invoiceBody(clientId) });
    await run('update (PATCH of the draft\'s memo)', { operation: 'updateInvoice', id: draft, body: { memo: 'Net 30' } });
    await run('delete (the draft, its time released)', { operation: 'deleteInvoice', id: draft });
    const first = await run('create again (the time the delete released)', { operation: 'createInvoice', body: invoiceBody(clientId) });
    await run('finalize', { operation: 'finalizeInvoice', id: first });
    await run('void', { operation: 'voidInvoice', id: first });
    const second = await run('create again (the time the void released)', { operation: 'createInvoice', body: invoiceBody(clientId) });
    await run('finalize', { operation: 'finalizeInvoice', id: second });
    const part = await run(PAYMENT_STEPS.part, { operation: 'createPayment', id: second, body: paymentBody(PART_PAYMENT) });
    const rest = String((await invokeOk(repoRoot, caller, { operation: 'retrieveInvoice', id: second })).body.amount_due);
    await run(PAYMENT_STEPS.rest, { operation: 'createPayment', id: second, body: paymentBody(rest) });
    await run(PAYMENT_STEPS.delete, { operation: 'deletePayment', id: second, childId: part });
    await run(PAYMENT_STEPS.pay, { operation: 'payInvoice', id: second, body: paymentTerms() });
    const reply = await invokeOk(repoRoot, caller, { operation: 'retrieveInvoice', id: second });
    if (reply.body.time_entry_count !== count) throw new Error(`invoices: the second invoice holds ${String(reply.body.time_entry_count)} entries, not ${count}`);
    if (reply.body.status !== 'paid' || reply.body.amount_paid !== reply.body.total) {
      throw new Error(`invoices: the paid invoice is ${String(reply.body.status)}, ${String(reply.body.amount_paid)} paid of ${String(reply.body.total)}`);
    }
    log(`invoices: ${count.toLocaleString('en-US')} entries: ${ops.map((o) => `${o.label.split(' ')[0]} ${(o.ms / 1000).toFixed(1)} s`).join(', ')}`);
    return ops;
  } finally {
    db.destroy();
  }
}

export const INVOICE_LIST_VARIANTS: readonly ListVariant[] = [
  { key: 'invoices', operation: 'listInvoices', query: () => ({}) },
  { key: 'invoices by status (GSI1)', operation: 'listInvoices', query: () => ({ status: 'draft' }) },
  { key: 'invoices of a client (GSI2)', operation: 'listInvoices', query: (ws) => ({ client_id: ws.clientId }) },
  { key: 'invoices of a client by status (GSI5)', operation: 'listInvoices', query: (ws) => ({ client_id: ws.clientId, status: 'draft' }) },
];

/** A workspace of `size` invoices of one client, all drafts: one made by the handler, the others copies of it under fresh ids. */
async function listWorkspace(repoRoot: string, size: number, endpoint: string, tableName: string): Promise<ScaleWorkspace> {
  const caller: Caller = { workspaceId: `bench-invoice-list-${String(size).padStart(5, '0')}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const { clientId, projectId } = await timeWorkspace(repoRoot, caller, 3, endpoint, tableName);
  const made = await invokeOk(repoRoot, caller, { operation: 'createInvoice', body: invoiceBody(clientId) });
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const original = (await db.readKey(keys.item(caller.workspaceId, invoice.type, String(made.body.id))))!;
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

// ---- Items and payments (decision 0030)

/** The n-th item of the invoice of items (descriptions of one length; every tenth not taxable). */
const itemOf = (n: number) => ({
  description: `Item ${String(n + 1).padStart(2, '0')}: design, build and review of one page of the site`,
  quantity: 1.5,
  unit_price: 95,
  ...(n % 10 === 9 ? { taxable: false } : {}),
});

/** A client's invoice of ITEM_INVOICE's items and taxes, no period: its create, then its retrieve. */
async function itemInvoice(repoRoot: string, endpoint: string, tableName: string, log: (line: string) => void): Promise<InvoiceOperation[]> {
  const caller: Caller = { workspaceId: `bench-invoice-items-${Date.now()}`, apiClientId: 'bench-invoices' };
  const clientId = String((await invokeOk(repoRoot, caller, { operation: 'createClient', body: clientBody(1) })).body.id);
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const body = { client_id: clientId, items: Array.from({ length: ITEM_INVOICE.items }, (_, n) => itemOf(n)), taxes: ITEM_INVOICE.taxes, timezone: 'UTC', memo: 'Thank you for your business' };
    const created = await measure(repoRoot, caller, `create: ${ITEM_INVOICE.items} items, ${ITEM_INVOICE.taxes.length} taxes, no period`, 0, { operation: 'createInvoice', body }, db);
    const retrieved = await measure(repoRoot, caller, 'retrieve', 0, { operation: 'retrieveInvoice', id: created.id }, db);
    const lines = (retrieved.body as { lines: { kind: string }[] }).lines.filter((line) => line.kind === 'item');
    const taxes = (retrieved.body as { taxes: unknown[] }).taxes;
    if (lines.length !== ITEM_INVOICE.items || taxes.length !== ITEM_INVOICE.taxes.length) throw new Error(`invoices: the invoice of items holds ${lines.length} items and ${taxes.length} taxes`);
    const ops = [created.op, retrieved.op];
    log(`invoices: ${ITEM_INVOICE.items} items (${created.op.invoiceBytes} bytes): ${ops.map((o) => `${o.label.split(':')[0]} ${o.readUnits} RCU / ${o.writeUnits} WCU, ${o.ms.toFixed(0)} ms`).join('; ')}`);
    return ops;
  } finally {
    db.destroy();
  }
}

export const PAYMENT_LIST_VARIANTS: readonly ListVariant[] = [{ key: "an invoice's payments (GSI2)", operation: 'listPayments', id: (ws) => ws.invoiceId!, query: () => ({}) }];

/**
 * An open invoice of one item with `size` payments, recorded one after another through the
 * createPayment handler (each the payment's Put and the invoice's update, as any record): the
 * items, index keys and invoice are exactly the domain's. Workspace ids, ids and amounts of one
 * length, so both invoices' payments are of one size.
 */
async function paymentListWorkspace(repoRoot: string, size: number): Promise<ScaleWorkspace> {
  const caller: Caller = { workspaceId: `bench-payment-list-${String(size).padStart(5, '0')}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const clientId = String((await invokeOk(repoRoot, caller, { operation: 'createClient', body: clientBody(1) })).body.id);
  const made = await invokeOk(repoRoot, caller, { operation: 'createInvoice', body: { client_id: clientId, items: [{ description: 'Annual support', quantity: 1, unit_price: 1000 }] } });
  const invoiceId = String(made.body.id);
  await invokeOk(repoRoot, caller, { operation: 'finalizeInvoice', id: invoiceId });
  const started = performance.now();
  for (let n = 0; n < size; n++) await invokeOk(repoRoot, caller, { operation: 'createPayment', id: invoiceId, body: paymentBody('1.00') });
  const writeSeconds = (performance.now() - started) / 1000;
  const reply = await invokeOk(repoRoot, caller, { operation: 'retrieveInvoice', id: invoiceId });
  if (reply.body.amount_paid !== `${size}.00`) throw new Error(`invoices: ${size} payments of 1.00 left ${String(reply.body.amount_paid)} paid`);
  return { size, caller, clientId, projectId: '', invoiceId, writeSeconds };
}

// ---- Fees (decision 0029): a create's units with fee-billed projects, and with a project's past invoices

/** Fee-billed projects in a create's scope (the client's every project). */
export const FEE_PROJECT_COUNTS = [1, 10, 50] as const;
/** Time entries of each fee-billed project in the month invoiced (covered time: zero-amount time lines). */
export const FEE_ENTRIES_PER_PROJECT = 3;
/** Past invoices of the one Retainer project (one a month before the month invoiced, each created then finalized). */
export const PAST_INVOICE_COUNTS = [1, 100] as const;

/** The billing types measured, as a project's fields (every project also has an hourly rate: its time is priced). */
export const FEE_BILLING_TYPES = {
  /** A period of one month starting on the 1st: one retainer line and its mark per project and month. */
  Retainer: { billing_type: 'Retainer', amount: 2500, interval_count: 1, interval_unit: 'Month' },
  /** Blocks of 1,000 of prepaid credit: its 3 entries (180 of time) buy one block; one ledger per project, in a credit batch of its own. */
  CreditBased: { billing_type: 'CreditBased', amount: 1000 },
} as const;
export type FeeBillingType = keyof typeof FEE_BILLING_TYPES;

/** The month every fee create invoices (invoiceBody's), and the Retainer projects' start (room for 100 monthly periods before it). */
const FEE_MONTH = { year: 2026, month: 10 } as const;
const RETAINER_START = '2018-07-01T00:00:00.000Z';

/** One create of section 10's fees. */
export interface FeeCreate {
  billingType: FeeBillingType;
  /** Fee-billed projects in scope. */
  projects: number;
  /** The past invoices of the (one) project, for the history rows; 0 otherwise. */
  pastInvoices: number;
  /** The workspace's making: its items written, and the past invoices created and finalized (seconds). */
  setupSeconds: number;
  op: InvoiceOperation;
}

/** `YYYY-MM-DD` of the first day of the month `k` months after FEE_MONTH (negative: before). */
const monthStart = (k: number) => new Date(Date.UTC(FEE_MONTH.year, FEE_MONTH.month + k, 1)).toISOString().slice(0, 10);

/**
 * A client whose every project is of one billing type, each with time entries at `startsOf`, written
 * with BatchWriteItem as timeWorkspace writes its time (the handlers' items, their writes held back).
 */
async function feeWorkspace(repoRoot: string, caller: Caller, type: FeeBillingType, projectCount: number, startsOf: string[], endpoint: string, tableName: string) {
  const clientItem = await itemsOf(repoRoot, caller, { operation: 'createClient', body: clientBody(1) });
  const clientId = idOf(clientItem);
  const projects: Record<string, unknown>[] = [];
  const entries: Record<string, unknown>[] = [];
  for (let p = 0; p < projectCount; p++) {
    const overrides = { ...FEE_BILLING_TYPES[type], hourly_rate: 120, ...(type === 'Retainer' ? { start_date: RETAINER_START } : {}) };
    const project = await itemsOf(repoRoot, caller, { operation: 'createProject', body: projectBody(p + 1, clientId, overrides) });
    projects.push(project);
    for (const started_at of startsOf) {
      const body = { project_id: idOf(project), started_at, duration_minutes: 30, description: 'Implementation work' };
      entries.push({ ...(await itemsOf(repoRoot, caller, { operation: 'logTimeEntry', body }, () => ({ Item: project }))), [COUNTED_ATTRIBUTE]: 1 });
    }
    Object.assign(project, { time_entry_count: startsOf.length });
  }
  Object.assign(clientItem, { project_count: projectCount, time_entry_count: projectCount * startsOf.length });
  await writeItems(endpoint, tableName, [clientItem, ...projects, ...entries]);
  return { clientId, projectIds: projects.map(idOf) };
}

/** A fee create's transactions by what they hold: the draft, fee batches (marks), credit batches (ledgers), batches of time. */
const feeKind: TransactionKind = (_entries, index, itemKeys) => {
  if (index === 0) return 'draft';
  const fees = itemKeys.filter((k) => k.split('|')[0]!.includes(FEES_PARTITION));
  if (fees.some((k) => k.endsWith('|CREDIT'))) return 'credit';
  return fees.length > 0 ? 'fees' : 'batch';
};

/** The entries of the month invoiced: FEE_ENTRIES_PER_PROJECT a project, on its 10th, 11th, ... at 09:00 UTC. */
const monthEntries = (k: number) => Array.from({ length: FEE_ENTRIES_PER_PROJECT }, (_, i) => `${monthStart(k).slice(0, 8)}${String(10 + i).padStart(2, '0')}T09:00:00.000Z`);

/** A create of FEE_MONTH with `projectCount` projects of `type`, each with its entries of the month. */
async function feeCreate(repoRoot: string, type: FeeBillingType, projectCount: number, endpoint: string, tableName: string): Promise<FeeCreate> {
  const caller: Caller = { workspaceId: `bench-invoice-fees-${type}-${projectCount}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const started = performance.now();
  const { clientId } = await feeWorkspace(repoRoot, caller, type, projectCount, monthEntries(0), endpoint, tableName);
  const setupSeconds = (performance.now() - started) / 1000;
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const label = `create: ${projectCount} ${type} ${projectCount === 1 ? 'project' : 'projects'}`;
    const { op } = await measure(repoRoot, caller, label, projectCount * FEE_ENTRIES_PER_PROJECT, { operation: 'createInvoice', body: invoiceBody(clientId) }, db, feeKind);
    return { billingType: type, projects: projectCount, pastInvoices: 0, setupSeconds, op };
  } finally {
    db.destroy();
  }
}

/**
 * One Retainer project with `past` invoices, one a month for the months before FEE_MONTH (each with
 * one entry of its month, created through the handler then finalized, oldest first), then the
 * create of FEE_MONTH (its entries as feeCreate's), measured.
 */
async function historyCreate(repoRoot: string, past: number, endpoint: string, tableName: string): Promise<FeeCreate> {
  const caller: Caller = { workspaceId: `bench-invoice-history-${String(past).padStart(3, '0')}-${Date.now()}`, apiClientId: 'bench-invoices' };
  const started = performance.now();
  const pastMonths = Array.from({ length: past }, (_, i) => i - past);
  const starts = [...pastMonths.map((k) => `${monthStart(k).slice(0, 8)}10T09:00:00.000Z`), ...monthEntries(0)];
  const { clientId } = await feeWorkspace(repoRoot, caller, 'Retainer', 1, starts, endpoint, tableName);
  for (const k of pastMonths) {
    const made = await invokeOk(repoRoot, caller, { operation: 'createInvoice', body: invoiceBody(clientId, { from: monthStart(k), to: monthStart(k + 1) }) });
    if (!(made.body.lines as { kind: string }[]).some((line) => line.kind === 'retainer')) throw new Error(`invoices: the invoice of ${monthStart(k)} charges no retainer period`);
    await invokeOk(repoRoot, caller, { operation: 'finalizeInvoice', id: String(made.body.id) });
  }
  const setupSeconds = (performance.now() - started) / 1000;
  const db = reader(endpoint, tableName, caller.workspaceId);
  try {
    const label = `create: 1 Retainer project, ${past} past ${past === 1 ? 'invoice' : 'invoices'}`;
    const { op } = await measure(repoRoot, caller, label, FEE_ENTRIES_PER_PROJECT, { operation: 'createInvoice', body: invoiceBody(clientId) }, db, feeKind);
    return { billingType: 'Retainer', projects: 1, pastInvoices: past, setupSeconds, op };
  } finally {
    db.destroy();
  }
}

/** Section 10's fees: creates with 1, 10 and 50 projects of each billing type, then with 1 and 100 past invoices. */
export async function runFeeBench(repoRoot: string, endpoint: string, tableName: string, log: (line: string) => void): Promise<FeeCreate[]> {
  const fees: FeeCreate[] = [];
  for (const type of Object.keys(FEE_BILLING_TYPES) as FeeBillingType[]) {
    for (const count of FEE_PROJECT_COUNTS) fees.push(await feeCreate(repoRoot, type, count, endpoint, tableName));
    log(`invoices: fees: creates with ${FEE_PROJECT_COUNTS.join(', ')} ${type} projects: ${fees.filter((f) => f.billingType === type).map((f) => `${f.op.readUnits} RCU / ${f.op.writeUnits} WCU`).join(', ')}`);
  }
  for (const past of PAST_INVOICE_COUNTS) {
    const row = await historyCreate(repoRoot, past, endpoint, tableName);
    fees.push(row);
    log(`invoices: fees: a Retainer project with ${past} past invoices (made in ${row.setupSeconds.toFixed(1)} s): its next create ${row.op.readUnits} RCU / ${row.op.writeUnits} WCU`);
  }
  return fees;
}

/** The handlers section 10 measures, loaded before the first measured run (its time is the request's, not the module's import). */
const MEASURED_OPERATIONS: readonly Operation[] = ['createInvoice', 'updateInvoice', 'deleteInvoice', 'finalizeInvoice', 'voidInvoice', 'payInvoice', 'retrieveInvoice', 'createPayment', 'deletePayment'];

export async function runInvoiceBench(repoRoot: string, endpoint: string, tableName: string, repeats: number, log: (line: string) => void): Promise<InvoiceBenchResult> {
  for (const operation of MEASURED_OPERATIONS) await handlerOf(repoRoot, routeByOperation(operation));
  const operations: InvoiceOperation[] = [];
  for (const count of INVOICE_SIZES) {
    log(`invoices: a month of ${count.toLocaleString('en-US')} time entries: created, changed, deleted; created, finalized, voided; created, finalized, paid in part, in full, reopened, paid`);
    operations.push(...(await withoutDeadline(() => lifecycle(repoRoot, count, endpoint, tableName, log))));
  }
  const creates = operations.filter((o) => o.label === 'create').map(splitCreate);
  const items = await itemInvoice(repoRoot, endpoint, tableName, log);
  const workspaces: ScaleWorkspace[] = [];
  for (const size of INVOICE_LIST_SIZES) workspaces.push(await listWorkspace(repoRoot, size, endpoint, tableName));
  log(`invoices: list workspaces of ${INVOICE_LIST_SIZES.join(' and ')} invoices written`);
  // Warm the list handler so the first measured page does not pay for module loading and JIT.
  await walk(repoRoot, workspaces[0]!, INVOICE_LIST_VARIANTS[0]!, 25, [1], 1);
  const lists: ScalingResult[] = [];
  for (const variant of INVOICE_LIST_VARIANTS) {
    for (const ws of workspaces) {
      for (const limit of INVOICE_LIST_LIMITS) lists.push(await walk(repoRoot, ws, variant, limit, [1, 10, 100], repeats));
    }
  }
  const paymentWorkspaces: ScaleWorkspace[] = [];
  for (const size of PAYMENT_LIST_SIZES) paymentWorkspaces.push(await paymentListWorkspace(repoRoot, size));
  log(`invoices: invoices of ${PAYMENT_LIST_SIZES.join(' and ')} payments recorded (${paymentWorkspaces.map((w) => `${w.writeSeconds.toFixed(1)} s`).join(', ')})`);
  await walk(repoRoot, paymentWorkspaces[0]!, PAYMENT_LIST_VARIANTS[0]!, 25, [1], 1);
  const paymentLists: ScalingResult[] = [];
  for (const variant of PAYMENT_LIST_VARIANTS) {
    for (const ws of paymentWorkspaces) {
      for (const limit of PAYMENT_LIST_LIMITS) paymentLists.push(await walk(repoRoot, ws, variant, limit, [1, 10, 100], repeats));
    }
  }
  const feesStarted = performance.now();
  const fees = await withoutDeadline(() => runFeeBench(repoRoot, endpoint, tableName, log));
  const feesSeconds = (performance.now() - feesStarted) / 1000;
  return {
    operations,
    creates,
    lists,
    listWorkspaces: workspaces.map((w) => ({ size: w.size, writeSeconds: w.writeSeconds })),
    fees,
    feesSeconds,
    items,
    paymentLists,
    paymentListWorkspaces: paymentWorkspaces.map((w) => ({ size: w.size, writeSeconds: w.writeSeconds })),
  };
}
