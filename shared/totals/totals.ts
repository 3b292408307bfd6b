/**
 * Time totals, the write side (docs/decisions/0019-time-totals.md): what a time entry adds to the
 * totals it counts in, and the updates that move the totals from an entry's old state to its new
 * one, as parts of the entry's own write transaction. The totals are exact because they change
 * only in the transaction that changes the entry, conditioned on the entry's version read.
 *
 * An entry counts in two items: its client's and its (client, project)'s, of the UTC day in which
 * it starts, at the UTC quarter-hour in which it starts, in four counters: minutes, billable
 * minutes, unpriced billable minutes, and its value in rate-minutes (shared/core/money.ts).
 */
import * as keys from '../data/keys.ts';
import { type PrimaryKey, type TotalsLevel } from '../data/keys.ts';
import type { StoredTimeEntry } from '../data/stored-time-entries.ts';
import { updatePart, type TransactItem } from '../data/writes.ts';
import { rateMinutes } from '../core/money.ts';

/** The item attribute that says an entry is counted in the totals (entries written before them are not, until the backfill). */
export const COUNTED_ATTRIBUTE = 'counted';

/** The counters of one quarter-hour: `m<q>`, `b<q>`, `u<q>`, `a<q>` (q = 0..95 in the UTC day). */
export const COUNTERS = ['m', 'b', 'u', 'a'] as const;
export type Counter = (typeof COUNTERS)[number];
export const QUARTER_HOUR_MS = 900_000;
export const QUARTERS_PER_DAY = 96;

/** What totals need of an entry (as shared/data/stored-time-entries.ts decodes it). */
export type CountedEntry = Pick<StoredTimeEntry, 'client_id' | 'project_id' | 'started_at' | 'duration_minutes' | 'billable' | 'billable_rate'>;

/** The four counters an entry adds. */
export function countersOf(entry: CountedEntry): Record<Counter, bigint> {
  const minutes = BigInt(entry.duration_minutes);
  const priced = entry.billable && entry.billable_rate !== null;
  return {
    m: minutes,
    b: entry.billable ? minutes : 0n,
    u: entry.billable && entry.billable_rate === null ? minutes : 0n,
    a: priced ? rateMinutes(entry.duration_minutes, entry.billable_rate!) : 0n,
  };
}

/** The levels every counted entry is in. */
const LEVELS: readonly TotalsLevel[] = ['CLIENT', 'PROJECT'];

/** Where an entry counts: the items of its levels (its two base ones unless told), and its quarter-hour in their day. */
export function placesOf(workspaceId: string, entry: CountedEntry, levels: readonly TotalsLevel[] = LEVELS): { key: PrimaryKey; quarter: number }[] {
  const at = entry.started_at; // UTC, milliseconds: YYYY-MM-DDTHH:MM:SS.sssZ
  const quarter = Number(at.slice(11, 13)) * 4 + Math.floor(Number(at.slice(14, 16)) / 15);
  return levels.map((level) => ({
    key: keys.totals(workspaceId, level, at.slice(0, 7), keys.totalsGroup(level, entry.client_id, entry.project_id), at.slice(8, 10)),
    quarter,
  }));
}

/** What a transaction adds to totals items, by item: merged, so that each item is one part. */
export type TotalsDeltas = Map<string, { key: PrimaryKey; add: Map<string, bigint> }>;

/** Adds an entry's counters, times `sign`, to `deltas` at its items of `levels`. */
export function addEntry(deltas: TotalsDeltas, workspaceId: string, entry: CountedEntry, sign: bigint, levels?: readonly TotalsLevel[]): void {
  const counters = countersOf(entry);
  for (const { key, quarter } of placesOf(workspaceId, entry, levels)) {
    const id = `${key.PK}|${key.SK}`;
    const item = deltas.get(id) ?? { key, add: new Map<string, bigint>() };
    deltas.set(id, item);
    for (const counter of COUNTERS) {
      const name = `${counter}${quarter}`;
      item.add.set(name, (item.add.get(name) ?? 0n) + sign * counters[counter]);
    }
  }
}

/** One `ADD` update per item whose counters change, named `<prefix>0`, `<prefix>1`... */
export function deltaParts(deltas: TotalsDeltas, prefix: string): Record<string, TransactItem> {
  const parts: Record<string, TransactItem> = {};
  for (const { key, add } of deltas.values()) {
    const changed = [...add].filter(([, delta]) => delta !== 0n);
    if (changed.length === 0) continue;
    parts[`${prefix}${Object.keys(parts).length}`] = updatePart(key, {
      expression: `ADD ${changed.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      names: Object.fromEntries(changed.map(([name], i) => [`#c${i}`, name])),
      values: Object.fromEntries(changed.map(([, delta], i) => [`:c${i}`, delta])),
    });
  }
  return parts;
}

/**
 * The updates that take the totals from `before` (undefined: not counted) to `after` (undefined:
 * counts no more), one per item that changes, named `totals0`, `totals1`...: none when nothing a
 * summary shows changes.
 */
export function totalsParts(workspaceId: string, before: CountedEntry | undefined, after: CountedEntry | undefined): Record<string, TransactItem> {
  const deltas: TotalsDeltas = new Map();
  if (before) addEntry(deltas, workspaceId, before, -1n);
  if (after) addEntry(deltas, workspaceId, after, 1n);
  return deltaParts(deltas, 'totals');
}
