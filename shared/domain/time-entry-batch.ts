/**
 * Bulk import (contract, "CSV and bulk import"; docs/decisions/0032-time-entry-batch.md): 1 to
 * LIMITS.batchEntries logs in one request, refused whole or made whole.
 *
 * - Every entry is checked before anything is written: the body's errors and the references that
 *   name nothing are one 400, by index (`entries[3].project_id`).
 * - The entries are written in parts, each one transaction of at most DynamoDB's 100 items: the
 *   entries, their project's and client's counters (+n, on condition that they exist and agree),
 *   their totals. So every entry written is whole, however the request ends. The first part holds
 *   an entry of every project and client it can (`guardsFirst`): once there, their counters keep
 *   them from being deleted until the batch is done.
 * - With an Idempotency-Key, a batch of several parts keeps its work (ids, time, parts done, a
 *   lease) in an item of its own, advanced in each part's transaction, and a marker at the key;
 *   the last part seals the record. A retry with the key after the lease takes the work over and
 *   writes exactly the parts not done; while the lease runs it is a 409 `idempotency_key_in_use`.
 */
import type * as v from 'valibot';
import { invalidRequest, keyInUse, type FieldError } from '../core/errors.ts';
import { isWellFormedId, newId } from '../core/ids.ts';
import { readItems } from '../data/batches.ts';
import * as keys from '../data/keys.ts';
import type { PrimaryKey } from '../data/keys.ts';
import { storedTimeEntry, type StoredTimeEntry } from '../data/stored-time-entries.ts';
import { TTL_ATTRIBUTE } from '../data/table.ts';
import { IDEMPOTENCY_TTL_SECONDS } from '../data/idempotency-records.ts';
import { absent, allOf, counterUpdate, deletePart, getItem, putPart, transact, updatePart, type Condition, type TransactItem } from '../data/writes.ts';
import { changeExpression } from '../data/update.ts';
import { dataOf, objectOf, type TimeEntry } from '../model/objects.ts';
import type { ParsedBatch } from '../model/parse.ts';
import { client, counterOf, project, timeEntry, type timeEntrySchemas } from '../model/resources.ts';
import { addEntry, COUNTED_ATTRIBUTE, deltaParts, placesOf, type TotalsDeltas } from '../totals/totals.ts';
import type { CallerContext, Made } from './context.ts';
import { consistencyCondition, newItem, refuseIfRecordTaken, unknownReference } from './entity.ts';
import { notTheProjectClient } from './time-entries.ts';

type CreateInput = v.InferOutput<typeof timeEntrySchemas.create>;

/**
 * Items of one part beside its work item and record: DynamoDB's 100 less those two. Tests that
 * kill a batch between parts make parts small (TIME_ENTRY_BATCH_PART_ITEMS).
 */
const PART_ITEMS = Math.min(98, Math.max(5, Number(process.env.TIME_ENTRY_BATCH_PART_ITEMS ?? 98)));
/** How long a batch's work is held: past the longest a request runs (API Gateway's 29 s). Tests shorten it. */
const LEASE_MS = Number(process.env.TIME_ENTRY_BATCH_LEASE_MS ?? 35_000);

/** An entry ready to write: its place in the batch, its item, and what its counters and totals read. */
interface Planned {
  index: number;
  item: Record<string, unknown>;
  entry: StoredTimeEntry;
}

/** A project or client the part counts entries on: its counter's update, and the entries naming it. */
interface Owner {
  key: PrimaryKey;
  field: 'project_id' | 'client_id';
  condition?: Condition;
  indexes: number[];
}

/** One transaction's share of the batch. */
interface Part {
  planned: Planned[];
  owners: Map<string, Owner>;
  totals: TotalsDeltas;
}

/** A batch's work, kept while it is written in several parts under an Idempotency-Key. */
interface Work {
  /** The work's own id: the request that started it (its marker names it). */
  id: string;
  ids: string[];
  at: string;
  parts: number;
  /** Parts written (each part's transaction advances it). */
  done: number;
  /** The request writing it now. */
  owner: string;
  lease_until: number;
}

/** Writes the batch, or refuses it whole; a keyed retry of a batch that died part-way finishes it. */
export async function logTimeEntryBatch(ctx: CallerContext, batch: ParsedBatch<CreateInput>, now = new Date()): Promise<Made> {
  if (ctx.record) {
    const stored = await ctx.record.lookup();
    if (stored) {
      const workId = ctx.record.pendingWork(stored);
      if (workId === undefined) throw ctx.record.taken(stored);
      return resume(ctx, batch, workId, now);
    }
  }
  const owned = await checked(ctx, batch);
  const at = now.toISOString();
  const planned = owned.map((input, index) => plannedEntry(ctx, input, newId(timeEntry.idPrefix, now), at, index));
  const parts = partsOf(ctx.workspaceId, planned);
  const work: Work | undefined =
    ctx.record && parts.length > 1
      ? { id: ctx.requestId, ids: planned.map((p) => p.entry.id), at, parts: parts.length, done: 0, owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS }
      : undefined;
  return writeParts(ctx, parts, work, []);
}

