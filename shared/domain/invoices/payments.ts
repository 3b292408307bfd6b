/**
 * An invoice's payments (contract, "Invoice items, taxes and payments"; decision 0030). Each
 * record or delete is one transaction: the payment's Put (or Delete, with its deletion record)
 * and the invoice's update on the version read, which moves `amount_paid`, `amount_due` and the
 * status, and keeps beside `data` each payment's `paid_at` by id (`payments`). Two payments, or a
 * payment and a delete, never both commit on one version: the loser reads the invoice again and
 * is judged against the balance the winner left, so `amount_paid` is the sum of its payments and
 * never above `total`.
 */
import { invalidParam, notFound, preconditionFailed, ApiError, ERROR_TYPES } from '../../core/errors.ts';
import { isWellFormedId, newId } from '../../core/ids.ts';
import { LIMITS } from '../../core/field-limits.ts';
import { formatMinor, minorOfAmount, minorOfDecimal, minorUnitDigits } from '../../core/money.ts';
import { balanceAfter } from './amounts.ts';
import { dayNumberOf, startOfDay } from '../../core/calendar.ts';
import * as keys from '../../data/keys.ts';
import { absent, dataOfItem, deletePart, exists, matchesVersion, putPart, versionOf } from '../../data/writes.ts';
import { deletionRecordPut } from '../../data/deletion-records.ts';
import { listPage, type ListEnvelope } from '../../data/paging.ts';
import { dataOf, objectOf, storedField, type Invoice, type ObjectOf } from '../../model/objects.ts';
import { invoice, payment } from '../../model/resources.ts';
import type { CallerContext, Deleted, IfMatch, Versioned } from '../context.ts';
import { newItem, readItem, versioned } from '../entity.ts';
import { workOf } from './common.ts';
import { commit, mustBe, mustRead, step } from './lifecycle.ts';

export type Payment = ObjectOf<typeof payment>;

/** What a payment is recorded with, beside its amount (`pay`: its amount is the balance). */
export interface PaymentTerms {
  paid_at?: string | undefined;
  method: string;
  reference?: string | null | undefined;
}

/** Beside the invoice's `data`: its payments' `paid_at`, by id (the latest is its `paid_at` once paid; their count is bounded). */
const PAYMENTS = 'payments';
const PAYMENT_PART = 'payment';
const DELETION_PART = 'deletion';

const paidAtsOf = (item: Record<string, unknown>) => ({ ...(item[PAYMENTS] as Record<string, string> | undefined) });
const minorOf = (data: Record<string, unknown>, field: 'amount_paid' | 'amount_due') => minorOfAmount(String(storedField(invoice, data, field)));

/** `amount` in minor units of `currency`: more digits after the point than the currency has is a 400 naming it. */
function minorOfPayment(amount: string, currency: string): bigint {
  const minor = minorOfDecimal(amount, currency);
  if (minor !== undefined) return minor;
  const digits = minorUnitDigits(currency);
  throw invalidParam('amount', digits === 0 ? `amount must be a whole number in ${currency}, which has no minor unit` : `amount must have at most ${digits} digits after the point in ${currency}`);
}

/** When it was paid: not after the request, nor before the earlier of the invoice's finalize and the start of its issue date. */
function paidAtOf(given: string | undefined, data: Record<string, unknown>, now: Date): string {
  const paidAt = given ?? now.toISOString();
  if (Date.parse(paidAt) > now.getTime()) throw invalidParam('paid_at', 'paid_at must not be after the time of the request');
  const timezone = String(data.timezone);
  const earliest = Math.min(Date.parse(String(data.finalized_at)), startOfDay(timezone, dayNumberOf(String(data.issue_date))));
  if (Date.parse(paidAt) < earliest) {
    throw invalidParam(
      'paid_at',
      `paid_at must not be before ${new Date(earliest).toISOString()}: the invoice's finalized_at or the start of its issue_date ${String(data.issue_date)} in ${timezone}, whichever is earlier`,
    );
  }
  return paidAt;
}

