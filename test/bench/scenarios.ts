/**
 * One invocation of each operation (and of each variant whose cost differs), the data it needs,
 * and its capacity floor as docs/data-model.md derives it. The cold-start, warm and units
 * sections all run these.
 */
import type { EventDraft } from '../../shared/events/build.ts';
import type { Operation } from '../../shared/api/routes.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { invokeOk, type Caller, type Request } from './lib/invoke.ts';

export interface Fixture {
  repoRoot: string;
  caller: Caller;
  /** An ACTIVE client with projects and time entries. */
  clientId: string;
  /** An ACTIVE project of that client, with time entries. */
  projectId: string;
  /** A time entry on that project. */
  entryId: string;
}

/**
 * The floor of an operation's units:
 * - `fixed`: a row of docs/data-model.md's table (RCU and WCU as it derives them);
 * - `items`: a list page, ⌈(size of the items read) / 4 KB⌉ RCU (half through a GSI), computed
 *   from the items the page's Query actually returned; when a filter dropped items (search),
 *   what was passed over is not visible and the floor is `grows` instead; `reads` adds the
 *   strongly consistent GetItems the list makes first (1 RCU each: a time entry list's project).
 */
export type UnitFloor =
  | { kind: 'fixed'; rcu: number; wcu: number; source: string; docRow?: { row: string; total: string } }
  | { kind: 'items'; source: string; reads?: number };

export interface Scenario {
  key: string;
  operation: Operation;
  label: string;
  /** The scenario the cold-start and warm sections use for this operation. */
  primary?: boolean;
  prepare(fx: Fixture): Promise<Request>;
  /**
   * What the cold-start section serves instead of `prepare`'s request, where that request's calls
   * depend on what the bench's own process has cached (the floor's calls are captured there): data
   * no process has seen, so the captured floor makes the calls a fresh function makes.
   */
  coldPrepare?(fx: Fixture): Promise<Request>;
  floor: UnitFloor;
  /**
   * Not in section 4: an invoice's writes hold items over 1 KB and batches, which DynamoDB Local
   * does not charge item by item; section 10 counts them from the items written.
   */
  unitsInSection10?: true;
  /**
   * Not in section 3: a document's CPU is its render, not overhead around its SDK calls; section 12
   * measures it warm, at 1 and 100 lines, beside the PDF floor's.
   */
  warmInSection12?: true;
}

const DOC = 'docs/data-model.md';
/** A floor of docs/data-model.md's row `row` (checked against it), or of another source (no row). */
const fixed = (rcu: number, wcu: number, row: string, total: string, source = DOC): UnitFloor => ({
  kind: 'fixed',
  rcu,
  wcu,
  source,
  ...(row ? { docRow: { row, total } } : {}),
});
const items = (source: string, reads?: number): UnitFloor => ({ kind: 'items', source, ...(reads ? { reads } : {}) });
/** A write with `Idempotency-Key`: its own floor plus the record in its transaction (docs/decisions/0015). */
const keyed = (rcu: number, wcu: number, write: string): UnitFloor => ({
  kind: 'fixed',
  rcu,
  wcu,
  source: `${DOC} (${write} + Idempotency-Key)`,
  docRow: { row: 'any POST/PATCH/DELETE with `Idempotency-Key`', total: '+ 2–3 WCU (+ 1 RCU on PATCH)' },
});

const DECISION_0023 = 'docs/decisions/0023-invoices.md';
const BATCH_DECISION = 'docs/decisions/0032-time-entry-batch.md';

let serial = 0;
const next = () => ++serial;

export const clientBody = (n: number, overrides: Record<string, unknown> = {}) => ({
  company_name: `Bench client ${String(n).padStart(5, '0')}`,
  company_email: `billing+${n}@bench.test`,
  company_address: '1 Benchmark Street, Montréal QC H2X 1Y4',
  website: 'https://bench.test',
  status: 'ACTIVE',
  ...overrides,
});

export const projectBody = (n: number, clientId: string, overrides: Record<string, unknown> = {}) => ({
  name: `Bench project ${String(n).padStart(5, '0')}`,
  client_id: clientId,
  billing_type: 'Monthly',
  hourly_rate: 120,
  description: 'Website redesign and hosting',
  ...overrides,
});

export const entryBody = (n: number, target: { project_id?: string; client_id?: string }) => ({
  ...target,
  started_at: '2026-11-20T09:00:00Z',
  duration_minutes: 30 + (n % 60),
  description: 'Design review with the client',
});

const create = async (fx: Fixture, operation: Operation, body: unknown, id?: string): Promise<string> =>
  (await invokeOk(fx.repoRoot, fx.caller, { operation, body, ...(id === undefined ? {} : { id }) })).body.id as string;

const freshClient = (fx: Fixture, overrides: Record<string, unknown> = {}) => create(fx, 'createClient', clientBody(next(), overrides));
const freshProject = (fx: Fixture, overrides: Record<string, unknown> = {}) =>
  create(fx, 'createProject', projectBody(next(), fx.clientId, overrides));
