/**
 * Time entries: logged against a project (whose client they then belong to) or a client.
 * Logging or deleting one adjusts the counters of its project and client in the same
 * transaction (shared/domain/entity.ts), which is what guards their deletes.
 *
 * Their own rules, here: the project's client (a log or a move to a project takes its client),
 * and the move. Every PATCH is one transaction at the version read: the entry's change, its
 * totals (shared/totals/totals.ts), and for a move -1 on the
 * project and client it leaves, +1 on those it joins (conditioned on existing, the project on
 * belonging to the client). A project or client deleted meanwhile cancels it all: 400 naming the
 * field, nothing changed; one being deleted waits on its counter, which the move holds.
 */
import * as v from 'valibot';
import { ApiError, ERROR_TYPES, invalidParam, notFound, preconditionFailed, serviceUnavailable, RETRY_AFTER_SECONDS } from '../core/errors.ts';
import { isWellFormedId } from '../core/ids.ts';
import * as keys from '../data/keys.ts';
import { storedTimeEntry, storedTimeEntryOfItem } from '../data/stored-time-entries.ts';
import { DATA_ATTRIBUTE, INDEX_NAMES, REQUEST_ID_ATTRIBUTE, sortKeyOf, VERSION_ATTRIBUTE } from '../data/table.ts';
import { changeExpression } from '../data/update.ts';
import { allOf, atVersion, counterUpdate, dataOfItem, exists, matchesVersion, transact, updatePart, versionOf, type TransactItem } from '../data/writes.ts';
import { objectOf, type TimeEntry } from '../model/objects.ts';
import { client, counterOf, NOT_INVOICED, project, timeEntry, type timeEntrySchemas } from '../model/resources.ts';
import type { CallerContext, Deleted, IfMatch, Versioned } from './context.ts';
import { create, list, readItem, recordPart, refuseIfRecordTaken, removeAsRead, answerUnchanged, currentAt, unknownReference } from './entity.ts';
import { COUNTED_ATTRIBUTE, totalsParts, type CountedEntry } from '../totals/totals.ts';
import { oneOfRequiredMessage } from '../model/cross-field.ts';
import type { ListEnvelope } from '../data/paging.ts';

type Patch = v.InferOutput<typeof timeEntrySchemas.update>;
type Query = v.InferOutput<typeof timeEntrySchemas.listQuery>;

/** What an entry takes from its project: its client, and its rate (the entry's rate unless sent). */
interface ProjectTerms {
  client_id: string;
  hourly_rate: number | null;
}

/** The terms of a project named by a reference field, or the 400 naming that field. */
async function termsOfProject(ctx: CallerContext, projectId: string): Promise<ProjectTerms> {
  const item = await readItem(ctx, project, projectId);
  if (!item) throw unknownReference('project_id', project);
  const { client_id, hourly_rate } = objectOf(project, item);
  return { client_id, hourly_rate };
}

export const notTheProjectClient = (projectId: string, projectClient: string, hint: string) =>
  invalidParam('client_id', `client_id must be the client of project ${projectId} (${projectClient})${hint}`);

export async function logTimeEntry(ctx: CallerContext, input: v.InferOutput<typeof timeEntrySchemas.create>, now = new Date()): Promise<Versioned<TimeEntry>> {
  const projectId = input.project_id ?? null;
  let clientId = input.client_id;
  let rate: number | null = null;
  if (projectId !== null) {
    const terms = await termsOfProject(ctx, projectId);
    if (clientId !== undefined && clientId !== terms.client_id) throw notTheProjectClient(projectId, terms.client_id, ', or be omitted');
    clientId = terms.client_id;
    rate = terms.hourly_rate;
  }
  if (clientId === undefined) {
    throw invalidParam('project_id', oneOfRequiredMessage(timeEntry, timeEntry.createRequiresOneOf!));
  }
  const billableRate = input.billable_rate === undefined ? rate : input.billable_rate;
  // With a project, its client was read from it: a failure of either is the project's.
  return create(ctx, timeEntry, { ...input, project_id: projectId, client_id: clientId, billable_rate: billableRate }, now, {
    unknownReference: (field, target) => (projectId !== null ? unknownReference('project_id', project) : unknownReference(field, target)),
    // Counted in the totals in the same transaction (shared/totals/totals.ts).
    attributes: { [COUNTED_ATTRIBUTE]: 1 },
    parts: (data) => totalsParts(ctx.workspaceId, undefined, storedTimeEntry(data)),
  });
}

/** Where an entry belongs. */
interface Owners {
  project_id: string | null;
  client_id: string;
}

/**
 * Where the patch puts an entry that belongs to `current` (the contract's move rules), and the
 * rate a move to another project (or to none) gives it unless the patch sends one.
 */
