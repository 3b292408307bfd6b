/**
 * Billing runs (contract, "Billing runs"; docs/decisions/0033-billing-runs.md): every client of a
 * workspace (or those named) invoiced for one period, on a queue, never in a loop of one function.
 *
 * - A start puts the run and takes the workspace's billing lane when it is free (`running`), else
 *   counts itself on the lane as waiting (`queued`): one transaction either way, so a queued run
 *   exists only while another holds the lane.
 * - A run that becomes `running` (its INSERT, or a queued run started) is planned from the table's
 *   stream: a plan message per page of 100 clients, each giving one message per client.
 * - A client's work calls the invoice's create with a record keyed by run and client (decision
 *   0015, 0023): a retry finishes the same invoice, never a second. Its outcome is a result row,
 *   put on condition that there is none, with +1 `clients_done` in the same transaction: each
 *   client counts once, whatever repeats.
 * - The run completes when planned and every client has an outcome; the same transaction frees
 *   the lane or hands it to the oldest queued run.
 * Nothing here knows the queue: what to send is answered (shared/billing/ sends it).
 */
import { ApiError, invalidParam, notFound, RETRY_AFTER_SECONDS, serviceUnavailable, type ErrorType } from '../core/errors.ts';
import { isWellFormedId, newId } from '../core/ids.ts';
import { readItems } from '../data/batches.ts';
import * as keys from '../data/keys.ts';
import type { PrimaryKey } from '../data/keys.ts';
import { countItems, readAll, readBatch } from '../data/list.ts';
import { listPage, type ListEnvelope } from '../data/paging.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { changeExpression } from '../data/update.ts';
import { absent, addToCounter, allOf, dataOfItem, deletePart, exists, getItem, ITEM_PART, putPart, transact, updatePart, type Condition, type TransactItem } from '../data/writes.ts';
import { liveRecord, markedWorkOf, markerDelete, markerPut, recordOverMarker, recordPut } from '../data/idempotency-records.ts';
import { dataOf, objectOf } from '../model/objects.ts';
import { billingRun, client, project } from '../model/resources.ts';
import type { BillingRunOutcome, BillingRunStart } from '../model/billing-run-fields.ts';
import type { ListBillingRunResultsInput } from '../api/billing-run-result-schemas.ts';
import type { CallerContext, ChangeRecord, Outcome, Versioned } from './context.ts';
import { newItem, readItem, recordPart, refuseIfRecordTaken, versioned } from './entity.ts';
import { createInvoice } from './invoices/create.ts';
import { dueRuns } from '../core/billing-schedule.ts';
import type { BillingMessage, ClientMessage, PlanMessage } from './billing-run-messages.ts';

export type { BillingMessage, ClientMessage, PlanMessage } from './billing-run-messages.ts';

export type BillingRun = ReturnType<typeof objectOf<typeof billingRun>>;

/** Clients per plan message. */
const PLAN_PAGE = 100;
/** Attempts of a start or a completion whose lane moved under it before the request answers 503 (the queue retries a completion). */
const LANE_ATTEMPTS = 10;
/** Who a run's invoice creates are made by: the records of their keys are the run's own. */
export const RUN_ACTOR = 'billing_run';
/** What a client's create answers that its work retries (the queue hands the message back) rather than records. */
const RETRIED: ReadonlySet<ErrorType> = new Set(['rate_limited', 'quota_exceeded', 'service_unavailable', 'idempotency_key_in_use']);
/** Set on the run by its plan's last page: its clients are all known (`clients_total` is what was planned). */
const PLANNED = 'planned';

const runKey = (workspaceId: string, runId: string) => keys.item(workspaceId, billingRun.type, runId);

/** The workspace's clients created before the run (client ids, as run ids, sort by creation time). */
function clientsBefore(workspaceId: string, runId: string) {
  const bound = `${keys.typePrefix(client.type)}${client.idPrefix}${runId.slice(billingRun.idPrefix.length)}`;
  return keys.partitionRange(keys.workspacePartition(workspaceId), { low: keys.typePrefix(client.type), high: bound });
}