const freshEntry = (fx: Fixture, target: { project_id?: string; client_id?: string }) => create(fx, 'logTimeEntry', entryBody(next(), target));

/** A create of the invoice of a client's November 2026 (entryBody's entries start on 2026-11-20). */
export const invoiceBody = (clientId: string, overrides: Record<string, unknown> = {}) => ({
  client_id: clientId,
  from: '2026-11-01',
  to: '2026-12-01',
  timezone: 'UTC',
  memo: 'Thank you for your business',
  ...overrides,
});

/** A fresh client with a project and one entry on it: what an invoice scenario invoices (apart from the fixture's time). */
async function freshTime(fx: Fixture): Promise<string> {
  const clientId = await freshClient(fx);
  const projectId = await create(fx, 'createProject', projectBody(next(), clientId));
  await freshEntry(fx, { project_id: projectId });
  return clientId;
}

/**
 * The fixture in a workspace of its own (same caller otherwise): a finalize takes the workspace's
 * next number on condition of the last, so a floor captured in the fixture's workspace would be
 * stale once anything else there is finalized before it runs.
 */
const ownWorkspace = (fx: Fixture): Fixture => ({ ...fx, caller: { ...fx.caller, workspaceId: `${fx.caller.workspaceId}-own${next()}` } });

/** A fresh invoice of one entry, a draft or finalized (open). */
async function freshInvoice(fx: Fixture, status: 'draft' | 'open'): Promise<string> {
  const id = await create(fx, 'createInvoice', invoiceBody(await freshTime(fx)));
  if (status === 'open') await invokeOk(fx.repoRoot, fx.caller, { operation: 'finalizeInvoice', id });
  return id;
}

/** One draft of the fixture's workspace, made on first use (its client's other time stays uninvoiced). */
const fixtureInvoices = new WeakMap<Fixture, Promise<{ id: string; clientId: string }>>();
function fixtureDraft(fx: Fixture) {
  let made = fixtureInvoices.get(fx);
  if (!made) {
    made = freshTime(fx).then(async (clientId) => ({ id: await create(fx, 'createInvoice', invoiceBody(clientId)), clientId }));
    fixtureInvoices.set(fx, made);
  }
  return made;
}
const fixtureInvoice = async (fx: Fixture) => (await fixtureDraft(fx)).id;
/** One finalized invoice of the fixture's workspace (its parties frozen on it), made on first use. */
const fixtureFinalized = new WeakMap<Fixture, Promise<string>>();
function fixtureOpenInvoice(fx: Fixture): Promise<string> {
  let made = fixtureFinalized.get(fx);
  if (!made) {
    made = freshInvoice(fx, 'open');
    fixtureFinalized.set(fx, made);
  }
  return made;
}
const fixtureInvoiceClient = async (fx: Fixture) => (await fixtureDraft(fx)).clientId;

/** A payment of part of an invoice's balance (freshInvoice's total is at least 60.00): paid now, by bank transfer. */
export const paymentBody = (amount = '1.00') => ({ amount, ...paymentTerms() });
/** A payment's terms beside its amount (a pay's body). */
export const paymentTerms = () => ({ method: 'bank_transfer', reference: 'Bench transfer' });

/** One open invoice of the fixture's workspace with 3 payments, made on first use. */
const fixturePaymentSets = new WeakMap<Fixture, Promise<{ invoiceId: string; paymentIds: string[] }>>();
function fixturePayments(fx: Fixture) {
  let made = fixturePaymentSets.get(fx);
  if (!made) {
    made = freshInvoice(fx, 'open').then(async (invoiceId) => {
      const paymentIds: string[] = [];
      for (let i = 0; i < 3; i++) paymentIds.push(await create(fx, 'createPayment', paymentBody(), invoiceId));
      return { invoiceId, paymentIds };
    });
    fixturePaymentSets.set(fx, made);
  }
  return made;
}

/** The n-th `<object>.created` event of a bench workspace, as the stream consumer would draft it. */
export const eventDraft = (workspaceId: string, object: 'client' | 'project' | 'time_entry', n: number): EventDraft => {
  const id = `${{ client: 'cli_', project: 'prj_', time_entry: 'te_' }[object]}${String(n % 100).padStart(26, '0')}`;
  return {
    workspaceId,
    type: `${object}.created`,
    kind: object.toUpperCase(),
    objectId: id,
    createdAt: new Date().toISOString(),
    requestId: `bench-${n}`,
    object: { object, id, name: `Bench ${object} ${n}` },
    changeKey: `${object}#${n}#created`,
  } as EventDraft;
};

/** The fixture workspace's feed: 30 client events, appended with the event store (what the stream consumer calls) on first use. */
const fixtureFeeds = new WeakMap<Fixture, Promise<string[]>>();
function fixtureEvents(fx: Fixture): Promise<string[]> {
  let made = fixtureFeeds.get(fx);
  if (!made) {
    made = import('../../shared/events/store.ts').then(async ({ appendEvents }) =>
      (await appendEvents(fx.caller.workspaceId, Array.from({ length: 30 }, (_, n) => eventDraft(fx.caller.workspaceId, 'client', n)))).map((s) => s.event.id),
    );
    fixtureFeeds.set(fx, made);
  }
  return made;
}