async function ownersAfter(ctx: CallerContext, current: Owners, patch: Patch): Promise<Owners & { rate?: number | null }> {
  if (patch.project_id === undefined || patch.project_id === current.project_id) {
    const clientId = patch.client_id ?? current.client_id;
    if (current.project_id !== null && clientId !== current.client_id) {
      throw notTheProjectClient(current.project_id, current.client_id, ': move the entry to a project of that client, or set project_id to null');
    }
    return { project_id: current.project_id, client_id: clientId };
  }
  if (patch.project_id === null) return { project_id: null, client_id: patch.client_id ?? current.client_id, rate: null };
  const terms = await termsOfProject(ctx, patch.project_id);
  if (patch.client_id !== undefined && patch.client_id !== terms.client_id) throw notTheProjectClient(patch.project_id, terms.client_id, ', or be omitted');
  return { project_id: patch.project_id, client_id: terms.client_id, rate: terms.hourly_rate };
}

/**
 * Changes the fields sent: the entry and its totals in one transaction at the version read. A
 * change of `started_at` moves the entry in every list at once (each index's sort key holds it);
 * a change of project or client is a move (see the module's comment).
 */
export async function updateTimeEntry(ctx: CallerContext, id: string, patch: Patch, expectedVersion?: IfMatch, now = new Date()): Promise<Versioned<TimeEntry>> {
  if (!isWellFormedId(timeEntry.idPrefix, id)) throw notFound(timeEntry.noun, id);
  if (Object.keys(patch).length === 0) {
    const current = await currentAt(ctx, timeEntry, id, expectedVersion);
    refuseIfInvoiced(id, current.resource.invoice_id);
    return answerUnchanged(ctx, current);
  }
  const { project_id: _project, client_id: _client, ...fields } = patch;
  // A rewrite races other changes of the entry: it retries on the entry's new version, which
  // another writer's landed change made (so contention always progresses); the cap guards a runaway.
  for (let attempt = 0; attempt < MAX_MOVE_ATTEMPTS; attempt++) {
    const item = await readItem(ctx, timeEntry, id);
    if (!item) throw notFound(timeEntry.noun, id);
    const version = versionOf(item);
    if (!matchesVersion(expectedVersion, version)) throw preconditionFailed(timeEntry.noun, id);
    const entry = storedTimeEntryOfItem(item);
    refuseIfInvoiced(id, entry.invoice_id);
    const current = { project_id: entry.project_id, client_id: entry.client_id };
    const { rate, ...after } = await ownersAfter(ctx, current, patch);
    const change = { ...(rate === undefined ? {} : { billable_rate: rate }), ...fields, ...after };
    const rewritten = await rewrite(ctx, id, item, change, current, after, now);
    if (rewritten) return rewritten;
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'The time entry is being changed by other requests: retry after the time in Retry-After');
}

/**
 * Deletes the entry, uncounted from its project, its client and its totals in one transaction at
 * the version read (the totals' parts come from it); a change since reads it again.
 */
export async function deleteTimeEntry(ctx: CallerContext, id: string, expectedVersion?: IfMatch): Promise<Deleted> {
  if (!isWellFormedId(timeEntry.idPrefix, id)) throw notFound(timeEntry.noun, id);
  for (let attempt = 0; attempt < MAX_MOVE_ATTEMPTS; attempt++) {
    const item = await readItem(ctx, timeEntry, id);
    if (!item) throw notFound(timeEntry.noun, id);
    if (!matchesVersion(expectedVersion, versionOf(item))) throw preconditionFailed(timeEntry.noun, id);
    refuseIfInvoiced(id, storedTimeEntryOfItem(item).invoice_id);
    const parts = totalsParts(ctx.workspaceId, countedBefore(item), undefined);
    const deleted = await removeAsRead(ctx, timeEntry, id, expectedVersion, { read: item, parts, atVersionRead: true, condition: NOT_INVOICED });
    if (deleted) return deleted;
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'The time entry is being changed by other requests: retry after the time in Retry-After');
}

/**
 * An entry on an invoice is locked (contract, "Invoices"): its PATCH and DELETE are a 409 that
 * changes nothing. Their writes also hold NOT_INVOICED, so a lock landing after the read cancels
 * them, and the entry read again answers this.
 */
function refuseIfInvoiced(id: string, invoiceId: unknown): void {
  if (invoiceId != null) {
    throw new ApiError('time_entry_invoiced', ERROR_TYPES.time_entry_invoiced, `Time entry ${id} is on invoice ${String(invoiceId)}: it cannot be changed or deleted until that invoice is voided (or, a draft, deleted)`);
  }
}

/** What an item counts in the totals now: nothing when it was stored before them and not yet backfilled. */
const countedBefore = (item: Record<string, unknown>): CountedEntry | undefined =>
  item[COUNTED_ATTRIBUTE] === undefined ? undefined : storedTimeEntryOfItem(item);

const MAX_MOVE_ATTEMPTS = 20;
const ENTRY = 'entry';
type Part = 'entry' | 'leave_project' | 'join_project' | 'leave_client' | 'join_client';