/**
 * Starts a run: `running` when the workspace's lane is free, `queued` behind the runs that hold or
 * wait for it otherwise. A scheduled run gives its `mark` (one per workspace, type and day): put in
 * the same transaction where none is, so a second sweep of the day starts nothing (undefined).
 */
export async function startBillingRun(ctx: CallerContext, input: BillingRunStart, now?: Date): Promise<Versioned<BillingRun>>;
export async function startBillingRun(ctx: CallerContext, input: BillingRunStart, now: Date, mark: PrimaryKey): Promise<Versioned<BillingRun> | undefined>;
export async function startBillingRun(ctx: CallerContext, input: BillingRunStart, now = new Date(), mark?: PrimaryKey): Promise<Versioned<BillingRun> | undefined> {
  if (input.client_ids) {
    // One BatchGetItem of at most 100 keys; an id that is not a client id names nothing.
    const wellFormed = input.client_ids.filter((id) => isWellFormedId(client.idPrefix, id));
    const found = new Set((await readItems(wellFormed.map((id) => keys.item(ctx.workspaceId, client.type, id)))).map((item) => String(dataOfItem(item).id)));
    const unknown = input.client_ids.filter((id) => !found.has(id));
    if (unknown.length > 0) throw invalidParam('client_ids', `client_ids names ${unknown.length === 1 ? 'a client' : 'clients'} this workspace does not have: ${unknown.slice(0, 5).join(', ')}`);
  }
  const id = newId(billingRun.idPrefix, now);
  const total = input.client_ids?.length ?? (await countItems(clientsBefore(ctx.workspaceId, id)));
  const at = now.toISOString();
  const base = { ...dataOf(billingRun, { id, workspaceId: ctx.workspaceId }, input, at), clients_total: total, clients_done: 0, invoices_created: 0 };
  const lane = keys.billingLane(ctx.workspaceId);
  for (let attempt = 0; attempt < LANE_ATTEMPTS; attempt++) {
    for (const status of ['running', 'queued'] as const) {
      const item = newItem(ctx, billingRun, { ...base, status });
      const outcome = versioned(billingRun, item);
      const cancelled = await transact<string>({
        [ITEM_PART]: putPart(item, { condition: absent() }),
        // Free: this run takes it. Held: one more waits (the lane exists until its last run completes).
        lane: status === 'running' ? putPart({ ...lane, run: id, waiting: 0 }, { condition: absent() }) : addToCounter(lane, 'waiting', 1, exists()),
        ...recordPart(ctx, outcome),
        ...(mark ? { mark: putPart({ ...mark, run: id }, { condition: absent() }) } : {}),
      });
      if (!cancelled) return outcome;
      refuseIfRecordTaken(ctx, cancelled);
      if (mark && cancelled.failed('mark')) return undefined;
      if (!cancelled.failed('lane')) throw new Error(`billing run start cancelled: ${cancelled.codes.join(',')}`);
    }
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy);
}

/** A run's results, by client id; 404 for a run that does not exist (read only when the page is empty). */
export async function listBillingRunResults(ctx: CallerContext, runId: string, query: ListBillingRunResultsInput): Promise<ListEnvelope<Record<string, unknown>>> {
  const page = await listPage({
    binding: { list: 'billing_run_results', workspaceId: ctx.workspaceId, filters: { billing_run_id: runId } },
    source: { index: undefined, partitionKey: keys.billingRunResultsPartition(ctx.workspaceId, runId), type: keys.RESULT_TYPE, sortKeyPrefix: '', remaining: {} },
    limit: query.limit,
    cursor: query.cursor,
    ascending: true,
    toResource: (item) => ({ object: 'billing_run_result', ...dataOfItem(item) }),
  });
  if (page.data.length === 0 && !(await readItem(ctx, billingRun, runId))) throw notFound(billingRun.noun, runId);
  return page;
}

