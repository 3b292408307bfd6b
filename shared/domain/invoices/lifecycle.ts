/**
 * An invoice's status steps (contract, "Invoices"): a PATCH of a draft, finalize (draft → open,
 * with the workspace's next number; at a total of zero, then paid in a second write); each one write
 * of the invoice with its record, on the version read. Payments, and pay, are in payments.ts; a
 * void's release in release.ts.
 */
import type { InferOutput } from 'valibot';
import { ApiError, ERROR_TYPES, invalidParam, notFound, preconditionFailed, serviceUnavailable, RETRY_AFTER_SECONDS } from '../../core/errors.ts';
import { isWellFormedId } from '../../core/ids.ts';
import * as keys from '../../data/keys.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../data/table.ts';
import { absent, dataOfItem, getItem, ITEM_PART, matchesVersion, putPart, RECORD_PART, transact, versionOf, type TransactItem } from '../../data/writes.ts';
import { invoiceAmounts, withItems } from './amounts.ts';
import { minorOfAmount } from '../../core/money.ts';
import { objectOf, type Invoice } from '../../model/objects.ts';
import { client, invoice, type invoiceSchemas } from '../../model/resources.ts';
import { LIMITS } from '../../core/field-limits.ts';
import { givenTaxes, type InvoiceStatus } from '../../model/invoice-fields.ts';
import { partiesOf } from './parties.ts';
import { dateOfDayNumber, dayNumberOf, offsetAt } from '../../core/calendar.ts';
import type { CallerContext, IfMatch, Outcome, Versioned } from '../context.ts';
import { readItem, recordPart, refuseIfRecordTaken, answerUnchanged, versioned } from '../entity.ts';
import { idleAsRead, invoiceUpdate, itemLines, linesOf, taxesOf, WORK, workOf, type Work } from './common.ts';

type UpdateInput = InferOutput<(typeof invoiceSchemas)['update']>;

/** Rounds of a finalize that lost the number to another finalize. */
const FINALIZE_ATTEMPTS = 20;
const DUE_DAYS = 30;
const COUNTER = 'counter';

const invalidState = (id: string, status: string, wanted: string) =>
  new ApiError('invalid_state', ERROR_TYPES.invalid_state, `Invoice ${id} is ${status}: ${wanted}`);

/** Today's date in `timeZone`. */
const todayIn = (timeZone: string, now: Date) => new Date(now.getTime() + offsetAt(timeZone, now.getTime())).toISOString().slice(0, 10);

export async function mustRead(ctx: CallerContext, id: string): Promise<Record<string, unknown>> {
  const item = await readItem(ctx, invoice, id);
  if (!item) throw notFound(invoice.noun, id);
  return item;
}

/** The item, if it may take a step meant for `wanted` invoices (409 naming its status otherwise). */
export function mustBe(item: Record<string, unknown>, wanted: InvoiceStatus, what: string, expectedVersion: IfMatch): Record<string, unknown> {
  const data = dataOfItem(item);
  const id = String(data.id);
  if (!matchesVersion(expectedVersion, versionOf(item))) throw preconditionFailed(invoice.noun, id);
  const work = workOf(item);
  if (work?.kind === 'build') {
    throw new ApiError('invalid_state', ERROR_TYPES.invalid_state, `Invoice ${id} is a draft still being created: retry after the time in Retry-After`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((work.lease_until - Date.now()) / 1000))) },
    });
  }
  if (data.status !== wanted || work) throw invalidState(id, work ? `${String(data.status)}, its time entries being released` : String(data.status), what);
  return item;
}

/** What a step writes beside the invoice's fields: work, attributes beside `data`, other items, and the reply its record keeps. */
export interface StepExtra {
  work?: Work;
  attributes?: Record<string, unknown>;
  /** Attributes beside `data` to remove. */
  remove?: readonly string[];
  parts?: Record<string, TransactItem>;
  /** The reply the caller's record keeps (default: the invoice after the step): a payment's record keeps the payment. */
  reply?: Outcome;
  /**
   * A change made in two writes (a finalize at a total of zero: finalized, then paid): the first
   * puts the caller's record as a marker (`pending`), which a keyed retry finishes; the second seals it.
   */
  record?: 'pending' | 'sealed';
}