/**
 * The rewrite's transaction: the entry, its totals, and for a move the counters of what it leaves
 * and joins; undefined when the entry changed since it was read (the caller retries).
 */
async function rewrite(
  ctx: CallerContext,
  id: string,
  item: Record<string, unknown>,
  change: Record<string, unknown>,
  from: Owners,
  to: Owners,
  requested: Date,
): Promise<Versioned<TimeEntry> | undefined> {
  const stored = dataOfItem(item);
  // updated_at moves forward, also past a stored time from a faster clock.
  const at = new Date(Math.max(requested.getTime(), Date.parse(String(stored.updated_at)) + 1)).toISOString();
  const data = { ...stored, ...change, updated_at: at };
  const version = versionOf(item);
  const counter = counterOf(timeEntry);
  const ownerKey = (type: string, ownerId: string) => keys.item(ctx.workspaceId, type, ownerId);
  const parts: Partial<Record<Part, TransactItem>> = { [ENTRY]: entryUpdate(ctx, id, item, data, version) };
  const totals = totalsParts(ctx.workspaceId, countedBefore(item), storedTimeEntry(data));
  if (from.project_id !== to.project_id) {
    if (from.project_id !== null) parts.leave_project = counterUpdate(ownerKey(project.type, from.project_id), counter, -1);
    if (to.project_id !== null) {
      if (!isWellFormedId(project.idPrefix, to.project_id)) throw unknownReference('project_id', project);
      parts.join_project = counterUpdate(ownerKey(project.type, to.project_id), counter, 1, {
        expression: '#data.#owner_client = :owner_client',
        names: { '#data': DATA_ATTRIBUTE, '#owner_client': 'client_id' },
        values: { ':owner_client': to.client_id },
      });
    }
  }
  if (from.client_id !== to.client_id) {
    if (!isWellFormedId(client.idPrefix, to.client_id)) throw unknownReference('client_id', client);
    parts.leave_client = counterUpdate(ownerKey(client.type, from.client_id), counter, -1);
    parts.join_client = counterUpdate(ownerKey(client.type, to.client_id), counter, 1);
  }
  const written = { ...item, [DATA_ATTRIBUTE]: data, [VERSION_ATTRIBUTE]: version + 1 };
  const moved = { resource: objectOf(timeEntry, written), version: version + 1 };
  // An Idempotency-Key's record rides in the move's own transaction, as in every write.
  const cancelled = await transact<string>({ ...(parts as Record<Part, TransactItem>), ...totals, ...recordPart(ctx, moved) });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (cancelled.failed(ENTRY)) return undefined;
    // A project's client never changes, so the project failed by being gone.
    if (cancelled.failed('join_project')) throw unknownReference('project_id', project);
    if (cancelled.failed('join_client')) throw unknownReference(to.project_id !== null ? 'project_id' : 'client_id', to.project_id !== null ? project : client);
    throw new Error(`time entry move cancelled: ${cancelled.codes.join(',')}`);
  }
  return moved;
}

/**
 * The entry's whole new state: its data, every index key it has now (those it no longer has are
 * removed: an entry without a project leaves the project index), on condition that it is still
 * at the version read.
 */
function entryUpdate(ctx: CallerContext, id: string, item: Record<string, unknown>, data: Record<string, unknown>, version: number): TransactItem {
  const indexes = keys.indexes(timeEntry, ctx.workspaceId, id, data);
  const gone = [...new Set(INDEX_NAMES.flatMap((name) => [`${name}PK`, sortKeyOf(name)]))].filter((name) => !(name in indexes) && name in item);
  const set = changeExpression({ fields: data, attributes: { ...indexes, [REQUEST_ID_ATTRIBUTE]: ctx.requestId, [COUNTED_ATTRIBUTE]: 1 } });
  const removeNames = Object.fromEntries(gone.map((name, i) => [`#gone${i}`, name]));
  return updatePart(
    keys.item(ctx.workspaceId, timeEntry.type, id),
    {
      expression: `${set.expression}, #version = :next${gone.length > 0 ? ` REMOVE ${Object.keys(removeNames).join(', ')}` : ''}`,
      names: { ...set.names, ...removeNames, '#version': VERSION_ATTRIBUTE },
      values: { ...set.values, ':next': version + 1 },
    },
    { condition: allOf(exists(), atVersion(version), NOT_INVOICED) },
  );
}

/**
 * Lists newest first by started_at. With both a project and a client, the project's index serves
 * it: its entries all belong to its client, so the client is read off the project (one item),
 * and a client that is not the project's makes the list empty. No read discards anything.
 */
export async function listTimeEntries(ctx: CallerContext, query: Query): Promise<ListEnvelope<TimeEntry>> {
  if (query.project_id === undefined || query.client_id === undefined) return list(ctx, timeEntry, query);
  const item = await readItem(ctx, project, query.project_id);
  const matches = item !== undefined && objectOf(project, item).client_id === query.client_id;
  return list(ctx, timeEntry, query, matches ? { implied: ['client_id'] } : { empty: true });
}