/**
 * A webhook endpoint body. Its url names a public address, so the check resolves nothing (a
 * lookup of an IP literal answers at once); a deployed create resolves its host's name as well.
 */
const endpointBody = (n: number) => ({ url: `https://8.8.8.8/hooks/${n}`, enabled_events: ['client.created', 'client.updated'], description: `Bench endpoint ${n}` });

/** A request of `operation` on a fresh endpoint, made in a workspace of its own (a workspace holds at most 16). */
const onFreshEndpoint =
  (operation: Operation, rest: () => Pick<Request, 'body' | 'headers'> = () => ({})) =>
  async (fx: Fixture): Promise<Request> => {
    const own = ownWorkspace(fx);
    return { operation, id: await create(own, 'createWebhookEndpoint', endpointBody(next())), caller: own.caller, ...rest() };
  };

/** The workspace every scenario runs in: 30 clients, 30 projects of one, 30 time entries on one project. */
export async function createFixture(repoRoot: string, caller: Caller): Promise<Fixture> {
  const partial = { repoRoot, caller } as Fixture;
  const clients: string[] = [];
  for (let i = 0; i < 30; i++) clients.push(await freshClient(partial));
  const fx: Fixture = { ...partial, clientId: clients[0]!, projectId: '', entryId: '' };
  const projects: string[] = [];
  for (let i = 0; i < 30; i++) projects.push(await freshProject(fx));
  fx.projectId = projects[0]!;
  const entries: string[] = [];
  for (let i = 0; i < 30; i++) entries.push(await freshEntry(fx, { project_id: fx.projectId }));
  fx.entryId = entries[0]!;
  return fx;
}