/** Takes over the work of a batch whose request died part-way (its lease past), and writes the parts it left. */
async function resume(ctx: CallerContext, batch: ParsedBatch<CreateInput>, workId: string, now: Date): Promise<Made> {
  const key = keys.batchWork(ctx.workspaceId, workId);
  const work = (await getItem(key)) as (Work & Record<string, unknown>) | undefined;
  // The last part removes the work as it seals the record: a marker without work is that moment.
  if (!work) throw keyInUse();
  if (work.lease_until > now.getTime()) throw keyInUse((work.lease_until - now.getTime()) / 1000);
  const taken = { ...work, owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS };
  const leaseAsRead: Condition = { expression: '#lease = :read', names: { '#lease': 'lease_until' }, values: { ':read': work.lease_until } };
  const cancelled = await transact({
    work: updatePart(key, setWork({ owner: taken.owner, lease_until: taken.lease_until }), { condition: allOf(heldBy(work.owner), leaseAsRead) }),
  });
  if (cancelled) throw keyInUse(LEASE_MS / 1000);
  const owned = await checked(ctx, batch);
  const planned = owned.map((input, index) => plannedEntry(ctx, input, work.ids[index]!, work.at, index));
  const parts = partsOf(ctx.workspaceId, planned);
  if (parts.length !== work.parts) throw new Error(`batch ${workId}: ${parts.length} parts planned again where ${work.parts} were`);
  // The entries of the parts written: as they are now (one deleted meanwhile is not made again).
  const earlier = parts.slice(0, work.done).flatMap((part) => part.planned.map((p) => keys.keyOfItem(p.item)));
  return writeParts(ctx, parts, taken, await readItems(earlier));
}

/**
 * Writes the parts from the work's `done` on (all of them without work), each one transaction;
 * answers the batch's entries in the order given: `earlier` (the items of parts written before,
 * as they are now) and those written here.
 */
async function writeParts(ctx: CallerContext, parts: Part[], work: Work | undefined, earlier: Record<string, unknown>[]): Promise<Made> {
  const workKey = work ? keys.batchWork(ctx.workspaceId, work.id) : undefined;
  const placeOf = new Map(parts.flatMap((part) => part.planned.map((p) => [p.entry.id, p.index])));
  /** The batch's answer: its entries in the order given. */
  const madeOf = (items: Record<string, unknown>[]): Made => ({
    made: items.map((item) => objectOf(timeEntry, item)).sort((a, b) => placeOf.get(a.id)! - placeOf.get(b.id)!),
  });
  const written = [...earlier];
  for (let k = work?.done ?? 0; k < parts.length; k++) {
    const part = parts[k]!;
    const last = k === parts.length - 1;
    const made = last ? madeOf([...written, ...part.planned.map((p) => p.item)]) : undefined;
    const record = !ctx.record ? undefined : !work ? ctx.record.write(made!) : k === 0 ? ctx.record.pending(work.id) : last ? ctx.record.sealed(made!, work.id) : undefined;
    const cancelled = await transact<string>({
      ...partItems(part),
      ...(work ? { work: workPart(workKey!, work, k, last) } : {}),
      ...(record ? { record } : {}),
    }).catch(async (error: unknown) => {
      if (work) await endLease(workKey!, work.owner);
      throw error;
    });
    if (cancelled) {
      refuseIfRecordTaken(ctx, cancelled);
      // Another request took the work over (this one outlived its lease): it finishes the batch.
      if (cancelled.failed('work')) throw keyInUse(LEASE_MS / 1000);
      const gone = [...part.owners].find(([name]) => cancelled.failed(name));
      if (gone) throw refusedOwner(gone[1], parts.flatMap((p) => p.owners.get(gone[0])?.indexes ?? []));
      throw new Error(`time entry batch part ${k} cancelled: ${cancelled.codes.join(',')}`);
    }
    written.push(...part.planned.map((p) => p.item));
    if (made) return made;
  }
  throw new Error('time entry batch: no part written'); // unreachable: a batch has 1 to 100 entries
}

/**
 * A request that answers a failure gives its work up: a keyed retry may take it over at once instead
 * of waiting for the lease. Only the lease: the failed write may have landed (its response lost),
 * which the retry reads in the work's `done`. If the work is not there (the first part did not
 * land) or not ours, nothing changes; a failure here leaves the lease to run out.
 */
async function endLease(key: PrimaryKey, owner: string): Promise<void> {
  await transact({ work: updatePart(key, setWork({ lease_until: 0 }), { condition: heldBy(owner) }) }).catch(() => undefined);
}

