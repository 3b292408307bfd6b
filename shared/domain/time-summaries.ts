/**
 * Time summaries (contract, "Time summaries"), assembled from the time totals
 * (docs/decisions/0019-time-totals.md): per UTC month, one item per group and UTC day holding
 * counters per UTC quarter-hour. A period of any zone is a span of instants; the UTC days it
 * covers are read from their items (all quarter-hours of a whole day, the quarter-hours inside
 * the span of a cut one). Every zone offset in use today is a whole number of quarter-hours; a
 * historic one that is not leaves a part of a quarter-hour at the span's edges, whose entries are
 * read themselves. So a page reads the totals of the groups it passes in the months its periods
 * span, never the entries they count.
 */
import type { InferOutput } from 'valibot';
import type { TimeSummaryObject } from '../api/object-schemas.ts';
import { cursorSigningKey } from '../core/config.ts';
import { decodeCursor, encodeCursor, type CursorBinding } from '../data/cursor.ts';
import { readAll, readBatch } from '../data/list.ts';
import * as keys from '../data/keys.ts';
import { invoicedLevel, listSource, NO_PROJECT, type SpanSource, type TotalsLevel } from '../data/keys.ts';
import { storedTimeEntryOfItem } from '../data/stored-time-entries.ts';
import { isWellFormedId } from '../core/ids.ts';
import { amountOfRateMinutes } from '../core/money.ts';
import { client, project, timeEntry } from '../model/resources.ts';
import { objectOf } from '../model/objects.ts';
import { TIME_SUMMARIES, type ListTimeSummariesInput } from '../api/time-summary-schemas.ts';
import { dateOfDayNumber, dayNumberOf, periodsOf, startOfDay, type PeriodSpan } from '../core/calendar.ts';
import { COUNTERS, countersOf, QUARTER_HOUR_MS, type Counter } from '../totals/totals.ts';
import type { CallerContext } from './context.ts';
import { readItem } from './entity.ts';
import type { ListEnvelope } from '../data/paging.ts';

/** A row, as objects.ts declares it (the OpenAPI document's `TimeSummary`). */
export type TimeSummary = InferOutput<typeof TimeSummaryObject>;

const DAY_MS = 86_400_000;
type Sums = Record<Counter, bigint>;
const zero = (): Sums => ({ m: 0n, b: 0n, u: 0n, a: 0n });