/** The caller's record of a step, as its part of the step's transaction. */
function stepRecord(ctx: CallerContext, id: string, outcome: Outcome, record: StepExtra['record']): Record<string, TransactItem> {
  if (!ctx.record) return {};
  if (record === 'pending') return { [RECORD_PART]: ctx.record.pending(id) };
  if (record === 'sealed') return { [RECORD_PART]: ctx.record.sealed(outcome, id) };
  return recordPart(ctx, outcome);
}

/** Changes the status-bound fields of the invoice in one write, with its record, on the version read and no work. */
export async function step(ctx: CallerContext, item: Record<string, unknown>, set: Record<string, unknown>, now: Date, extra: StepExtra = {}) {
  const data = dataOfItem(item);
  const id = String(data.id);
  const fields = { ...set, updated_at: new Date(Math.max(now.getTime(), Date.parse(String(data.updated_at)))).toISOString() };
  const after = { ...item, ...extra.attributes, [DATA_ATTRIBUTE]: { ...data, ...fields }, [VERSION_ATTRIBUTE]: versionOf(item) + 1, ...(extra.work ? { [WORK]: extra.work } : {}) };
  const indexes = 'status' in set ? keys.changedIndexes(invoice, ctx.workspaceId, id, { status: set.status }) : {};
  const parts: Record<string, TransactItem> = {
    [ITEM_PART]: invoiceUpdate(
      item,
      { fields, attributes: { ...indexes, [REQUEST_ID_ATTRIBUTE]: ctx.requestId, ...extra.attributes, ...(extra.work ? { [WORK]: extra.work } : {}) }, remove: extra.remove, bumpVersion: true },
      idleAsRead(item),
    ),
    ...extra.parts,
    // A change with more to do (a void's release) records its reply when that ends.
    ...(extra.work ? {} : stepRecord(ctx, id, extra.reply ?? versioned(invoice, after), extra.record)),
  };
  return { parts, after };
}

/** Sends the step's transaction; undefined when the invoice changed since it was read (read it again). */
export async function commit(ctx: CallerContext, parts: Record<string, TransactItem>): Promise<'changed' | 'counter' | undefined> {
  const cancelled = await transact<string>(parts);
  if (!cancelled) return undefined;
  refuseIfRecordTaken(ctx, cancelled);
  if (cancelled.failed(COUNTER)) return 'counter';
  if (cancelled.failed(ITEM_PART)) return 'changed';
  throw new Error(`invoice change cancelled: ${cancelled.codes.join(',')}`);
}

/** PATCH of a draft: its terms; the totals follow. */
export async function updateInvoice(ctx: CallerContext, id: string, patch: UpdateInput, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  for (;;) {
    const item = mustBe(await mustRead(ctx, id), 'draft', 'only a draft can be changed', expectedVersion);
    // Even an empty PATCH: only a draft takes one (contract, "Invoices").
    if (Object.keys(patch).length === 0) return answerUnchanged(ctx, versioned(invoice, item));
    const { tax_rate: _shorthand, taxes: _taxes, items, ...terms } = patch;
    const data: Record<string, unknown> = { ...dataOfItem(item), ...terms };
    // Taxes given (or tax_rate, their shorthand) replace the invoice's; neither keeps them.
    const taxes = givenTaxes(patch) ?? taxesOf(data);
    // Items given replace the invoice's, after its other lines.
    const lines = items === undefined ? linesOf(data) : withItems(linesOf(data), await itemLines(ctx, String(data.client_id), items, String(data.currency)));
    if (items !== undefined) {
      if (items.length === 0 && data.period_start === null) throw invalidParam('items', 'items must hold at least one item: an invoice without a period (from and to) is its items');
      if (lines.length > LIMITS.invoiceLines) throw invalidParam('items', `The items make ${lines.length} lines with the invoice's time and fees, more than ${LIMITS.invoiceLines}: give fewer items`);
    }
    const fields = { ...terms, ...(items === undefined ? {} : { lines }), ...invoiceAmounts(lines, Number(data.discount_rate), taxes, String(data.currency)) };
    const { parts, after } = await step(ctx, item, fields, now);
    if ((await commit(ctx, parts)) === undefined) return versioned(invoice, after);
  }
}

/** 30 days after the issue date, or the last date a date field holds (9999-12-31) when that is sooner. */
const defaultDueDate = (issueDate: string) => dateOfDayNumber(Math.min(dayNumberOf(issueDate) + DUE_DAYS, dayNumberOf(`${LIMITS.yearMax}-12-31`)));

