/**
 * An invoice's create (contract, "Invoices", "Billing types"; docs/decisions/0023-invoices.md,
 * 0029-billing-types.md): a client's uninvoiced, billable time locked into a draft, with the fees
 * its projects' billing types charge (its status steps: lifecycle.ts; its release by a void or a
 * delete: release.ts; what they share: common.ts; what each type charges: fees.ts; the fees'
 * marks: fee-marks.ts; the credit's ledger: credit.ts).
 *
 * A create selects the fees and the entries (reads only), writes the draft with its plan (the
 * fees, then the entries' ids: time and materials first, then the time its ProjectBased,
 * Retainer and CreditBased projects cover; then its CreditBased projects), then locks them in
 * batches: each batch is one transaction holding the invoice (its lines and totals with the
 * batch's fees, entries or credit lines added, on condition that this request still holds the
 * work) and each fee's mark (on condition that nothing charges the fee yet), each entry (on
 * condition that it is at the version read and on no invoice) or each credit ledger (at the
 * version read: credit.ts). So at every commit the marks, entries and ledgers naming or counting
 * the invoice are exactly what its lines charge. A crash
 * leaves a draft holding a prefix of the plan, its `work` naming who builds it until when; a
 * retry with the same Idempotency-Key takes the work over once that lease is past and finishes the
 * same invoice. A void, and a draft's delete, release them in batches the same way (release.ts).
 */