export async function listTimeSummaries(ctx: CallerContext, query: ListTimeSummariesInput): Promise<ListEnvelope<TimeSummary>> {
  const from = dayNumberOf(query.from);
  const to = dayNumberOf(query.to);
  // The key (read once per execution environment, config.ts) beside the page's reads: a page that
  // neither takes nor gives a cursor never waits for it.
  const key = cursorSigningKey();
  key.catch(() => undefined);
  const binding: CursorBinding = {
    list: TIME_SUMMARIES.path,
    workspaceId: ctx.workspaceId,
    filters: {
      from: query.from,
      to: query.to,
      timezone: query.timezone,
      group_by: query.group_by,
      period: query.period,
      client_id: query.client_id,
      project_id: query.project_id,
      invoiced: query.invoiced,
    },
  };
  const position = query.cursor === undefined ? undefined : parsePosition(decodeCursor(await key, binding, query.cursor), from, to);
  const scope = await scopeOf(ctx, query);
  if (scope === undefined) return { object: 'list', data: [], has_more: false, next_cursor: null };

  const base = query.group_by === 'project' || query.project_id !== undefined ? 'PROJECT' : 'CLIENT';
  const level: TotalsLevel = query.invoiced === 'true' ? invoicedLevel(base) : base;
  // invoiced=false: the base level less the invoiced one (whose groups are among the base's), merged in group order.
  const levels: [TotalsLevel, bigint][] = query.invoiced === 'false' ? [[base, 1n], [invoicedLevel(base), -1n]] : [[level, 1n]];
  const partitions = new Map<string, Partition>();
  const partition = (at: TotalsLevel, month: string, after: string | undefined) => {
    const id = `${at}|${month}|${after ?? ''}`;
    let found = partitions.get(id);
    if (!found) partitions.set(id, (found = new Partition(keys.totalsPartition(ctx.workspaceId, at, month), scope.prefix, after)));
    return found;
  };

  // The range's last month: no month after it is read ahead.
  const lastMonth = monthOf(startOfDay(query.timezone, to) - 1);
  const rows: { day: number; group: string; sums: Sums }[] = [];
  for (const span of periodsOf(query.timezone, query.period, from, to, position?.day ?? from)) {
    const after = position !== undefined && span.firstDay === position.day ? position.group : undefined;
    const read = levels.flatMap(([at, sign]) => monthsOf(span).map((month) => ({ at, month, sign, partition: partition(at, month, after) })));
    const cursors = read.map(({ sign, partition: p }) => ({ sign, ...p.cursor() }));
    const windows = partialQuarters(span);
    let edges: Map<string, Sums> | undefined;
    for (;;) {
      const heads = await Promise.all(cursors.map((c) => c.peek()));
      const group = heads.filter((h): h is string => h !== undefined).sort()[0];
      if (group === undefined) break;
      const sums = zero();
      let atEdge = false;
      for (const [i, c] of cursors.entries()) {
        if (heads[i] !== group) continue;
        const items = await c.take();
        addDays(sums, items, span, c.sign);
        atEdge ||= countsIn(items, windows);
      }
      // Only a group with time in a partial quarter-hour can have entries in it: the entries are read then, once a span.
      if (atEdge) {
        edges ??= await edgeEntries(ctx, windows, level, scope, query.invoiced);
        for (const counter of COUNTERS) sums[counter] += edges.get(group)?.[counter] ?? 0n;
      }
      if (sums.m > 0n) rows.push({ day: span.firstDay, group, sums });
      if (rows.length > query.limit) break;
    }
    if (rows.length > query.limit) break;
    // A month with nothing in scope reads the next ones ahead: a sparse range (a decade of days is
    // 120 partitions) takes a fraction of the time, and a month with time reads nothing more.
    for (const { at, month, partition: p } of read) {
      if (p.empty) for (const next of monthsAfter(month, READ_AHEAD_MONTHS, lastMonth)) partition(at, next, undefined).prefetch();
    }
  }

  const page = rows.slice(0, query.limit);
  const currencies = await currenciesOf(ctx, [...new Set(page.map((r) => r.group.split('#')[0]!))]);
  const last = page.at(-1);
  const hasMore = rows.length > query.limit;
  return {
    object: 'list',
    data: page.map((row) => {
      const [clientId, projectPart] = row.group.split('#') as [string, string | undefined];
      const currency = currencies.get(clientId)!;
      return {
        object: 'time_summary',
        client_id: clientId,
        ...(query.group_by === 'project' ? { project_id: projectPart === NO_PROJECT ? null : projectPart! } : {}),
        ...(query.period === 'none' ? {} : { period_start: dateOfDayNumber(row.day) }),
        currency,
        minutes: Number(row.sums.m),
        billable_minutes: Number(row.sums.b),
        billable_amount: amountOfRateMinutes(row.sums.a, currency),
        unpriced_billable_minutes: Number(row.sums.u),
      };
    }),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(await key, binding, `${dateOfDayNumber(last.day)}|${last.group}`) : null,
  };
}

/** A cursor's position: the period's first date and the last group answered in it. */
function parsePosition(position: string, from: number, to: number): { day: number; group: string } {
  const [date, group] = position.split('|');
  const day = dayNumberOf(date ?? '');
  // Signed by us for this very query: anything else is a bug, not a caller's error.
  if (!group || !(day >= from && day < to)) throw new Error(`time summary cursor holds an impossible position: ${position}`);
  return { day, group };
}

/** What the filters let a page read: the sort key prefix of their groups, or undefined when they contradict (nothing to show). */
interface Scope {
  prefix: string;
  clientId?: string;
  projectId?: string;
}

async function scopeOf(ctx: CallerContext, query: ListTimeSummariesInput): Promise<Scope | undefined> {
  if (query.project_id !== undefined) {
    // Another workspace's project, or one that does not exist, has no time here: an empty list.
    const item = await readItem(ctx, project, query.project_id);
    if (!item) return undefined;
    const owner = objectOf(project, item).client_id;
    if (query.client_id !== undefined && query.client_id !== owner) return undefined;
    return { prefix: `${keys.totalsGroup('PROJECT', owner, query.project_id)}#`, clientId: owner, projectId: query.project_id };
  }
  if (query.client_id !== undefined) {
    if (!isWellFormedId(client.idPrefix, query.client_id)) return undefined;
    return { prefix: `${query.client_id}#`, clientId: query.client_id };
  }
  return { prefix: '' };
}