const isZero = (data: Record<string, unknown>) => minorOfAmount(String(data.total)) === 0n;


/**
 * open → paid, for an invoice finalized at a total of zero: its second write (`invoice.paid`
 * after `invoice.finalized`), paid at its finalized_at, sealing the finalize's record.
 */
async function paidAtZero(ctx: CallerContext, item: Record<string, unknown>, now: Date): Promise<Versioned<Invoice>> {
  for (let read = item; ; read = await mustRead(ctx, String(dataOfItem(item).id))) {
    const data = dataOfItem(read);
    // Changed meanwhile (voided, or paid by a pay): the finalize answers it as it is.
    if (data.status !== 'open' || workOf(read)) {
      const outcome = versioned(invoice, read);
      if (ctx.record) await transact({ [RECORD_PART]: ctx.record.sealed(outcome, String(data.id)) });
      return outcome;
    }
    const { parts, after } = await step(ctx, read, { status: 'paid', paid_at: data.finalized_at }, now, { record: 'sealed' });
    if ((await commit(ctx, parts)) === undefined) return versioned(invoice, after);
  }
}

/**
 * A keyed finalize at zero that died between its two writes: its retry finds the invoice finalized
 * and its record a marker, and pays it (or, changed meanwhile by a void or a pay, answers it as it is).
 */
async function resumedAtZero(ctx: CallerContext, item: Record<string, unknown>, now: Date): Promise<Versioned<Invoice> | undefined> {
  const data = dataOfItem(item);
  if (!ctx.record || data.status === 'draft' || !isZero(data)) return undefined;
  const stored = await ctx.record.lookup();
  return stored && ctx.record.pendingWork(stored) === data.id ? paidAtZero(ctx, item, now) : undefined;
}

/**
 * draft → open, with the next number of the workspace, taken in the same transaction (gapless, in
 * commit order); at a total of zero, then open → paid.
 */
export async function finalizeInvoice(ctx: CallerContext, id: string, body: { issue_date?: string | undefined }, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  if (!isWellFormedId(invoice.idPrefix, id)) throw notFound(invoice.noun, id);
  let parties: Record<string, unknown> | undefined;
  for (let attempt = 0; attempt < FINALIZE_ATTEMPTS; attempt++) {
    const [read, counter] = await Promise.all([mustRead(ctx, id), getItem(keys.invoiceNumber(ctx.workspaceId))]);
    const resumed = await resumedAtZero(ctx, read, now);
    if (resumed) return resumed;
    const item = mustBe(read, 'draft', 'only a draft can be finalized', expectedVersion);
    const data = dataOfItem(item);
    const issueDate = body.issue_date ?? todayIn(String(data.timezone), now);
    const dueDate = (data.due_date as string | null) ?? defaultDueDate(issueDate);
    if (dueDate < issueDate) {
      throw invalidParam('issue_date', `issue_date ${issueDate} is after the draft's due_date ${dueDate}: send an issue_date on or before it, or change due_date first`);
    }
    const last = Number(counter?.last ?? 0);
    parties ??= await partiesOf(ctx, String(data.client_id));
    const fields = { status: 'open', number: `INV-${String(last + 1).padStart(6, '0')}`, issue_date: issueDate, due_date: dueDate, finalized_at: now.toISOString(), ...parties };
    // At a total of zero nothing is due: paid once finalized, in a second write (contract, "Invoices").
    const zero = isZero(data);
    const { parts, after } = await step(ctx, item, fields, now, {
      ...(zero ? { record: 'pending' as const } : {}),
      parts: {
        // The number taken: on condition that no other finalize took it first.
        [COUNTER]: putPart(
          { ...keys.invoiceNumber(ctx.workspaceId), last: last + 1 },
          { condition: last === 0 ? absent() : { expression: '#last = :last', names: { '#last': 'last' }, values: { ':last': last } } },
        ),
      },
    });
    const outcome = await commit(ctx, parts);
    if (outcome === undefined) return zero ? paidAtZero(ctx, after, now) : versioned(invoice, after);
    // Another finalize took the number (or the invoice changed): read both again, after a little while.
    await new Promise((r) => setTimeout(r, Math.random() * 20 * Math.min(attempt + 1, 5)));
  }
  throw serviceUnavailable(RETRY_AFTER_SECONDS.busy, 'Invoices of this workspace are being finalized by other requests: retry after the time in Retry-After');
}
