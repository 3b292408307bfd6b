/**
 * The time summaries' brute-force reference: computed from the entries themselves, by another
 * road than the service's (each entry's local date formatted by Intl, amounts in BigInt from the
 * rate's decimal spelling), to compare whole summaries with.
 */
import { apiFor, type Api } from './api.ts';
import type { CountedEntry } from '../../shared/totals/totals.ts';

/** An entry as the API shows it: the fields totals count (the type only; the reference computes by its own road). */
export interface EntryLike extends CountedEntry {
  /** The invoice the entry is on (`invoiced=` counts by it). */
  invoice_id?: string | null;
}

export interface SummaryQuery {
  from: string;
  to: string;
  timezone?: string;
  group_by?: 'client' | 'project';
  period?: 'none' | 'day' | 'week' | 'month';
  client_id?: string;
  project_id?: string;
  invoiced?: 'true' | 'false';
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** The date of an instant in a zone, one formatter per zone (building one is far dearer than formatting with it). */
export function localDate(instant: string | number, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) formats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(new Date(instant));
}

function periodStart(date: string, period: string, from: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  let start = date;
  if (period === 'week') start = new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  if (period === 'month') start = `${date.slice(0, 7)}-01`;
  if (period === 'none') start = from;
  return start < from ? from : start;
}

/** Rate-minutes (minutes × rate × 10^4) from the rate's decimal spelling. */
function valueOf(minutes: number, rate: number): bigint {
  const [whole, fraction = ''] = String(rate).split('.');
  return BigInt(minutes) * (BigInt(whole!) * 10_000n + BigInt(fraction.padEnd(4, '0')));
}

export function expectedAmount(rateMinutes: bigint, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits!;
  const scaled = rateMinutes * 10n ** BigInt(digits);
  const unit = 600_000n;
  let q = scaled / unit;
  const r = scaled % unit;
  if (r * 2n > unit || (r * 2n === unit && q % 2n === 1n)) q += 1n;
  const text = q.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

export function referenceSummary(entries: EntryLike[], q: SummaryQuery, currencyOf: (clientId: string) => string) {
  const zone = q.timezone ?? 'UTC';
  const period = q.period ?? 'none';
  const byProject = (q.group_by ?? 'client') === 'project';
  const rows = new Map<string, { period: string; client: string; project: string | null; m: number; b: number; u: number; a: bigint }>();
  for (const e of entries) {
    if (q.client_id && e.client_id !== q.client_id) continue;
    if (q.project_id && e.project_id !== q.project_id) continue;
    if (q.invoiced && (e.invoice_id != null) !== (q.invoiced === 'true')) continue;
    const date = localDate(e.started_at, zone);
    if (date < q.from || date >= q.to) continue;
    const start = periodStart(date, period, q.from);
    const project = byProject ? e.project_id : null;
    const key = `${start}|${e.client_id}|${project ?? ''}`;
    const row = rows.get(key) ?? { period: start, client: e.client_id, project, m: 0, b: 0, u: 0, a: 0n };
    rows.set(key, row);
    row.m += e.duration_minutes;
    if (e.billable) {
      row.b += e.duration_minutes;
      if (e.billable_rate === null) row.u += e.duration_minutes;
      else row.a += valueOf(e.duration_minutes, e.billable_rate);
    }
  }
  return [...rows.values()]
    .filter((r) => r.m > 0)
    .sort((x, y) => (x.period !== y.period ? (x.period < y.period ? -1 : 1) : x.client !== y.client ? (x.client < y.client ? -1 : 1) : (x.project ?? '') < (y.project ?? '') ? -1 : (x.project ?? '') > (y.project ?? '') ? 1 : 0))
    .map((r) => ({
      object: 'time_summary',
      client_id: r.client,
      ...(byProject ? { project_id: r.project } : {}),
      ...(period === 'none' ? {} : { period_start: r.period }),
      currency: currencyOf(r.client),
      minutes: r.m,
      billable_minutes: r.b,
      billable_amount: expectedAmount(r.a, currencyOf(r.client)),
      unpriced_billable_minutes: r.u,
    }));
}

/** Every row of a summary, walking its pages. */
export async function summaryRows(api: Api | ReturnType<typeof apiFor>, q: SummaryQuery & { limit?: number }) {
  const rows: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const params = new URLSearchParams(Object.entries({ ...q, ...(cursor ? { cursor } : {}) }).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)] as [string, string]));
    const r = await api.get(`/time_summaries?${params}`);
    if (r.status !== 200) throw new Error(`time_summaries: ${r.status} ${JSON.stringify(r.body)}`);
    rows.push(...r.body.data);
    if (!r.body.has_more) {
      if (r.body.next_cursor !== null) throw new Error('has_more false with a cursor');
      return rows;
    }
    if (r.body.data.length !== (q.limit ?? 25)) throw new Error(`a page not full: ${r.body.data.length}`);
    cursor = r.body.next_cursor;
  }
  throw new Error('too many pages');
}

/** Every time entry of the workspace, through the API. */
export async function allEntries(api: Api): Promise<EntryLike[]> {
  const out: EntryLike[] = [];
  let cursor: string | undefined;
  do {
    const r = await api.get(`/time_entries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`time_entries: ${r.status}`);
    out.push(...r.body.data);
    cursor = r.body.next_cursor ?? undefined;
  } while (cursor);
  return out;
}
