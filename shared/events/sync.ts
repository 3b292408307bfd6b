/**
 * The feed's sync mode (`after=`): the events after a reader's position, oldest first, never one
 * that a later read could find behind it (decision 0018, which amends 0009 and 0016).
 *
 * A Query has read-committed isolation: it may return some items of an append transaction and not
 * others, and an event's feed item and type-view copy are written after its transaction. So a
 * page may read an event whose predecessor is not there yet. Every item says who its predecessor
 * is: the feed's sequence numbers are dense; a type-view copy's `vec` holds the last sequence
 * number of every type before it; an object's change record holds its previous change (`prev`).
 * A page walks each source in order and **stops before an item whose predecessor it has not
 * seen**, unless that item was appended longer ago than GAP_BOUND_MS: past that a missing
 * predecessor can no longer be written (its stream record is gone from the stream), so it is an
 * event that expired, or one whose append failed for good. A page merged from several type views shows an event only when
 * every other view has been read up to that view's last event before it (its `vec`).
 */
import { cursorSigningKey } from '../core/config.ts';
import { decodeCursor, encodeCursor, type CursorBinding } from '../data/cursor.ts';
import { startKeyFor, type ListSource } from '../data/keys.ts';
import { readBatch } from '../data/list.ts';
import type { ListEnvelope } from '../data/paging.ts';
import { decodeVec } from './store.ts';

/**
 * How long a missing predecessor may still be written: until its stream record can no longer be
 * read, by the consumer's retries (12 h, STREAM_MAX_RECORD_AGE) or by an operator's replay of the
 * records it gave up on (the stream keeps them 24 h: docs/deploy.md), plus the consumer's longest
 * invocation (60 s, shared/api/background.ts) and an hour for clocks. test/infra/events-pipeline.test.ts
 * checks it against the stack.
 */
export const GAP_BOUND_MS = 25 * 60 * 60 * 1000;

/** How an item of a source names its predecessor. */
export type Chain = { kind: 'feed' } | { kind: 'type'; slot: number } | { kind: 'object' };

export interface SyncSource {
  source: ListSource;
  chain: Chain;
}

/** Where a source stands: the last sequence number read (every source), and for an object's view the last change read. */
export interface ChainState {
  sequence: number;
  change: string | undefined;
}

/** True when everything before `item` in its source has been read (state). */
export function follows(chain: Chain, item: Record<string, unknown>, state: ChainState): boolean {
  if (chain.kind === 'feed') return Number(item.sequence) === state.sequence + 1;
  if (chain.kind === 'type') return decodeVec(item.vec)[chain.slot]! <= state.sequence;
  return item.prev === undefined || (state.change !== undefined && `${String(item.SK).split('#')[0]}#${String(item.prev)}` <= state.change);
}

/** True when an item was appended so long ago that nothing before it can still be written. */
export const settled = (item: Record<string, unknown>, now: Date) => Number(item.appended_at) < now.getTime() - GAP_BOUND_MS;

export interface Read {
  item: Record<string, unknown>;
  source: number;
}

/**
 * Of what each source read (in its order, each item following its predecessor), the items a page
 * may show, in sequence order: it stops at the first item some other source has not been read up
 * to (merged pages), and after `limit + 1` shown items.
 */
export function walk(
  reads: readonly (readonly Record<string, unknown>[])[],
  chains: readonly Chain[],
  start: number,
  show: (item: Record<string, unknown>) => boolean,
  limit: number,
  now: Date,
): Record<string, unknown>[] {
  const frontier = reads.map((items) => (items.length === 0 ? start : Number(items[items.length - 1]!.sequence)));
  const all: Read[] = reads.flatMap((items, source) => items.map((item) => ({ item, source })));
  all.sort((a, b) => Number(a.item.sequence) - Number(b.item.sequence));
  const shown: Record<string, unknown>[] = [];
  for (const { item, source } of all) {
    if (reads.length > 1 && !settled(item, now)) {
      const vec = decodeVec(item.vec);
      const unread = chains.some((chain, other) => other !== source && chain.kind === 'type' && vec[chain.slot]! > frontier[other]!);
      if (unread) break;
    }
    if (show(item)) shown.push(item);
    if (shown.length > limit) break;
  }
  return shown;
}

/** Reads a source from `after` in order until it holds `wanted` shown items, ends, or meets an item whose predecessor is missing. */
async function readChain(
  sync: SyncSource,
  workspaceId: string,
  after: string | undefined,
  state: ChainState,
  wanted: number,
  show: (item: Record<string, unknown>) => boolean,
  now: Date,
): Promise<Record<string, unknown>[]> {
  const { source } = sync;
  const read: Record<string, unknown>[] = [];
  let shown = 0;
  let startKey: Record<string, unknown> | undefined = after === undefined ? undefined : startKeyFor(source, workspaceId, after);
  const at = { ...state };
  do {
    const batch = await readBatch(source, { ascending: true, batch: Math.max(1, wanted - shown), startKey });
    for (const item of batch.items) {
      if (!follows(sync.chain, item, at) && !settled(item, now)) return read;
      read.push(item);
      at.sequence = Number(item.sequence);
      at.change = String(item.SK);
      if (show(item)) shown++;
    }
    startKey = batch.startKey;
  } while (shown < wanted && startKey !== undefined);
  return read;
}

export interface SyncPageRequest<T> {
  binding: CursorBinding;
  workspaceId: string;
  limit: number;
  cursor: string | undefined;
  sources: readonly SyncSource[];
  /** The first page's start: after this position (a sort key of the sources), which stands at this sequence number. */
  start: { position: string | undefined; sequence: number };
  /** The sequence number a cursor's position stands at (an event's sort key; an object's change needs none). */
  sequenceOf: (position: string) => number;
  show: (item: Record<string, unknown>) => boolean;
  toResource: (item: Record<string, unknown>) => T;
  now: Date;
}

/** One page of sync mode. `has_more` is true when more can be read now; a page held back by a missing predecessor ends with false (poll again). */
export async function syncPage<T>(req: SyncPageRequest<T>): Promise<ListEnvelope<T>> {
  // The key (read once per execution environment, config.ts) beside the page's reads: a page that
  // neither takes nor gives a cursor never waits for it.
  const key = cursorSigningKey();
  key.catch(() => undefined);
  const position = req.cursor === undefined ? req.start.position : decodeCursor(await key, req.binding, req.cursor);
  const sequence = req.cursor === undefined ? req.start.sequence : req.sequenceOf(position!);
  const state: ChainState = { sequence, change: position };
  const reads = await Promise.all(req.sources.map((s) => readChain(s, req.workspaceId, position, state, req.limit + 1, req.show, req.now)));
  const shown = walk(
    reads,
    req.sources.map((s) => s.chain),
    sequence,
    req.show,
    req.limit,
    req.now,
  );
  const items = shown.slice(0, req.limit);
  const hasMore = shown.length > req.limit;
  const last = items[items.length - 1];
  return {
    object: 'list',
    data: items.map(req.toResource),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(await key, req.binding, String(last.SK)) : null,
  };
}