/**
 * A page of a run's clients: their messages, and the next page's plan (none after the last, which
 * marks the run planned with the clients it planned, and completes a run of none).
 */
export async function planPage(message: PlanMessage, now = new Date()): Promise<{ clients: ClientMessage[]; next?: PlanMessage }> {
  const { workspace_id: workspaceId, run_id: runId } = message;
  const item = await getItem(runKey(workspaceId, runId));
  if (!item || dataOfItem(item).status !== 'running' || item[PLANNED] === true) return { clients: [] };
  const given = dataOfItem(item).client_ids;
  let ids: string[];
  let after: string | undefined;
  if (Array.isArray(given)) ids = given.map(String); // at most 100: one page
  else {
    const batch = await readBatch(clientsBefore(workspaceId, runId), {
      ascending: true,
      batch: PLAN_PAGE,
      startKey: message.after === null ? undefined : { PK: keys.workspacePartition(workspaceId), SK: message.after },
    });
    ids = batch.items.map((client) => String(dataOfItem(client).id));
    after = batch.startKey === undefined ? undefined : String(batch.startKey.SK);
  }
  const clients = ids.map((clientId): ClientMessage => ({ kind: 'client', workspace_id: workspaceId, run_id: runId, client_id: clientId }));
  const sent = message.sent + ids.length;
  if (after !== undefined) return { clients, next: { ...message, after, sent } };
  // The last page: `clients_total` becomes what was planned (a client created as the run started may be in it or not).
  await transact({
    run: updatePart(runKey(workspaceId, runId), changeExpression({ fields: { clients_total: sent }, attributes: { [PLANNED]: true }, bumpVersion: true }), {
      condition: statusIs('running'),
    }),
  });
  await completeIfDone(workspaceId, runId, now);
  return { clients };
}

/** What a client's work wrote as its outcome. */
interface Result {
  outcome: BillingRunOutcome;
  invoice_id?: string;
  error?: { type: string; message: string };
}

/**
 * Bills one client of a run, once: its outcome is written unless one is there, then the run
 * completes if it was the last. Throws to be retried (the queue hands the message back).
 */
export async function billClient(message: ClientMessage, attemptId: string, now = new Date()): Promise<void> {
  const { workspace_id: workspaceId, run_id: runId, client_id: clientId } = message;
  const [written, item] = await Promise.all([getItem(keys.billingRunResult(workspaceId, runId, clientId)), getItem(runKey(workspaceId, runId))]);
  if (!item) return;
  if (!written && dataOfItem(item).status === 'running') await writeResult(workspaceId, runId, clientId, await outcomeOf(workspaceId, item, clientId, attemptId, now));
  await completeIfDone(workspaceId, runId, now);
}

/** The outcome of a client whose work the queue gave up on (its dead-letter queue): failed, so the run completes. */
export async function giveUpClient(message: ClientMessage, now = new Date()): Promise<void> {
  const { workspace_id: workspaceId, run_id: runId, client_id: clientId } = message;
  const unavailable = serviceUnavailable(RETRY_AFTER_SECONDS.unavailable, "The client's invoice could not be made: its work failed on every attempt. Create it with POST /invoices");
  await writeResult(workspaceId, runId, clientId, { outcome: 'failed', error: { type: unavailable.type, message: unavailable.message } });
  await completeIfDone(workspaceId, runId, now);
}