/** The condition that `owner` holds the work. */
const heldBy = (owner: string): Condition => ({ expression: '#owner = :owner', names: { '#owner': 'owner' }, values: { ':owner': owner } });
/** An update of the work item's own attributes. */
const setWork = (attributes: Partial<Work>) => changeExpression({ attributes });

/** The work item's part in part k's transaction: put by the first, advanced by the others, removed by the last. */
function workPart(key: PrimaryKey, work: Work, k: number, last: boolean): TransactItem {
  if (k === 0) return putPart({ ...key, ...work, done: 1, [TTL_ATTRIBUTE]: Math.floor(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS }, { condition: absent() });
  const held = allOf(heldBy(work.owner), { expression: '#done = :done', names: { '#done': 'done' }, values: { ':done': k } });
  if (last) return deletePart(key, { condition: held });
  return updatePart(key, setWork({ done: k + 1, lease_until: Date.now() + LEASE_MS }), { condition: held });
}

/** An entry whose project (if any) and client are known to exist and agree, with the rate it takes. */
interface Owned extends CreateInput {
  project_id: string | null;
  client_id: string;
  billable_rate: number | null;
}

/** A reference an entry sends, when it is a well-formed id of `target` (a malformed one is the schema's error). */
function referenceOf(sent: unknown, field: string, target: { idPrefix: string }): string | undefined {
  const value = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' && isWellFormedId(target.idPrefix, value) ? value : undefined;
}

const INDEX = /^entries\[(\d+)\]/;
/** An error's entry: its index, or (a member beside `entries`) after them all. */
const indexOf = (error: FieldError) => Number(INDEX.exec(error.param)?.[1] ?? Infinity);

/**
 * The entries with their owners, or one 400 listing every error by index: the body's (parse.ts
 * parseBatch) and the references that name nothing in the workspace, or disagree (a client that is
 * not the project's), or are missing (neither project nor client). Reads each project and client
 * named once, in one BatchGetItem per 100.
 */
async function checked(ctx: CallerContext, batch: ParsedBatch<CreateInput>): Promise<Owned[]> {
  const sent: readonly unknown[] = batch.valid ? batch.entries : batch.sent;
  const errors: FieldError[] = batch.valid ? [] : [...batch.errors];
  const refused = new Set(errors.map((e) => e.param));
  const projectIds = new Set(sent.flatMap((e) => referenceOf(e, 'project_id', project) ?? []));
  const clientIds = new Set(sent.flatMap((e) => (referenceOf(e, 'project_id', project) ? [] : (referenceOf(e, 'client_id', client) ?? []))));
  const found = await readItems([
    ...[...projectIds].map((id) => keys.item(ctx.workspaceId, project.type, id)),
    ...[...clientIds].map((id) => keys.item(ctx.workspaceId, client.type, id)),
  ]);
  const projects = new Map(found.filter((item) => String(item.SK).startsWith(keys.typePrefix(project.type))).map((item) => {
    const { id, client_id, hourly_rate } = objectOf(project, item);
    return [id, { client_id, hourly_rate }];
  }));
  const clients = new Set(found.filter((item) => String(item.SK).startsWith(keys.typePrefix(client.type))).map((item) => objectOf(client, item).id));
  const owned: Owned[] = [];
  sent.forEach((entry, i) => {
    const param = (field: string) => `entries[${i}].${field}`;
    const refuse = (field: string, message: string) => {
      if (!refused.has(param(field))) errors.push({ param: param(field), message });
    };
    const projectId = referenceOf(entry, 'project_id', project);
    const clientId = referenceOf(entry, 'client_id', client);
    if (projectId !== undefined) {
      const terms = projects.get(projectId);
      if (!terms) return refuse('project_id', unknownReference('project_id', project).message);
      if (clientId !== undefined && clientId !== terms.client_id) return refuse('client_id', notTheProjectClient(projectId, terms.client_id, ', or be omitted').message);
      if (batch.valid) owned.push(withOwners(entry as CreateInput, projectId, terms.client_id, terms.hourly_rate));
      return;
    }
    if (clientId !== undefined) {
      if (!clients.has(clientId)) return refuse('client_id', unknownReference('client_id', client).message);
      if (batch.valid) owned.push(withOwners(entry as CreateInput, null, clientId, null));
    }
    // Neither: the create's own rule refused it (model/define.ts createSchema), as a malformed one.
  });
  if (errors.length > 0) throw invalidRequest(errors.map((error, order) => ({ error, order })).sort((a, b) => indexOf(a.error) - indexOf(b.error) || a.order - b.order).map((e) => e.error));
  return owned;
}

/** An entry's owners as logTimeEntry gives them: the project's client, and its rate unless one was sent. */
const withOwners = (input: CreateInput, projectId: string | null, clientId: string, rate: number | null): Owned => ({
  ...input,
  project_id: projectId,
  client_id: clientId,
  billable_rate: input.billable_rate === undefined ? rate : input.billable_rate,
});

/** The entry at `index` as it will be stored, under `id`, made at `at`. */
function plannedEntry(ctx: CallerContext, input: Owned, id: string, at: string, index: number): Planned {
  const data = dataOf(timeEntry, { id, workspaceId: ctx.workspaceId }, { ...input }, at);
  // Counted in the totals in the same transaction, as a log is (shared/totals/totals.ts).
  return { index, item: { ...newItem(ctx, timeEntry, data), [COUNTED_ATTRIBUTE]: 1 }, entry: storedTimeEntry(data) };
}

/** The owners an entry counts on: its project (which must still be its client's) and its client. */
function ownersOf(workspaceId: string, entry: StoredTimeEntry): [string, Omit<Owner, 'indexes'>][] {
  const data = { project_id: entry.project_id, client_id: entry.client_id };
  return [
    ...(entry.project_id === null
      ? []
      : [[`p_${entry.project_id}`, { key: keys.item(workspaceId, project.type, entry.project_id), field: 'project_id', condition: consistencyCondition(timeEntry, project, data) }] as [string, Omit<Owner, 'indexes'>]]),
    [`c_${entry.client_id}`, { key: keys.item(workspaceId, client.type, entry.client_id), field: entry.project_id === null ? 'client_id' : 'project_id' }],
  ];
}

/**
 * The parts, in the order they are written: each at most PART_ITEMS items (entries, counters,
 * totals). The first takes an entry of each project and client first (`guardsFirst`), so that its
 * transaction counts on every one it can, then every part takes entries in the order given.
 */
function partsOf(workspaceId: string, planned: readonly Planned[]): Part[] {
  const parts: Part[] = [];
  let part: Part | undefined;
  for (const p of guardsFirst(planned)) {
    const owners = ownersOf(workspaceId, p.entry);
    const totals = placesOf(workspaceId, p.entry).map(({ key }) => `${key.PK}|${key.SK}`);
    const adds = (into: Part) => 1 + owners.filter(([name]) => !into.owners.has(name)).length + totals.filter((name) => !into.totals.has(name)).length;
    if (!part || sizeOf(part) + adds(part) > PART_ITEMS) parts.push((part = { planned: [], owners: new Map(), totals: new Map() }));
    part.planned.push(p);
    for (const [name, owner] of owners) {
      const counted = part.owners.get(name) ?? { ...owner, indexes: [] };
      counted.indexes.push(p.index);
      part.owners.set(name, counted);
    }
    addEntry(part.totals, workspaceId, p.entry, 1n);
  }
  return parts;
}

const sizeOf = (part: Part) => part.planned.length + part.owners.size + part.totals.size;

/** The entries with the first entry of each project (or, without one, client) first, then the rest; each group in the order given. */
function guardsFirst(planned: readonly Planned[]): Planned[] {
  const seen = new Set<string>();
  const first: Planned[] = [];
  const rest: Planned[] = [];
  for (const p of planned) {
    const guard = p.entry.project_id ?? p.entry.client_id;
    (seen.has(guard) ? rest : first).push(p);
    seen.add(guard);
  }
  return [...first, ...rest];
}

/** A part's writes: each entry's put (on a fresh id), each owner's counter (+ its entries), each totals item's additions. */
function partItems(part: Part): Record<string, TransactItem> {
  return {
    ...Object.fromEntries(part.planned.map((p) => [`e${p.index}`, putPart(p.item, { condition: absent() })])),
    ...Object.fromEntries([...part.owners].map(([name, owner]) => [name, counterUpdate(owner.key, counterOf(timeEntry), owner.indexes.length, owner.condition)])),
    ...deltaParts(part.totals, 'totals'),
  };
}

/** The 400 of a project or client deleted after the batch was checked, naming every entry (`indexes`) that names it. */
function refusedOwner(owner: Owner, indexes: number[]): Error {
  const target = owner.field === 'project_id' ? project : client;
  const message = unknownReference(owner.field, target).message;
  return invalidRequest(indexes.sort((a, b) => a - b).map((i) => ({ param: `entries[${i}].${owner.field}`, message })));
}

/** The entries `ids` as they are now (one deleted since is left out), in that order: a replay's answer when its record kept only the ids. */
export async function timeEntriesNow(ctx: CallerContext, ids: readonly string[]): Promise<TimeEntry[]> {
  const found = new Map((await readItems(ids.map((id) => keys.item(ctx.workspaceId, timeEntry.type, id)))).map((item) => [String(item.SK), item]));
  return ids.flatMap((id) => {
    const item = found.get(keys.item(ctx.workspaceId, timeEntry.type, id).SK);
    return item ? [objectOf(timeEntry, item)] : [];
  });
}