import type { InferOutput } from 'valibot';
import { ApiError, ERROR_TYPES, invalidParam, serviceUnavailable, RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import * as keys from '../../data/keys.ts';
import { readAll, readSpan } from '../../data/list.ts';
import { storedTimeEntryOfItem, type StoredTimeEntry } from '../../data/stored-time-entries.ts';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../data/table.ts';
import { absent, allOf, atVersion, counterUpdate, dataOfItem, getItem, ITEM_PART, putPart, transact, versionOf, type TransactItem } from '../../data/writes.ts';
import { addFees, addToLines, invoiceAmounts, type InvoiceLine } from './amounts.ts';
import { lockEntryPart } from './lock.ts';
import { claims, markPart } from './fee-marks.ts';
import { covers, creditLineOf, creditTermsOf, feesDue, feesOpen, lacking, type CreditTerms, type ScopedProject } from './fees.ts';
import { creditsNow, stateCredit } from './credit.ts';
import { abandonDraft } from './release.ts';
import { dataOf, objectOf, type Invoice } from '../../model/objects.ts';
import { CLIENT_STORED_CURRENCY, client, counterOf, invoice, project, timeEntry, type invoiceSchemas } from '../../model/resources.ts';
import { givenTaxes } from '../../model/invoice-fields.ts';
import { defaultTaxes } from '../business-profile.ts';
import { LIMITS } from '../../core/field-limits.ts';
import { dayNumberOf, startOfDay } from '../../core/calendar.ts';
import type { CallerContext, Versioned } from '../context.ts';
import { newItem, readItem, refuseIfRecordTaken, unknownReference, versioned } from '../entity.ts';
import {
  draftRemoval, endLease, ENTRIES, fitBatch, heldBy, invoiceableOf, itemLines, workInUse, LEASE_MS, linesFields, linesOf, LOCKED,
  planOf, readEntries, takeOver, WORK, workOf, BATCH_ENTRIES, type Plan, type Work,
} from './common.ts';

type Schemas = typeof invoiceSchemas;
type CreateInput = InferOutput<Schemas['create']>;

/** Re-reads of a batch whose entries or fees changed under it before the create answers 503. */
const BATCH_ATTEMPTS = 10;

/** The span of instants of the dates `from`..`to` (exclusive) in `timeZone`, as stored timestamps compare. */
function spanOf(timeZone: string, from: string, to: string) {
  return {
    from: new Date(startOfDay(timeZone, dayNumberOf(from))).toISOString(),
    to: new Date(startOfDay(timeZone, dayNumberOf(to))).toISOString(),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Creates the draft and locks its fees and time; a keyed retry of a create that died part-way finishes it. A billing run's names the run (`billingRunId`). */
export async function createInvoice(ctx: CallerContext, input: CreateInput, now = new Date(), options: { billingRunId?: string } = {}): Promise<Versioned<Invoice>> {
  if (ctx.record) {
    const stored = await ctx.record.lookup();
    if (stored) {
      const workId = ctx.record.pendingWork(stored);
      if (workId === undefined) throw ctx.record.taken(stored);
      const resumed = await resume(ctx, workId, now);
      if (resumed) return resumed;
    }
  }
  const clientItem = await readItem(ctx, client, input.client_id);
  if (!clientItem) throw unknownReference('client_id', client);
  const currency = String(dataOfItem(clientItem).currency ?? CLIENT_STORED_CURRENCY);
  const items = await itemLines(ctx, input.client_id, input.items ?? [], currency);
  const range = input.from !== undefined && input.to !== undefined ? { from: input.from, to: input.to } : undefined;
  // Without a period, a create takes no time and no fees: its items alone.
  const { plan, lineCount, names } = range ? await selectPeriod(ctx, input, range, currency, items.length > 0) : { plan: NO_PLAN, lineCount: 0, names: new Map<string, string>() };
  if (lineCount + items.length > LIMITS.invoiceLines) {
    throw invalidParam('items', `The items make ${lineCount + items.length} lines with the time and fees in the range, more than ${LIMITS.invoiceLines}: give fewer items`);
  }

  const id = newId(invoice.idPrefix, now);
  const at = now.toISOString();
  // dataOf takes each of the invoice's fields by name (null when absent): the body's own (timezone,
  // project_ids, the rates, memo, purchase_order, due_date) and these.
  const data = dataOf(invoice, { id, workspaceId: ctx.workspaceId }, {
    ...input,
    status: 'draft',
    currency,
    period_start: input.from ?? null,
    period_end: input.to ?? null,
    lines: items,
    time_entry_count: 0,
    // Neither taxes nor tax_rate: the business profile's default taxes.
    ...invoiceAmounts(items, input.discount_rate, givenTaxes(input) ?? (await defaultTaxes(ctx)), currency),
  }, at);
  // Read-only (null from dataOf): only a billing run sets it.
  if (options.billingRunId !== undefined) data.billing_run_id = options.billingRunId;
  const work: Work = { kind: 'build', owner: ctx.requestId, lease_until: now.getTime() + LEASE_MS, next: 0 };
  const item = { ...newItem(ctx, invoice, data), [WORK]: work, [LOCKED]: 0 };
  const cancelled = await transact<string>({
    [ITEM_PART]: putPart(item, { condition: absent() }),
    client_id: counterUpdate(keys.item(ctx.workspaceId, client.type, input.client_id), counterOf(invoice), 1),
    [ENTRIES]: putPart({ ...keys.invoiceEntries(ctx.workspaceId, id), ...plan }),
    ...(ctx.record ? { record: ctx.record.pending(id) } : {}),
  });
  if (cancelled) {
    refuseIfRecordTaken(ctx, cancelled);
    if (cancelled.failed('client_id')) throw unknownReference('client_id', client);
    throw new Error(`invoice create cancelled: ${cancelled.codes.join(',')}`);
  }
  // The names of the projects read for the scope describe their lines (a resumed build reads them).
  return build(ctx, item, now, names);
}

/**
 * What a create of the dates `range.from`..`range.to` takes (reads only): its fees, its entries
 * and its credit, as the plan to lock; refused in the contract's order (the body's checks done):
 * `unpriced_project`, `unpriced_time`, `nothing_to_invoice` (unless it has items), the size limits.
 */
async function selectPeriod(ctx: CallerContext, input: CreateInput, range: { from: string; to: string }, currency: string, hasItems: boolean): Promise<{ plan: Plan; lineCount: number; names: Map<string, string> }> {
  const scope = await projectsInScope(ctx, input);
  const span = spanOf(input.timezone, range.from, range.to);
  const { selected, tooMany } = await selectEntries(ctx, input, span);
  const projects = await withProjectsOf(ctx, scope, selected, input.client_id);
  const withTime = new Set(selected.flatMap((e) => (e.project_id === null ? [] : [e.project_id])));
  // Refusals in the contract's order, each before any write.
  const lacks = (p: ScopedProject) => lacking(p, withTime.has(p.id), currency);
  const unpricedProjects = projects.filter((p) => lacks(p) !== undefined);
  if (unpricedProjects.length > 0) {
    const [first] = unpricedProjects;
    throw new ApiError(
      'unpriced_project', ERROR_TYPES.unpriced_project,
      `${plural(unpricedProjects.length, 'project', 'projects')} in scope without what ${unpricedProjects.length === 1 ? 'its' : 'their'} billing type needs (e.g. ${first!.id}, ${first!.billing_type}, without ${lacks(first!)!.join(', ')}): set it on the project, or leave the project out with project_ids, then create the invoice`,
    );
  }
  const covered = new Set(projects.filter(covers).map((p) => p.id));
  const isCovered = (e: StoredTimeEntry) => e.project_id !== null && covered.has(e.project_id);
  const creditProjects = projects.filter((p) => p.billing_type === 'CreditBased' && (feesOpen(p) || withTime.has(p.id)));
  const rated = new Set(creditProjects.map((p) => p.id));
  // Covered time needs no rate, but a CreditBased project's: its value is the credit it uses.
  const unpriced = selected.filter((e) => e.billable_rate === null && (!isCovered(e) || rated.has(e.project_id!)));
  if (unpriced.length > 0) {
    throw new ApiError(
      'unpriced_time', ERROR_TYPES.unpriced_time,
      `${plural(unpriced.length, 'billable time entry', 'billable time entries')} in the range without a billable_rate (e.g. ${unpriced[0]!.id}): give each a rate, or mark it non-billable, then create the invoice`,
    );
  }
  const due = projects.flatMap((p) => feesDue(p, range, currency));
  const open = await claims(ctx.workspaceId, '', due);
  const fees = due.filter((_, i) => open[i] !== undefined);
  const charging = selected.filter((e) => !isCovered(e));
  const credit = creditProjects.map((p) => creditTermsOf(p, currency));
  const blocks = await blocksNow(ctx, credit, selected, covered, currency);
  if (fees.length === 0 && charging.length === 0 && blocks.every((n) => n === 0) && !hasItems) {
    throw nothingToInvoice(input.client_id, range.from, range.to, input.timezone, input.project_ids ? ' in those projects' : '');
  }
  if (tooMany) throw invalidParam('to', `The range holds more than ${LIMITS.invoiceEntries} billable time entries to invoice: narrow the range or project_ids`);
  const lineCount = fees.length + credit.length + new Set(selected.map(lineKeyOf)).size;
  if (lineCount > LIMITS.invoiceLines) {
    throw invalidParam('to', `The time and fees in the range make ${lineCount} lines (fees, credit, and time per project × rate), more than ${LIMITS.invoiceLines}: narrow the range or project_ids`);
  }
  if (blocks.some((n) => !Number.isSafeInteger(n))) throw invalidParam('to', 'The time in the range uses more blocks of a CreditBased project\'s credit than an integer holds exactly: narrow the range');
  const plan: Plan = { fees, ids: [...charging, ...selected.filter(isCovered)].map((e) => e.id), charging: charging.length, covered: [...covered], credit };
  return { plan, lineCount, names: new Map(projects.map((p) => [p.id, p.name])) };
}

/** The span of an invoice of items alone: it holds no instant. */
const NO_SPAN = { from: '', to: '' };

/** The plan of an invoice of items alone: nothing to lock. */
const NO_PLAN: Plan = { fees: [], ids: [], charging: 0, covered: [], credit: [] };


/** 409 nothing_to_invoice: nothing that charges (a fee due, time and materials) in the dates `from`..`to` (exclusive) in `timeZone`, and why. */
const nothingToInvoice = (clientId: string, from: string, to: string, timeZone: string, why: string) =>
  new ApiError(
    'nothing_to_invoice', ERROR_TYPES.nothing_to_invoice,
    `Client ${clientId} has no fee due, no credit to buy and no uninvoiced billable time of time and materials from ${from} to ${to} (${timeZone})${why} (the time a ProjectBased, Retainer or CreditBased project covers makes no invoice alone)`,
  );

/**
 * The blocks each of `credit`'s projects would buy if the invoice took `selected` now, from their
 * ledgers as they are (the seal states them again: credit.ts).
 */
async function blocksNow(ctx: CallerContext, credit: readonly CreditTerms[], selected: readonly StoredTimeEntry[], covered: ReadonlySet<string>, currency: string): Promise<number[]> {
  const before = await creditsNow(ctx.workspaceId, credit);
  return credit.map((terms) => {
    const time = selected.filter((e) => e.project_id === terms.project_id).map((e) => invoiceableOf(e, covered));
    return creditLineOf(terms, before.get(terms.project_id)!, addToLines([], time, () => '', currency), currency)?.line.blocks ?? 0;
  });
}

/** Each of `projectIds` is a project of the client (400 naming `project_ids` otherwise): the invoice's scope. */
async function checkProjects(ctx: CallerContext, clientId: string, projectIds: readonly string[]): Promise<ScopedProject[]> {
  const items = await Promise.all(projectIds.map((id) => readItem(ctx, project, id)));
  return items.map((item, i) => {
    if (!item || dataOfItem(item).client_id !== clientId) {
      throw invalidParam('project_ids', `project_ids[${i}] (${projectIds[i]}) is not a project of client ${clientId}`);
    }
    return objectOf(project, item);
  });
}

/** The invoice's projects: those of `project_ids`, or every project of the client (its index of projects, eventually consistent). */
async function projectsInScope(ctx: CallerContext, input: CreateInput): Promise<ScopedProject[]> {
  if (input.project_ids) return checkProjects(ctx, input.client_id, input.project_ids);
  const projects: ScopedProject[] = [];
  for await (const item of readAll(keys.listSource(project, ctx.workspaceId, { client_id: input.client_id }))) projects.push(objectOf(project, item));
  return projects;
}

/** The scope, with the projects of selected entries that its index did not list yet (created a moment ago): read each. */
async function withProjectsOf(ctx: CallerContext, scope: ScopedProject[], entries: readonly StoredTimeEntry[], clientId: string): Promise<ScopedProject[]> {
  const known = new Set(scope.map((p) => p.id));
  const missing = [...new Set(entries.flatMap((e) => (e.project_id === null || known.has(e.project_id) ? [] : [e.project_id])))];
  const items = await Promise.all(missing.map((id) => readItem(ctx, project, id)));
  return [...scope, ...items.flatMap((item) => (item && dataOfItem(item).client_id === clientId ? [objectOf(project, item)] : []))];
}

/**
 * The entries a create takes, oldest first: billable, on no invoice, of the client (of the
 * projects), starting in the span. Read from the client's (or each project's) time-entry index,
 * within the span's sort keys, until past the limit (`tooMany`: refused once the other refusals are checked).
 */
async function selectEntries(ctx: CallerContext, input: CreateInput, span: { from: string; to: string }): Promise<{ selected: StoredTimeEntry[]; tooMany: boolean }> {
  const sources = input.project_ids ? input.project_ids.map((p) => ['project_id', p] as const) : [['client_id', input.client_id] as const];
  const selected: StoredTimeEntry[] = [];
  for (const [field, value] of sources) {
    for await (const item of readSpan(keys.spanSource(timeEntry, ctx.workspaceId, field, value, span), 1000)) {
      const entry = storedTimeEntryOfItem(item);
      if (!uninvoiced(entry, input.client_id)) continue;
      selected.push(entry);
      if (selected.length > LIMITS.invoiceEntries) return { selected, tooMany: true };
    }
  }
  return { selected: selected.sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : 1)), tooMany: false };
}

/**
 * An entry's place, as the indexes order it (by code unit, not by a locale's collation): its start,
 * then its id (unique, so never a tie). `started_at` is stored at one length (UTC, milliseconds).
 */
const orderOf = (entry: StoredTimeEntry) => `${entry.started_at}${entry.id}`;

/**
 * A keyed retry meets its own unfinished create: answers it when done, waits while its holder
 * lives, else takes it over. Undefined when its draft is gone (a DELETE cleared the abandoned
 * build): the marker is dropped and the create starts afresh.
 */
async function resume(ctx: CallerContext, id: string, now: Date): Promise<Versioned<Invoice> | undefined> {
  const item = await getItem(keys.item(ctx.workspaceId, invoice.type, id));
  const work = item && workOf(item);
  if (work?.kind === 'release' && work.unannounced) {
    // Its draft was being released unannounced (a refusal that died part-way, or a delete of the
    // abandoned build): that release is finished, and the create starts afresh.
    await abandonDraft(ctx, await takeOver(ctx, item!, now), now, { record: ctx.record!.discarded(id) });
    return undefined;
  }
  if (!item || !work || work.kind !== 'build') {
    // Sealed meanwhile (its record replaced the marker after our read): the record says.
    const stored = await ctx.record!.lookup();
    if (stored && ctx.record!.pendingWork(stored) === undefined) throw ctx.record!.taken(stored);
    // The marker is written with the draft, so a marker without its draft is one a DELETE left.
    if (!item && stored) {
      const cancelled = await transact<string>({ record: ctx.record!.discarded(id) });
      if (!cancelled) return undefined;
    }
    throw workInUse(1);
  }
  return build(ctx, await takeOver(ctx, item, now), now);
}

/** The names of lines: a project's name, or for time without a project the client's company name; read once each, unless `known`. */
function describer(ctx: CallerContext, clientId: string, known: ReadonlyMap<string, string> = new Map()) {
  const names = new Map<string | null, string>(known);
  return {
    async load(projectIds: Iterable<string | null>) {
      const missing = [...new Set(projectIds)].filter((p) => !names.has(p));
      await Promise.all(
        missing.map(async (p) => {
          const item = p === null ? await readItem(ctx, client, clientId) : await readItem(ctx, project, p);
          names.set(p, item ? String(dataOfItem(item)[p === null ? 'company_name' : 'name']) : (p ?? clientId));
        }),
      );
    },
    describe: (p: string | null) => names.get(p) ?? p ?? clientId,
  };
}

/** A time line's identity (project × rate) as a key: of a line, or of an entry, whose line it is. */
const lineKeyOf = (of: { project_id: string | null; billable_rate: number | null }) => `${of.project_id}|${of.billable_rate}`;

/** Billable time of the client on no invoice: what a create selects. */
const uninvoiced = (entry: StoredTimeEntry, clientId: unknown) => entry.billable && entry.invoice_id === null && entry.client_id === clientId;

/**
 * The entry, as stored now, still belongs on the invoice: billable, on no invoice, of its client
 * (and projects), in its span, priced unless its project covers it (a CreditBased project's time
 * is priced too: its value is the credit it uses); in the plan's time and materials
 * (`charging`), not covered either (so that covered time never lands on an invoice before a line
 * that charges).
 */
function belongs(entry: StoredTimeEntry, invoiceData: Record<string, unknown>, span: { from: string; to: string }, covered: ReadonlySet<string>, rated: ReadonlySet<string>, charging: boolean): boolean {
  const projects = invoiceData.project_ids as string[] | null;
  const isCovered = entry.project_id !== null && covered.has(entry.project_id);
  const priced = entry.billable_rate !== null;
  return (
    uninvoiced(entry, invoiceData.client_id) &&
    (isCovered ? !charging && (priced || !rated.has(entry.project_id!)) : priced) &&
    (projects === null || (entry.project_id !== null && projects.includes(entry.project_id))) &&
    entry.started_at >= span.from &&
    entry.started_at < span.to
  );
}

/** What one batch adds: its lines after it, its transaction's parts beside the invoice, the entries it locks, the plan positions it uses. */
interface Step {
  lines: InvoiceLine[];
  parts: Record<string, TransactItem>;
  locked: number;
  count: number;
  last: boolean;
}

/**
 * Locks the draft's plan from `work.next` on, batch by batch: its fees, then its entries, and
 * seals it (its work removed, the key's record written) in the last batch. Answers the sealed
 * invoice; refuses it (nothing_to_invoice, the draft gone) when other requests took what it would
 * charge, before any covered time is locked.
 */
async function build(ctx: CallerContext, start: Record<string, unknown>, now: Date, knownNames?: ReadonlyMap<string, string>): Promise<Versioned<Invoice>> {
  let item = start;
  const invoiceData = dataOfItem(item);
  const id = String(invoiceData.id);
  // An invoice of items alone has no period, and no entry to place in one.
  const span = invoiceData.period_start === null ? NO_SPAN : spanOf(String(invoiceData.timezone), String(invoiceData.period_start), String(invoiceData.period_end));
  const plan = await planOf(ctx, id);
  const covered = new Set(plan.covered);
  const rated = new Set(plan.credit.map((c) => c.project_id));
  const names = describer(ctx, String(invoiceData.client_id), knownNames);
  const currency = String(invoiceData.currency);
  let attempts = 0;
  try {
    for (;;) {
      const work = workOf(item)!;
      const data = dataOfItem(item);
      const lines = linesOf(data);
      const at = work.next - plan.fees.length;
      // Covered time comes after what charges, and only onto an invoice that charges something (or may buy credit).
      if (at === plan.charging && at < plan.ids.length && lines.length === 0 && !plan.credit.some((c) => c.fees)) return await discardEmpty(ctx, item);
      const step =
        at < 0 ? await feeStep(ctx, plan, work.next, id, lines)
        : at < plan.ids.length || plan.credit.length === 0 ? await entryStep(ctx, plan, at, { data, span, covered, rated, lines, names, currency, now })
        : await creditStep(ctx, plan, at - plan.ids.length, lines, currency);
      if (step.last && !step.lines.some((line) => charges(line, covered))) {
        if (lines.length === 0) return await discardEmpty(ctx, item);
        // Covered time or credit stated, and nothing charges (other invoices bought the credit meanwhile): all of it is given back.
        await abandonDraft(ctx, item, now, ctx.record ? { record: ctx.record.discarded(id) } : {});
        throw nothingToInvoice(String(data.client_id), String(data.period_start), String(data.period_end), String(data.timezone), ' left: other requests changed or invoiced it meanwhile');
      }
      const fields = { ...linesFields(step.lines, data), ...(step.last ? { updated_at: new Date(Math.max(now.getTime(), Date.parse(String(data.updated_at)))).toISOString() } : {}) };
      const after: Record<string, unknown> = { ...item, [DATA_ATTRIBUTE]: { ...data, ...fields }, [VERSION_ATTRIBUTE]: versionOf(item) + 1, [LOCKED]: Number(item[LOCKED] ?? 0) + step.locked, [WORK]: { ...work, next: work.next + step.count } };
      if (step.last) delete after[WORK];
      const parts: Record<string, TransactItem> = {
        // The whole item as it stands after the batch: while this request holds the work, no other writes it.
        [ITEM_PART]: putPart(after, { condition: allOf(atVersion(versionOf(item)), heldBy(work.owner)) }),
        ...step.parts,
        ...(step.last && ctx.record ? { record: ctx.record.sealed(versioned(invoice, after), id) } : {}),
      };
      const cancelled = await transact<string>(parts);
      if (!cancelled) {
        item = after;
        attempts = 0;
        if (!step.last) continue;
        return versioned(invoice, after);
      }
      if (cancelled.failed(ITEM_PART)) throw workInUse(LEASE_MS / 1000); // another request holds the work now
      // An entry changed, or an entry or a fee was taken by another create, since it was read: read the batch again.
      if (++attempts >= BATCH_ATTEMPTS) throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'The time entries of this invoice are being changed by other requests: retry with the same Idempotency-Key after the time in Retry-After');
    }
  } catch (error) {
    await endLease(item).catch(() => undefined);
    throw error;
  }
}