/** What `POST /invoices` answers for the client, with the run's range and its projects of the run's billing types. */
async function outcomeOf(workspaceId: string, runItem: Record<string, unknown>, clientId: string, attemptId: string, now: Date): Promise<Result> {
  const run = dataOfItem(runItem);
  const runId = String(run.id);
  const ctx: CallerContext = { workspaceId, apiClientId: RUN_ACTOR, scopes: [], requestId: attemptId, record: runRecord(workspaceId, runId, clientId) };
  let projectIds: string[] | undefined;
  if (Array.isArray(run.billing_types)) {
    const types = run.billing_types as string[];
    projectIds = [];
    for await (const stored of readAll(keys.listSource(project, workspaceId, { client_id: clientId }))) {
      const data = dataOfItem(stored);
      if (types.includes(String(data.billing_type))) projectIds.push(String(data.id));
    }
    if (projectIds.length === 0) return { outcome: 'nothing_to_invoice' };
  }
  try {
    const input = { client_id: clientId, from: String(run.from), to: String(run.to), timezone: String(run.timezone), discount_rate: 0, ...(projectIds ? { project_ids: projectIds } : {}) };
    const made = await createInvoice(ctx, input, now, { billingRunId: runId });
    return { outcome: 'invoiced', invoice_id: made.resource.id };
  } catch (error) {
    if (error instanceof RunInvoiceMade) return { outcome: 'invoiced', invoice_id: error.invoiceId };
    if (!(error instanceof ApiError) || RETRIED.has(error.type)) throw error;
    // A client deleted before its turn is one the create names no more (its own read of the client).
    if (error.type === 'nothing_to_invoice' || (error.type === 'invalid_request' && error.param === 'client_id')) return { outcome: 'nothing_to_invoice' };
    return { outcome: 'failed', error: { type: error.type, message: error.message } };
  }
}

/** The run's record of a client's invoice was sealed by an earlier attempt: that invoice is the client's. */
class RunInvoiceMade extends Error {
  constructor(readonly invoiceId: string) {
    super(`invoice ${invoiceId} was made for this client by an earlier attempt`);
  }
}

/**
 * The record of a client's create in a run (an Idempotency-Key's, keyed by run and client): the
 * create's marker while it builds, then the invoice's id. Every attempt is the same request.
 */
function runRecord(workspaceId: string, runId: string, clientId: string): ChangeRecord {
  const key = keys.idempotency(workspaceId, RUN_ACTOR, `${runId}:${clientId}`);
  const madeOf = (outcome: Outcome) => ({ invoice_id: (outcome as Versioned<{ id: string }>).resource.id });
  return {
    key,
    write: (outcome) => recordPut(key, madeOf(outcome), Date.now()),
    taken: (stored) => (typeof stored?.invoice_id === 'string' ? new RunInvoiceMade(stored.invoice_id) : serviceUnavailable(RETRY_AFTER_SECONDS.busy)),
    lookup: () => liveRecord(key),
    pending: (workId) => markerPut(key, {}, workId),
    sealed: (outcome, workId) => recordOverMarker(key, madeOf(outcome), workId),
    discarded: (workId) => markerDelete(key, workId),
    pendingWork: (stored) => markedWorkOf(stored),
  };
}

const statusIs = (status: string): Condition => ({ expression: '#data.#status = :status', names: { '#data': DATA_ATTRIBUTE, '#status': 'status' }, values: { ':status': status } });

/** The client's outcome, once: its row put where none is, and the run's counts moved in the same transaction. */
async function writeResult(workspaceId: string, runId: string, clientId: string, result: Result): Promise<void> {
  const row = {
    ...keys.billingRunResult(workspaceId, runId, clientId),
    [DATA_ATTRIBUTE]: { client_id: clientId, outcome: result.outcome, invoice_id: result.invoice_id ?? null, error: result.error ?? null, workspace_id: workspaceId },
  };
  const counts = {
    expression: 'SET #data.#done = #data.#done + :one, #data.#made = #data.#made + :made, #version = #version + :one',
    names: { '#data': DATA_ATTRIBUTE, '#done': 'clients_done', '#made': 'invoices_created', '#version': VERSION_ATTRIBUTE },
    values: { ':one': 1, ':made': result.outcome === 'invoiced' ? 1 : 0 },
  };
  // A row already there (another attempt's) or a run no longer running: nothing more to write.
  await transact({ result: putPart(row, { condition: absent() }), run: updatePart(runKey(workspaceId, runId), counts, { condition: statusIs('running') }) });
}

/**
 * Completes the run if it is planned and every client has an outcome: in one transaction, its
 * status, and the lane freed (none waiting) or handed to the oldest queued run.
 */