/** Months read ahead of a month found empty. */
const READ_AHEAD_MONTHS = 4;

/** The UTC month (`YYYY-MM`) of an instant. */
const monthOf = (instant: number) => new Date(instant).toISOString().slice(0, 7);

/** Up to `count` months after `month`, none after `last` (`YYYY-MM`, which sort as they come). */
function monthsAfter(month: string, count: number, last: string): string[] {
  const months: string[] = [];
  let [y, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  while (months.length < count) {
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
    const next = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
    if (next > last) break;
    months.push(next);
  }
  return months;
}

/** The UTC months (`YYYY-MM`) a span's instants fall in. */
function monthsOf(span: PeriodSpan): string[] {
  const months: string[] = [];
  const first = new Date(span.start);
  const last = new Date(span.end - 1);
  for (let y = first.getUTCFullYear(), m = first.getUTCMonth(); y < last.getUTCFullYear() || (y === last.getUTCFullYear() && m <= last.getUTCMonth()); m === 11 ? (y++, (m = 0)) : m++) {
    months.push(`${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}`);
  }
  return months;
}

/** Adds a group's day items to `sums`, times `sign`: the quarter-hours that start inside the span and are whole in it. */
function addDays(sums: Sums, items: Record<string, unknown>[], span: PeriodSpan, sign: bigint): void {
  for (const item of items) {
    const dayStart = dayStartOf(item);
    const low = Math.max(span.start, dayStart);
    const high = Math.min(span.end, dayStart + DAY_MS);
    if (low >= high) continue;
    const first = Math.ceil((low - dayStart) / QUARTER_HOUR_MS);
    const end = Math.floor((high - dayStart) / QUARTER_HOUR_MS);
    for (let q = first; q < end; q++) {
      for (const counter of COUNTERS) {
        const value = item[`${counter}${q}`];
        if (value !== undefined) sums[counter] += sign * BigInt(value as number | bigint);
      }
    }
  }
}

/** The parts of quarter-hours inside a span, at its edges (`[low, high)`): none unless a historic offset is not a whole number of quarter-hours. */
function partialQuarters(span: PeriodSpan): [number, number][] {
  const windows: [number, number][] = [];
  const startQuarter = Math.ceil(span.start / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  if (startQuarter > span.start) windows.push([span.start, startQuarter]);
  const endQuarter = Math.floor(span.end / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  if (endQuarter < span.end) windows.push([endQuarter, span.end]);
  return windows;
}

/** Whether a group's day items count time in a quarter-hour that holds one of the windows. */
function countsIn(items: Record<string, unknown>[], windows: [number, number][]): boolean {
  return windows.some(([low]) => {
    const quarter = Math.floor(low / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
    const dayStart = Math.floor(quarter / DAY_MS) * DAY_MS;
    const minutes = `m${(quarter - dayStart) / QUARTER_HOUR_MS}`;
    return items.some((item) => dayStartOf(item) === dayStart && item[minutes] !== undefined && BigInt(item[minutes] as number | bigint) !== 0n);
  });
}

/** The first instant of a totals item's UTC day: its month is its partition's, its day its sort key's last two digits. */
const dayStartOf = (item: Record<string, unknown>) => Date.parse(`${String(item.PK).slice(-7)}-${String(item.SK).slice(-2)}T00:00:00Z`);

/**
 * The entries of the partial quarter-hours at a span's edges, by group: read from the workspace's
 * time entry index; with `invoiced`, only those on an invoice (`true`) or on none (`false`).
 */
async function edgeEntries(ctx: CallerContext, windows: [number, number][], level: TotalsLevel, scope: Scope, invoiced: 'true' | 'false' | undefined): Promise<Map<string, Sums>> {
  const byGroup = new Map<string, Sums>();
  for (const [low, high] of windows) {
    const source = listSource(timeEntry, ctx.workspaceId, {}, { from: new Date(low).toISOString(), to: new Date(high).toISOString() });
    for await (const item of readAll(source, { batch: EDGE_BATCH })) {
      const entry = storedTimeEntryOfItem(item);
      if (invoiced !== undefined && (entry.invoice_id !== null) !== (invoiced === 'true')) continue;
      if (scope.clientId !== undefined && entry.client_id !== scope.clientId) continue;
      if (scope.projectId !== undefined && entry.project_id !== scope.projectId) continue;
      const group = keys.totalsGroup(level, entry.client_id, entry.project_id);
      const sums = byGroup.get(group) ?? zero();
      byGroup.set(group, sums);
      const counters = countersOf(entry);
      for (const counter of COUNTERS) sums[counter] += counters[counter];
    }
  }
  return byGroup;
}

/** The entries of a partial quarter-hour, read in pages of this many. */
const EDGE_BATCH = 1000;

/** A client's currency never changes: each function remembers what it read. */
const knownCurrencies = new Map<string, string>();

async function currenciesOf(ctx: CallerContext, clientIds: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await Promise.all(
    clientIds.map(async (id) => {
      const cacheKey = `${ctx.workspaceId}|${id}`;
      let currency = knownCurrencies.get(cacheKey);
      if (currency === undefined) {
        const item = await readItem(ctx, client, id);
        // Totals only count entries, and a client with entries cannot be deleted: it is there.
        if (!item) throw new Error(`time totals name client ${id}, which does not exist`);
        currency = objectOf(client, item).currency;
        knownCurrencies.set(cacheKey, currency);
      }
      found.set(id, currency);
    }),
  );
  return found;
}

/**
 * One month partition of the totals, read in sort key order from after a group (or from the
 * start), lazily and in growing pages; several cursors walk what it has read, so each period of a
 * page that falls in the month reads nothing twice.
 */
class Partition {
  private readonly items: Record<string, unknown>[] = [];
  private startKey: Record<string, unknown> | undefined;
  private done = false;
  private batch = 64;
  private readonly source: SpanSource;

  constructor(partitionKey: string, prefix: string, after: string | undefined) {
    // `<group>#~` sorts after every day of the group; `~` after every id character.
    this.source = keys.partitionRange(partitionKey, { low: after === undefined ? prefix || '!' : `${after}#~`, high: `${prefix}~` });
  }

  /** The read under way (a read ahead, or a cursor's): one at a time, so nothing is read twice. */
  private reading: Promise<void> | undefined;

  /** Read through, and nothing in it. */
  get empty(): boolean {
    return this.done && this.items.length === 0;
  }

  /** The item at `index`, reading on when it is not read yet; undefined past the end. */
  async at(index: number): Promise<Record<string, unknown> | undefined> {
    while (index >= this.items.length && !this.done) {
      this.reading ??= this.readMore().finally(() => (this.reading = undefined));
      await this.reading;
    }
    return this.items[index];
  }

  /** Starts reading the first page, if nothing is read yet; a failure surfaces to the cursor that reads it. */
  prefetch(): void {
    if (this.items.length === 0 && !this.done) this.at(0).catch(() => undefined);
  }

  private async readMore(): Promise<void> {
    const read = await readBatch(this.source, { ascending: true, batch: this.batch, startKey: this.startKey });
    this.items.push(...read.items);
    this.startKey = read.startKey;
    this.done = this.startKey === undefined;
    this.batch = Math.min(this.batch * 2, 1000);
  }

  cursor() {
    let index = 0;
    const groupAt = async (i: number) => {
      const item = await this.at(i);
      return item === undefined ? undefined : groupOf(String(item.SK));
    };
    return {
      /** The group of the next item, if any. */
      peek: () => groupAt(index),
      /** The next group's items (its days in this month). */
      take: async () => {
        const group = await groupAt(index);
        const taken: Record<string, unknown>[] = [];
        while (group !== undefined && (await groupAt(index)) === group) taken.push((await this.at(index++))!);
        return taken;
      },
    };
  }
}

/** The group of a totals item: its sort key less the day. */
const groupOf = (sortKey: string) => sortKey.slice(0, sortKey.lastIndexOf('#'));