/** A batch of the plan's fees from position `next`: each still charged by no other draft, open or paid invoice, its mark put with its line. */
async function feeStep(ctx: CallerContext, plan: Plan, next: number, id: string, lines: InvoiceLine[]): Promise<Step> {
  const chunk = plan.fees.slice(next, next + BATCH_ENTRIES);
  const conditions = await claims(ctx.workspaceId, id, chunk);
  const picked = chunk.flatMap((fee, i) => (conditions[i] ? [{ fee, condition: conditions[i]! }] : []));
  return {
    lines: addFees(lines, picked.map(({ fee }) => fee)),
    parts: Object.fromEntries(picked.map(({ fee, condition }, i) => [`fee${i}`, markPart(ctx.workspaceId, fee, id, condition)])),
    locked: 0,
    count: chunk.length,
    last: next + chunk.length >= plan.fees.length && plan.ids.length === 0 && plan.credit.length === 0,
  };
}

/** A batch of the plan's CreditBased projects from position `k`: each one's credit line stated from its ledger now, the ledger's Put with it. */
async function creditStep(ctx: CallerContext, plan: Plan, k: number, lines: InvoiceLine[], currency: string): Promise<Step> {
  const chunk = plan.credit.slice(k, k + BATCH_ENTRIES);
  const { credits, parts } = await stateCredit(ctx.workspaceId, chunk, lines, currency);
  return { lines: addFees(lines, credits), parts, locked: 0, count: chunk.length, last: k + chunk.length >= plan.credit.length };
}