/** The invoice's fields after a payment of `delta` minor units (negative: one deleted): the rule is amounts.ts's. */
const balanceFields = (data: Record<string, unknown>, delta: bigint, paidAts: Record<string, string>) =>
  balanceAfter({ total: minorOfAmount(String(data.total)), paid: minorOf(data, 'amount_paid'), status: String(data.status), currency: String(data.currency) }, delta, Object.values(paidAts));

/**
 * Adds a payment of `minor` to the invoice as read: the payment and the invoice in one
 * transaction; undefined when the invoice changed since (read it again).
 */
async function addPayment(ctx: CallerContext, item: Record<string, unknown>, minor: bigint, terms: PaymentTerms, now: Date, keep: 'payment' | 'invoice') {
  const data = dataOfItem(item);
  const invoiceId = String(data.id);
  const paidAt = paidAtOf(terms.paid_at, data, now);
  const paidAts = paidAtsOf(item);
  if (Object.keys(paidAts).length >= LIMITS.invoicePayments) {
    throw new ApiError(
      'invalid_state',
      ERROR_TYPES.invalid_state,
      `Invoice ${invoiceId} has ${LIMITS.invoicePayments} payments, the most one invoice holds: record the rest of its balance as one payment (or delete one recorded by mistake)`,
    );
  }
  const id = newId(payment.idPrefix, now);
  const paymentData = {
    ...dataOf(payment, { id, workspaceId: ctx.workspaceId }, { amount: formatMinor(minor, String(data.currency)), paid_at: paidAt, method: terms.method, reference: terms.reference }, now.toISOString()),
    invoice_id: invoiceId,
  };
  const paymentItem = newItem(ctx, payment, paymentData);
  paidAts[id] = paidAt;
  const made = versioned(payment, paymentItem);
  const { parts, after } = await step(ctx, item, balanceFields(data, minor, paidAts), now, {
    attributes: { [PAYMENTS]: paidAts },
    parts: { [PAYMENT_PART]: putPart(paymentItem, { condition: absent() }) },
    ...(keep === 'payment' ? { reply: made } : {}),
  });
  if ((await commit(ctx, parts)) !== undefined) return undefined;
  return { payment: made, invoice: versioned(invoice, after) };
}

/** The open invoice to pay, read (404, or 409 naming its status, before anything in the body is read). */
async function openInvoice(ctx: CallerContext, invoiceId: string) {
  if (!isWellFormedId(invoice.idPrefix, invoiceId)) throw notFound(invoice.noun, invoiceId);
  return mustBe(await mustRead(ctx, invoiceId), 'open', 'only an open invoice takes payments', undefined);
}

/** Records a payment: `body` is read once the invoice is known to take one. */
export async function recordPayment(ctx: CallerContext, invoiceId: string, body: () => PaymentTerms & { amount: string }, now = new Date()): Promise<Versioned<Payment>> {
  for (;;) {
    const item = await openInvoice(ctx, invoiceId);
    const data = dataOfItem(item);
    const { amount, ...terms } = body();
    const minor = minorOfPayment(amount, String(data.currency));
    const due = minorOf(data, 'amount_due');
    if (minor === 0n) throw invalidParam('amount', 'amount must be above 0');
    if (minor > due) throw invalidParam('amount', `amount ${formatMinor(minor, String(data.currency))} is more than the invoice's amount_due, ${formatMinor(due, String(data.currency))}`);
    const done = await addPayment(ctx, item, minor, terms, now, 'payment');
    if (done) return done.payment;
  }
}