export const SCENARIOS: readonly Scenario[] = [
  // ---- clients
  {
    key: 'createClient',
    operation: 'createClient',
    label: 'create client',
    primary: true,
    prepare: async () => ({ operation: 'createClient', body: clientBody(next()) }),
    floor: fixed(0, 2, 'create client', '2 WCU'),
  },
  {
    key: 'createClient+idempotency',
    operation: 'createClient',
    label: 'create client, Idempotency-Key',
    prepare: async () => ({ operation: 'createClient', body: clientBody(next()), headers: { 'Idempotency-Key': randomUUID() } }),
    // One transaction: the client's Put (2) and GSI1 (1), and the record's Put (2).
    floor: keyed(0, 5, 'create client'),
  },
  {
    key: 'retrieveClient',
    operation: 'retrieveClient',
    label: 'retrieve client',
    primary: true,
    prepare: async (fx) => ({ operation: 'retrieveClient', id: fx.clientId }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateClient',
    operation: 'updateClient',
    label: 'update client, status unchanged',
    primary: true,
    // A fresh client each time: a floor's captured update holds its own timestamp in its condition.
    prepare: async (fx) => ({ operation: 'updateClient', id: await freshClient(fx), body: { website: `https://bench.test/${next()}` } }),
    floor: fixed(0, 2, 'update client', '2–3 WCU'),
  },
  {
    key: 'updateClient+status',
    operation: 'updateClient',
    label: 'update client, status changed',
    prepare: async (fx) => ({ operation: 'updateClient', id: await freshClient(fx, { status: 'LEAD' }), body: { status: 'ACTIVE' } }),
    floor: fixed(0, 3, 'update client', '2–3 WCU'),
  },
  {
    key: 'updateClient+idempotency',
    operation: 'updateClient',
    label: 'update client, Idempotency-Key',
    prepare: async (fx) => ({ operation: 'updateClient', id: await freshClient(fx), body: { website: `https://bench.test/${next()}` }, headers: { 'Idempotency-Key': randomUUID() } }),
    // The item read (the record holds the reply), then one transaction: Update 2 + GSI1 1, the record's Put 2.
    floor: keyed(1, 5, 'update client'),
  },
  {
    key: 'deleteClient',
    operation: 'deleteClient',
    label: 'delete client',
    primary: true,
    prepare: async (fx) => ({ operation: 'deleteClient', id: await freshClient(fx) }),
    floor: fixed(0, 5, 'delete client', '5 WCU'),
  },
  {
    key: 'deleteClient+idempotency',
    operation: 'deleteClient',
    label: 'delete client, Idempotency-Key',
    prepare: async (fx) => ({ operation: 'deleteClient', id: await freshClient(fx), headers: { 'Idempotency-Key': randomUUID() } }),
    floor: keyed(0, 7, 'delete client'),
  },
  {
    key: 'listClients',
    operation: 'listClients',
    label: 'list clients, limit 25',
    primary: true,
    prepare: async () => ({ operation: 'listClients', query: { limit: '25' } }),
    floor: items(`${DOC}: list, unfiltered`),
  },
  {
    // The same page as CSV (contract, "CSV and bulk import"): the same reads as the JSON page.
    key: 'listClients+csv',
    operation: 'listClients',
    label: 'list clients, limit 25, as CSV',
    prepare: async () => ({ operation: 'listClients', query: { limit: '25' }, headers: { Accept: 'text/csv' } }),
    floor: items(`${DOC}: list, unfiltered`),
  },
  {
    key: 'listClients+status',
    operation: 'listClients',
    label: 'list clients by status (GSI1), limit 25',
    prepare: async () => ({ operation: 'listClients', query: { limit: '25', status: 'ACTIVE' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listClients+search',
    operation: 'listClients',
    label: 'search clients (every item matches), limit 25',
    prepare: async () => ({ operation: 'listClients', query: { limit: '25', search: 'bench client' } }),
    floor: items(`${DOC}: search`),
  },
  // ---- projects
  {
    key: 'createProject',
    operation: 'createProject',
    label: 'create project',
    primary: true,
    prepare: async (fx) => ({ operation: 'createProject', body: projectBody(next(), fx.clientId) }),
    floor: fixed(0, 7, 'create project', '7 WCU'),
  },
  {
    key: 'createProject+idempotency',
    operation: 'createProject',
    label: 'create project, Idempotency-Key',
    prepare: async (fx) => ({ operation: 'createProject', body: projectBody(next(), fx.clientId), headers: { 'Idempotency-Key': randomUUID() } }),
    floor: keyed(0, 9, 'create project'),
  },
  {
    key: 'retrieveProject',
    operation: 'retrieveProject',
    label: 'retrieve project',
    primary: true,
    prepare: async (fx) => ({ operation: 'retrieveProject', id: fx.projectId }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateProject',
    operation: 'updateProject',
    label: 'update project, status unchanged',
    primary: true,
    prepare: async (fx) => ({ operation: 'updateProject', id: await freshProject(fx), body: { description: `Scope ${next()}` } }),
    floor: fixed(0, 4, 'update project', '4–6 WCU'),
  },
  {
    key: 'updateProject+status',
    operation: 'updateProject',
    label: 'update project, status changed',
    prepare: async (fx) => ({ operation: 'updateProject', id: await freshProject(fx), body: { status: 'ON_HOLD' } }),
    floor: fixed(0, 6, 'update project', '4–6 WCU'),
  },
  {
    key: 'updateProject+idempotency',
    operation: 'updateProject',
    label: 'update project, Idempotency-Key',
    prepare: async (fx) => ({ operation: 'updateProject', id: await freshProject(fx), body: { description: `Scope ${next()}` }, headers: { 'Idempotency-Key': randomUUID() } }),
    // The item read, then one transaction: Update 2 + one write per index 3, the record's Put 2.
    floor: keyed(1, 7, 'update project'),
  },
  {
    key: 'deleteProject',
    operation: 'deleteProject',
    label: 'delete project',
    primary: true,
    prepare: async (fx) => ({ operation: 'deleteProject', id: await freshProject(fx) }),
    floor: fixed(1, 9, 'delete project', '1 RCU + 9 WCU'),
  },
  {
    key: 'listProjects',
    operation: 'listProjects',
    label: 'list projects, limit 25',
    primary: true,
    prepare: async () => ({ operation: 'listProjects', query: { limit: '25' } }),
    floor: items(`${DOC}: list, unfiltered`),
  },
  {
    key: 'listProjects+status',
    operation: 'listProjects',
    label: 'list projects by status (GSI1), limit 25',
    prepare: async () => ({ operation: 'listProjects', query: { limit: '25', status: 'ACTIVE' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listProjects+client',
    operation: 'listProjects',
    label: 'list projects of a client (GSI2), limit 25',
    prepare: async (fx) => ({ operation: 'listProjects', query: { limit: '25', client_id: fx.clientId } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listProjects+client+status',
    operation: 'listProjects',
    label: 'list projects of a client by status (GSI5), limit 25',
    prepare: async (fx) => ({ operation: 'listProjects', query: { limit: '25', client_id: fx.clientId, status: 'ACTIVE' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listProjects+search',
    operation: 'listProjects',
    label: 'search projects (every item matches), limit 25',
    prepare: async () => ({ operation: 'listProjects', query: { limit: '25', search: 'bench project' } }),
    floor: items(`${DOC}: search`),
  },
  // ---- time entries
  {
    key: 'logTimeEntry',
    operation: 'logTimeEntry',
    label: 'log time entry on a project',
    primary: true,
    prepare: async (fx) => ({ operation: 'logTimeEntry', body: entryBody(next(), { project_id: fx.projectId }) }),
    floor: fixed(1, 13, 'log time entry on a project', '1 RCU + 13 WCU'),
  },
  {
    key: 'logTimeEntry+idempotency',
    operation: 'logTimeEntry',
    label: 'log time entry on a project, Idempotency-Key',
    prepare: async (fx) => ({ operation: 'logTimeEntry', body: entryBody(next(), { project_id: fx.projectId }), headers: { 'Idempotency-Key': randomUUID() } }),
    // Its transaction (1 RCU + 13 WCU) with the record's Put in it: 2 WCU more.
    floor: keyed(1, 15, 'log time entry on a project'),
  },
  {
    key: 'logTimeEntry+client',
    operation: 'logTimeEntry',
    label: 'log time entry on a client',
    prepare: async (fx) => ({ operation: 'logTimeEntry', body: entryBody(next(), { client_id: fx.clientId }) }),
    floor: fixed(0, 10, 'log time entry on a client', '10 WCU'),
  },
  // ---- bulk import (decision 0032): per entry at most a log's units; entries of one project and day share its counters and totals
  ...[1, 10, 100].map((n): Scenario => ({
    key: `logTimeEntryBatch+${n}`,
    operation: 'logTimeEntryBatch',
    label: `log ${n} time ${n === 1 ? 'entry' : 'entries'} in a batch, one project, one day`,
    ...(n === 1 ? { primary: true } : {}),
    prepare: async (fx) => ({ operation: 'logTimeEntryBatch', body: { entries: Array.from({ length: n }, () => entryBody(next(), { project_id: fx.projectId })) } }),
    // The project read (BatchGetItem); per part one transaction: each entry's Put 2 + GSI1-3 1 each, the project's and
    // the client's counters 2 each, the two totals items 2 each. 100 entries take two parts (94 + 6: 98 items a part).
    floor: fixed(1, 5 * n + 8 * Math.ceil((n + 4) / 98), '', '', `${BATCH_DECISION} (${n === 1 ? "a log's units" : 'entries sharing the counters and totals'})`),
  })),
  {
    key: 'retrieveTimeEntry',
    operation: 'retrieveTimeEntry',
    label: 'retrieve time entry',
    primary: true,
    prepare: async (fx) => ({ operation: 'retrieveTimeEntry', id: fx.entryId }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateTimeEntry',
    operation: 'updateTimeEntry',
    label: 'update time entry, duration',
    primary: true,
    // A fresh entry each time, as for the other updates.
    prepare: async (fx) => ({ operation: 'updateTimeEntry', id: await freshEntry(fx, { project_id: fx.projectId }), body: { duration_minutes: 15 } }),
    floor: fixed(1, 9, 'update time entry', '1 RCU + 5–16 WCU'),
  },
  {
    key: 'updateTimeEntry+started_at',
    operation: 'updateTimeEntry',
    label: 'update time entry, started_at (every index key moves)',
    prepare: async (fx) => ({ operation: 'updateTimeEntry', id: await freshEntry(fx, { project_id: fx.projectId }), body: { started_at: '2026-11-21T10:00:00Z' } }),
    floor: fixed(1, 16, 'update time entry', '1 RCU + 5–16 WCU'),
  },
  {
    key: 'updateTimeEntry+move',
    operation: 'updateTimeEntry',
    label: 'move time entry to a project of its client',
    prepare: async (fx) => ({ operation: 'updateTimeEntry', id: await freshEntry(fx, { project_id: fx.projectId }), body: { project_id: await freshProject(fx) } }),
    floor: fixed(2, 14, 'move time entry', '1–2 RCU + 12–23 WCU'),
  },
  {
    key: 'updateTimeEntry+move+client',
    operation: 'updateTimeEntry',
    label: 'move time entry to a project of another client',
    prepare: async (fx) => {
      const other = await freshClient(fx);
      const to = await create(fx, 'createProject', projectBody(next(), other));
      return { operation: 'updateTimeEntry', id: await freshEntry(fx, { project_id: fx.projectId }), body: { project_id: to } };
    },
    floor: fixed(2, 23, 'move time entry', '1–2 RCU + 12–23 WCU'),
  },
  {
    key: 'updateTimeEntry+idempotency',
    operation: 'updateTimeEntry',
    label: 'update time entry, Idempotency-Key',
    prepare: async (fx) => ({
      operation: 'updateTimeEntry',
      id: await freshEntry(fx, { project_id: fx.projectId }),
      body: { duration_minutes: 15 },
      headers: { 'Idempotency-Key': randomUUID() },
    }),
    // The item read, then one transaction: Update 2 + one write per index 3, two totals items 4, the record's Put 2.
    floor: keyed(1, 11, 'update time entry'),
  },
  {
    key: 'deleteTimeEntry',
    operation: 'deleteTimeEntry',
    label: 'delete time entry of a project',
    primary: true,
    prepare: async (fx) => ({ operation: 'deleteTimeEntry', id: await freshEntry(fx, { project_id: fx.projectId }) }),
    floor: fixed(1, 15, 'delete time entry', '1 RCU + 12–15 WCU'),
  },
  {
    key: 'deleteTimeEntry+client',
    operation: 'deleteTimeEntry',
    label: 'delete time entry of a client only',
    prepare: async (fx) => ({ operation: 'deleteTimeEntry', id: await freshEntry(fx, { client_id: fx.clientId }) }),
    floor: fixed(1, 12, 'delete time entry', '1 RCU + 12–15 WCU'),
  },
  {
    key: 'listTimeSummaries',
    operation: 'listTimeSummaries',
    label: "a client's month by project (the README's summary), limit 25",
    primary: true,
    prepare: async (fx) => ({ operation: 'listTimeSummaries', query: { from: '2026-11-01', to: '2026-12-01', group_by: 'project', client_id: fx.clientId, limit: '25' } }),
    // A fresh client's month: a cold function reads its currency (a GetItem), which a warm one has in memory.
    coldPrepare: async (fx) => ({ operation: 'listTimeSummaries', query: { from: '2026-11-01', to: '2026-12-01', group_by: 'project', client_id: await freshTime(fx), limit: '25' } }),
    // The totals' day items it reads (and, once per function, a client's currency: a GetItem).
    floor: items(`${DOC}: time summary page`),
  },
  {
    key: 'listTimeEntries',
    operation: 'listTimeEntries',
    label: 'list time entries (GSI1), limit 25',
    primary: true,
    prepare: async () => ({ operation: 'listTimeEntries', query: { limit: '25' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listTimeEntries+csv',
    operation: 'listTimeEntries',
    label: 'list time entries (GSI1), limit 25, as CSV',
    prepare: async () => ({ operation: 'listTimeEntries', query: { limit: '25' }, headers: { Accept: 'text/csv' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listTimeEntries+range',
    operation: 'listTimeEntries',
    label: 'list time entries of a month (GSI1), limit 25',
    prepare: async () => ({ operation: 'listTimeEntries', query: { limit: '25', started_from: '2026-11-01T00:00:00Z', started_to: '2026-12-01T00:00:00Z' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listTimeEntries+project',
    operation: 'listTimeEntries',
    label: 'list time entries of a project (GSI2), limit 25',
    prepare: async (fx) => ({ operation: 'listTimeEntries', query: { limit: '25', project_id: fx.projectId } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listTimeEntries+client',
    operation: 'listTimeEntries',
    label: 'list time entries of a client (GSI3), limit 25',
    prepare: async (fx) => ({ operation: 'listTimeEntries', query: { limit: '25', client_id: fx.clientId } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  {
    key: 'listTimeEntries+project+client',
    operation: 'listTimeEntries',
    label: 'list time entries of a project and client (GSI2 + the project read), limit 25',
    prepare: async (fx) => ({ operation: 'listTimeEntries', query: { limit: '25', project_id: fx.projectId, client_id: fx.clientId } }),
    floor: items(`${DOC}: list via a GSI, after a GetItem of the project (access pattern 10a)`, 1),
  },
  // ---- invoices (docs/decisions/0023-invoices.md: its "Units" are their floors; section 10 measures a create of 100 and 2,000 entries)
  {
    key: 'createInvoice',
    operation: 'createInvoice',
    unitsInSection10: true,
    label: 'create invoice of one entry on a project',
    primary: true,
    prepare: async (fx) => ({ operation: 'createInvoice', body: invoiceBody(await freshTime(fx)) }),
    // Reads: the client 1, the project's name 1, the client's entries in the range 0.5 (GSI3). The draft's
    // transaction 9 (invoice 2 + GSI1, GSI2, GSI5 3, client counter 2, plan 2); the batch: entry 2 + GSI1-4 4,
    // invoice 2 + GSI1, GSI2, GSI5 3, two invoiced totals items 4.
    floor: fixed(2.5, 24, '', '', `${DECISION_0023} (create, one entry)`),
  },
  {
    key: 'retrieveInvoice',
    operation: 'retrieveInvoice',
    label: 'retrieve invoice',
    primary: true,
    prepare: async (fx) => ({ operation: 'retrieveInvoice', id: await fixtureInvoice(fx) }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'retrieveInvoiceDocument',
    operation: 'retrieveInvoiceDocument',
    label: "a finalized invoice's PDF (one line)",
    primary: true,
    warmInSection12: true,
    prepare: async (fx) => ({ operation: 'retrieveInvoiceDocument', id: await fixtureOpenInvoice(fx) }),
    // The invoice alone: a finalized one holds its issuer and recipient.
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateInvoice',
    operation: 'updateInvoice',
    unitsInSection10: true,
    label: 'update invoice (a draft\'s memo)',
    primary: true,
    prepare: async (fx) => ({ operation: 'updateInvoice', id: await freshInvoice(fx, 'draft'), body: { memo: `Memo ${next()}` } }),
    // The read, then the invoice and its three index items: 4S WCU at S = 1.
    floor: fixed(1, 4, '', '', `${DECISION_0023} (PATCH)`),
  },
  {
    key: 'finalizeInvoice',
    operation: 'finalizeInvoice',
    unitsInSection10: true,
    label: 'finalize invoice',
    primary: true,
    prepare: async (fx) => {
      const own = ownWorkspace(fx);
      return { operation: 'finalizeInvoice', id: await freshInvoice(own, 'draft'), caller: own.caller };
    },
    // The invoice, the counter, the business profile and the client read (the last two frozen on it as issuer and
    // recipient); invoice 2 + GSI1, GSI5 2 each (keys move) + GSI2 1, counter 2.
    floor: fixed(4, 9, '', '', `${DECISION_0023} (finalize)`),
  },
  {
    key: 'payInvoice',
    operation: 'payInvoice',
    unitsInSection10: true,
    label: 'pay invoice',
    primary: true,
    prepare: async (fx) => ({ operation: 'payInvoice', id: await freshInvoice(fx, 'open') }),
    floor: fixed(1, 6, '', '', `${DECISION_0023} (pay: 6S)`),
  },
  {
    key: 'voidInvoice',
    operation: 'voidInvoice',
    unitsInSection10: true,
    label: 'void invoice of one entry',
    primary: true,
    prepare: async (fx) => ({ operation: 'voidInvoice', id: await freshInvoice(fx, 'open') }),
    // The read; the void as a finalize without the counter 7; the release batch: entry 6, invoice 2S, two totals items 4.
    floor: fixed(1, 19, '', '', `${DECISION_0023} (void, one entry)`),
  },
  {
    key: 'deleteInvoice',
    operation: 'deleteInvoice',
    unitsInSection10: true,
    label: 'delete invoice (a draft of one entry)',
    primary: true,
    prepare: async (fx) => ({ operation: 'deleteInvoice', id: await freshInvoice(fx, 'draft') }),
    // The read; the work set 2; the release batch as a void's 12; the delete: invoice 2 + GSI1, GSI2, GSI5 3, client counter 2, plan 2, deletion record 2.
    floor: fixed(1, 25, '', '', `${DECISION_0023} (delete, one entry)`),
  },
  {
    key: 'listInvoices',
    operation: 'listInvoices',
    label: 'list invoices, limit 25',
    primary: true,
    prepare: async (fx) => (await fixtureInvoice(fx), { operation: 'listInvoices', query: { limit: '25' } }),
    floor: items(`${DOC}: list, unfiltered`),
  },
  {
    key: 'listInvoices+client+status',
    operation: 'listInvoices',
    label: 'list invoices of a client by status (GSI5), limit 25',
    prepare: async (fx) => ({ operation: 'listInvoices', query: { limit: '25', client_id: await fixtureInvoiceClient(fx), status: 'draft' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  // ---- an invoice's payments (decision 0030; section 10 measures a record, a delete and a page at 10 and 100 payments)
  {
    key: 'createPayment',
    operation: 'createPayment',
    unitsInSection10: true,
    label: 'record a payment (part of the balance)',
    primary: true,
    prepare: async (fx) => ({ operation: 'createPayment', id: await freshInvoice(fx, 'open'), body: paymentBody() }),
    // The invoice read; one transaction: the payment's Put 2 + GSI2 1, the invoice's Update 2 per KB (S = 2: an invoice
    // of one entry is about 1.2 KB) + GSI1, GSI2, GSI5 1 each (its status unchanged).
    floor: fixed(1, 10, '', '', `${DOC} (record a payment, S = 2)`),
  },
  {
    key: 'retrievePayment',
    operation: 'retrievePayment',
    label: 'retrieve payment',
    primary: true,
    prepare: async (fx) => {
      const { invoiceId, paymentIds } = await fixturePayments(fx);
      return { operation: 'retrievePayment', id: invoiceId, childId: paymentIds[0]! };
    },
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'deletePayment',
    operation: 'deletePayment',
    unitsInSection10: true,
    label: 'delete payment',
    primary: true,
    prepare: async (fx) => {
      const id = await freshInvoice(fx, 'open');
      return { operation: 'deletePayment', id, childId: await create(fx, 'createPayment', paymentBody(), id) };
    },
    // The payment and the invoice read; one transaction: its Delete 2 + GSI2 1, its deletion record 2, the invoice's
    // Update as a record's (S = 2, its status unchanged: 7).
    floor: fixed(2, 12, '', '', `${DOC} (delete a payment, S = 2)`),
  },
  {
    key: 'listPayments',
    operation: 'listPayments',
    label: "list an invoice's payments (GSI2), limit 25",
    primary: true,
    prepare: async (fx) => ({ operation: 'listPayments', id: (await fixturePayments(fx)).invoiceId, query: { limit: '25' } }),
    floor: items(`${DOC}: list via a GSI`),
  },
  // ---- the business profile (one per workspace; decision 0030's default_taxes)
  {
    key: 'retrieveBusinessProfile',
    operation: 'retrieveBusinessProfile',
    label: 'retrieve the business profile',
    primary: true,
    prepare: async () => ({ operation: 'retrieveBusinessProfile' }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateBusinessProfile',
    operation: 'updateBusinessProfile',
    label: "update the business profile's name",
    primary: true,
    // A workspace of its own each time: the change is conditional on the version its request reads.
    prepare: async (fx) => ({ operation: 'updateBusinessProfile', body: { company_name: `Studio ${next()}` }, caller: ownWorkspace(fx).caller }),
    // The read (none stored yet: its first change); its Put on condition that it is absent, under 1 KB: 2 in a transaction.
    floor: fixed(1, 2, '', '', `${DOC} (change the business profile)`),
  },
  // ---- the event feed
  {
    key: 'listEvents',
    operation: 'listEvents',
    label: 'list events, every collection readable, limit 25',
    primary: true,
    prepare: async (fx) => (await fixtureEvents(fx), { operation: 'listEvents', query: { limit: '25' } }),
    floor: items(`${DOC}: list, unfiltered (the feed's Query, strongly consistent)`),
  },
  {
    key: 'retrieveEvent',
    operation: 'retrieveEvent',
    label: 'retrieve event',
    primary: true,
    prepare: async (fx) => ({ operation: 'retrieveEvent', id: (await fixtureEvents(fx))[0]! }),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  // ---- webhook endpoints
  {
    key: 'createWebhookEndpoint',
    operation: 'createWebhookEndpoint',
    label: 'create webhook endpoint',
    primary: true,
    prepare: async (fx) => {
      const own = ownWorkspace(fx);
      return { operation: 'createWebhookEndpoint', body: endpointBody(next()), caller: own.caller };
    },
    floor: fixed(0, 4, 'create webhook endpoint', '4 WCU'),
  },
  {
    key: 'retrieveWebhookEndpoint',
    operation: 'retrieveWebhookEndpoint',
    label: 'retrieve webhook endpoint',
    primary: true,
    prepare: onFreshEndpoint('retrieveWebhookEndpoint'),
    floor: fixed(1, 0, 'retrieve (any)', '1 RCU'),
  },
  {
    key: 'updateWebhookEndpoint',
    operation: 'updateWebhookEndpoint',
    label: 'update webhook endpoint (its description)',
    primary: true,
    prepare: onFreshEndpoint('updateWebhookEndpoint', () => ({ body: { description: `Renamed ${next()}` } })),
    floor: fixed(1, 1, 'update webhook endpoint', '1 RCU + 1 WCU'),
  },
  {
    key: 'updateWebhookEndpoint+idempotency',
    operation: 'updateWebhookEndpoint',
    label: 'update webhook endpoint, Idempotency-Key',
    prepare: onFreshEndpoint('updateWebhookEndpoint', () => ({ body: { description: `Renamed ${next()}` }, headers: { 'Idempotency-Key': randomUUID() } })),
    // The record read (a replay's reply) and the endpoint's (its enabled_events), then one transaction: Update 2, the record's Put 2.
    floor: keyed(2, 4, 'update webhook endpoint'),
  },
  {
    key: 'deleteWebhookEndpoint',
    operation: 'deleteWebhookEndpoint',
    label: 'delete webhook endpoint',
    primary: true,
    prepare: onFreshEndpoint('deleteWebhookEndpoint'),
    floor: fixed(0, 4, 'delete webhook endpoint', '4 WCU'),
  },
  {
    key: 'listWebhookEndpoints',
    operation: 'listWebhookEndpoints',
    label: 'list webhook endpoints, limit 25',
    primary: true,
    prepare: async (fx) => {
      const own = ownWorkspace(fx);
      for (let i = 0; i < 3; i++) await create(own, 'createWebhookEndpoint', endpointBody(next()));
      return { operation: 'listWebhookEndpoints', query: { limit: '25' }, caller: own.caller };
    },
    floor: items(`${DOC}: list, unfiltered`),
  },
];

/** The authorizer's floor: one eventually consistent GetItem of the registry. */
export const AUTHORIZER_FLOOR = fixed(0.5, 0, 'authorizer (policy not cached)', '≤ 0.5 RCU');

export const primaryScenario = (operation: string) => SCENARIOS.find((s) => s.operation === operation && s.primary);

/**
 * Checks the transcribed floors against docs/data-model.md: a changed row there must be changed
 * here too. Returns the mismatches (printed as warnings).
 */
export function checkFloorsAgainstDoc(repoRoot: string): string[] {
  const doc = readFileSync(join(repoRoot, DOC), 'utf8');
  const problems: string[] = [];
  const floors = [...SCENARIOS.map((s) => s.floor), AUTHORIZER_FLOOR];
  for (const floor of floors) {
    if (floor.kind !== 'fixed' || !floor.docRow) continue;
    const line = doc.split('\n').find((l) => l.startsWith(`| ${floor.docRow!.row} |`));
    const total = line?.split('|').at(-2)?.trim();
    if (total !== floor.docRow.total) {
      problems.push(`${DOC} row "${floor.docRow.row}" says "${total ?? '(missing)'}", the benchmark's floor assumes "${floor.docRow.total}"`);
    }
  }
  return [...new Set(problems)];
}

// ---- DynamoDB item sizes (for the floors of list pages)

/** An item's size as DynamoDB counts it: attribute names plus values (numbers ≈ 1 byte per 2 digits + 1). */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueSize(v), 0);
  if (value instanceof Set) return [...value].reduce((sum: number, v) => sum + valueSize(v), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  }
  return 0;
}