export async function completeIfDone(workspaceId: string, runId: string, now: Date): Promise<void> {
  const key = runKey(workspaceId, runId);
  const lane = keys.billingLane(workspaceId);
  for (let attempt = 0; attempt < LANE_ATTEMPTS; attempt++) {
    const item = await getItem(key);
    if (!item || item[PLANNED] !== true) return;
    const data = dataOfItem(item);
    if (data.status !== 'running' || data.clients_done !== data.clients_total) return;
    const next = await oldestQueued(workspaceId);
    const at = now.toISOString();
    const holds: Condition = { expression: '#run = :run', names: { '#run': 'run' }, values: { ':run': runId } };
    const handOver: Record<string, TransactItem> = next
      ? {
          lane: updatePart(lane, { expression: 'SET #run = :next ADD #waiting :minus', names: { '#run': 'run', '#waiting': 'waiting' }, values: { ':next': next, ':minus': -1 } }, { condition: holds }),
          next: updatePart(runKey(workspaceId, next), statusChange(workspaceId, next, { status: 'running', updated_at: at }), { condition: statusIs('queued') }),
        }
      : { lane: deletePart(lane, { condition: allOf(holds, { expression: '#waiting = :none', names: { '#waiting': 'waiting' }, values: { ':none': 0 } }) }) };
    const cancelled = await transact({
      run: updatePart(key, statusChange(workspaceId, runId, { status: 'completed', completed_at: at, updated_at: at }), { condition: allOf(statusIs('running'), { expression: '#data.#done = #data.#total', names: { '#data': DATA_ATTRIBUTE, '#done': 'clients_done', '#total': 'clients_total' }, values: {} }) }),
      ...handOver,
    });
    if (!cancelled || cancelled.failed('run')) return; // completed, here or by another attempt
    // A run queued meanwhile (the status index shows it a moment later), or another took the next: read again.
    await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy);
}

/** A run's status change, its status index moved with it. */
const statusChange = (workspaceId: string, runId: string, fields: Record<string, unknown>) =>
  changeExpression({ fields, attributes: keys.changedIndexes(billingRun, workspaceId, runId, { status: fields.status }), bumpVersion: true });

/** The workspace's oldest queued run, if any (the status index: ids sort by creation). */
async function oldestQueued(workspaceId: string): Promise<string | undefined> {
  const batch = await readBatch(keys.listSource(billingRun, workspaceId, { status: 'queued' }), { ascending: true, batch: 1 });
  const first = batch.items[0];
  return first ? String(dataOfItem(first).id) : undefined;
}

/** Who starts scheduled runs: their events name no request of a caller. */
const SCHEDULE_ACTOR = 'billing_schedule';

/**
 * What a sweep at instant `at` does (contract, "Billing runs", scheduled runs): for each workspace
 * with auto_billing on, the runs due on its local day that holds `at`, each started unless that
 * day's mark says it was (a second sweep, or a schedule firing twice, starts nothing). Missed days
 * are not caught up. Answers the runs it started.
 */
export async function sweepBillingSchedules(at: Date): Promise<BillingRun[]> {
  const started: BillingRun[] = [];
  for await (const schedule of readAll(keys.partitionRange(keys.BILLING_SCHEDULES_PARTITION, { low: 'WS#', high: 'WS#~' }))) {
    const workspaceId = String(schedule.SK).slice('WS#'.length);
    const timezone = String(schedule.timezone ?? 'UTC');
    const { date, due } = dueRuns(at, timezone);
    const ctx: CallerContext = { workspaceId, apiClientId: SCHEDULE_ACTOR, scopes: [], requestId: `${SCHEDULE_ACTOR}:${date}` };
    for (const run of due) {
      const input = { from: run.from, to: run.to, timezone, billing_types: [run.billing_type], client_ids: null };
      const made = await startBillingRun(ctx, input, at, keys.billingScheduleMark(workspaceId, run.billing_type, date));
      if (made) started.push(made.resource);
    }
  }
  return started;
}