/** The line charges something: a fee (even of zero), a credit line that buys a block, time and materials (even at rate 0). */
const charges = (line: InvoiceLine, covered: ReadonlySet<string>) =>
  line.kind === 'credit' ? line.blocks > 0 : line.kind !== 'time' || line.project_id === null || !covered.has(line.project_id);

/** What an entry batch reads beside the plan. */
interface EntryContext {
  data: Record<string, unknown>;
  span: { from: string; to: string };
  covered: ReadonlySet<string>;
  rated: ReadonlySet<string>;
  lines: InvoiceLine[];
  names: ReturnType<typeof describer>;
  currency: string;
  now: Date;
}

/**
 * A batch of the plan's entries from position `at` (within its time and materials, or within its
 * covered time): those that still belong on it, as long as a new line keeps within the lines' limit.
 */
async function entryStep(ctx: CallerContext, plan: Plan, at: number, { data, span, covered, rated, lines, names, currency, now }: EntryContext): Promise<Step> {
  const charging = at < plan.charging;
  const chunk = plan.ids.slice(at, Math.min(charging ? plan.charging : plan.ids.length, at + BATCH_ENTRIES));
  const stored = await readEntries(ctx, chunk);
  const pick = (batchIds: readonly string[]) => {
    const picked: Record<string, unknown>[] = [];
    const lineKeys = new Set(lines.flatMap((line) => (line.kind === 'time' ? [lineKeyOf(line)] : [])));
    let lineCount = lines.length;
    for (const entryId of batchIds) {
      const entryItem = stored.get(entryId);
      if (!entryItem) continue;
      const entry = storedTimeEntryOfItem(entryItem);
      if (!belongs(entry, data, span, covered, rated, charging)) continue;
      const lineKey = lineKeyOf(entry);
      if (!lineKeys.has(lineKey)) {
        if (lineCount >= LIMITS.invoiceLines) continue;
        lineKeys.add(lineKey);
        lineCount += 1;
      }
      picked.push(entryItem);
    }
    return picked;
  };
  const sealing = (end: boolean) => end && plan.credit.length === 0;
  const { entries: taken, totals, count, last } = fitBatch(ctx, chunk, { next: at, total: plan.ids.length }, pick, 1n, (end) => (sealing(end) && ctx.record ? 1 : 0));
  const takenEntries = taken.map(storedTimeEntryOfItem);
  await names.load(takenEntries.map((e) => e.project_id));
  return {
    lines: addToLines(lines, takenEntries.map((e) => invoiceableOf(e, covered)), names.describe, currency),
    parts: { ...Object.fromEntries(taken.map((e, i) => [`entry${i}`, lockEntryPart(ctx.workspaceId, e, String(data.id), now, ctx.requestId)])), ...totals },
    locked: taken.length,
    count,
    last: sealing(last),
  };
}

/** Everything it would charge was changed or taken by another invoice meanwhile: the draft goes, unannounced, and the create is refused. */
async function discardEmpty(ctx: CallerContext, item: Record<string, unknown>): Promise<never> {
  const data = dataOfItem(item);
  const id = String(data.id);
  const cancelled = await transact<string>({
    ...draftRemoval(ctx, item, workOf(item)!.owner),
    ...(ctx.record ? { record: ctx.record.discarded(id) } : {}),
  });
  if (cancelled) throw workInUse(LEASE_MS / 1000);
  throw nothingToInvoice(data.client_id as string, data.period_start as string, data.period_end as string, data.timezone as string, ' left: other requests changed or invoiced it meanwhile');
}