/** open → paid: one payment of the whole amount_due (an open invoice with nothing due, stored before payments, only changes status). */
export async function payInvoice(ctx: CallerContext, id: string, body: () => PaymentTerms, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<Invoice>> {
  for (;;) {
    const item = await openInvoice(ctx, id);
    if (!matchesVersion(expectedVersion, versionOf(item))) throw preconditionFailed(invoice.noun, id);
    const terms = body();
    const due = minorOf(dataOfItem(item), 'amount_due');
    if (due === 0n) {
      const { parts, after } = await step(ctx, item, { status: 'paid', paid_at: paidAtOf(terms.paid_at, dataOfItem(item), now) }, now);
      if ((await commit(ctx, parts)) === undefined) return versioned(invoice, after);
      continue;
    }
    const done = await addPayment(ctx, item, due, terms, now, 'invoice');
    if (done) return done.invoice;
  }
}

/** The invoice's payment `paymentId` as stored, given its read (404 when it names none of this invoice's). */
function paymentOf(invoiceId: string, paymentId: string, item: Record<string, unknown> | undefined) {
  if (!item || dataOfItem(item).invoice_id !== invoiceId) throw notFound(payment.noun, paymentId);
  return item;
}

export async function retrievePayment(ctx: CallerContext, invoiceId: string, paymentId: string): Promise<Versioned<Payment>> {
  return versioned(payment, paymentOf(invoiceId, paymentId, await readItem(ctx, payment, paymentId)));
}

/** Deletes a payment recorded by mistake, while its invoice is open or paid; a paid invoice with a balance again is open. */
export async function deletePayment(ctx: CallerContext, invoiceId: string, paymentId: string, expectedVersion: IfMatch, now = new Date()): Promise<Deleted> {
  for (;;) {
    const [read, item] = await Promise.all([readItem(ctx, payment, paymentId), readItem(ctx, invoice, invoiceId)]);
    const paid = paymentOf(invoiceId, paymentId, read);
    // A payment's invoice exists (an invoice with payments is open or paid, never deleted), is open or paid, and holds no work.
    const data = item ? dataOfItem(item) : {};
    if (!item || (data.status !== 'open' && data.status !== 'paid') || workOf(item)) throw new Error(`payment ${paymentId} of invoice ${invoiceId}, which is ${String(data.status)}`);
    if (!matchesVersion(expectedVersion, versionOf(paid))) throw preconditionFailed(payment.noun, paymentId);
    const paidAts = paidAtsOf(item);
    delete paidAts[paymentId];
    const deleted: Deleted = { object: payment.kind, id: paymentId, deleted: true };
    const { parts } = await step(ctx, item, balanceFields(data, -minorOfAmount(String(dataOfItem(paid).amount)), paidAts), now, {
      // The last one gone, the map goes too (a stream image of an empty map is not read back).
      ...(Object.keys(paidAts).length > 0 ? { attributes: { [PAYMENTS]: paidAts } } : { remove: [PAYMENTS] }),
      parts: {
        [PAYMENT_PART]: deletePart(keys.item(ctx.workspaceId, payment.type, paymentId), { condition: exists() }),
        [DELETION_PART]: deletionRecordPut(ctx.workspaceId, payment.type, paymentId, ctx.requestId, now),
      },
      reply: deleted,
    });
    if ((await commit(ctx, parts)) === undefined) return deleted;
  }
}

/** The invoice's payments, newest first; 404 for an invoice that does not exist (read only when the page is empty: payments name an invoice that exists). */
export async function listPayments(ctx: CallerContext, invoiceId: string, query: { limit: number; cursor?: string | undefined }): Promise<ListEnvelope<Payment>> {
  if (!isWellFormedId(invoice.idPrefix, invoiceId)) throw notFound(invoice.noun, invoiceId);
  const page = await listPage({
    binding: { list: payment.collection, workspaceId: ctx.workspaceId, filters: { invoice_id: invoiceId } },
    source: keys.listSource(payment, ctx.workspaceId, { invoice_id: invoiceId }),
    limit: query.limit,
    cursor: query.cursor,
    toResource: (item) => objectOf(payment, item),
  });
  if (page.data.length === 0 && !(await readItem(ctx, invoice, invoiceId))) throw notFound(invoice.noun, invoiceId);
  return page;
}
