/** The list envelope, with cursors bound to the list, its filters and the workspace. */
import { cursorSigningKey } from '../config.ts';
import { decodeCursor, encodeCursor, type CursorBinding } from '../cursor.ts';
import { readPage, type PageRequest } from '../data/list.ts';
import { positionOf, type ListSource } from '../data/keys.ts';

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface ListRequest<T> {
  binding: CursorBinding;
  source: ListSource;
  limit: number;
  cursor: string | undefined;
  filter?: PageRequest['filter'];
  /** Where the first page starts (after this sort key) when no cursor is given; the cursor carries it on. */
  start?: string;
  ascending?: boolean;
  toResource: (item: Record<string, unknown>) => T;
  /** Known to match nothing (filters that contradict each other): the cursor is checked, nothing is read. */
  empty?: boolean;
}

export async function listPage<T>(req: ListRequest<T>): Promise<ListEnvelope<T>> {
  const key = cursorSigningKey();
  const after = req.cursor === undefined ? req.start : decodeCursor(key, req.binding, req.cursor);
  if (req.empty) return { object: 'list', data: [], has_more: false, next_cursor: null };
  const page = await readPage({
    source: req.source,
    workspaceId: req.binding.workspaceId,
    limit: req.limit,
    after,
    ...(req.filter ? { filter: req.filter } : {}),
    ...(req.ascending ? { ascending: true } : {}),
  });
  const last = page.items[page.items.length - 1];
  return {
    object: 'list',
    data: page.items.map(req.toResource),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? encodeCursor(key, req.binding, positionOf(req.source, last)) : null,
  };
}

/**
 * One page merged from several sources whose items share one sort-key order (the events feed's
 * views: each source holds a disjoint part of one sequence). Each source reads at most a page
 * past the cursor, so the page costs what a page of each source costs, whatever the other
 * sources hold. `keep` drops items the caller may not show yet (they still make `has_more`).
 */
export async function listMergedPage<T>(req: Omit<ListRequest<T>, 'source'> & { sources: readonly ListSource[]; keep?: (item: Record<string, unknown>) => boolean }): Promise<ListEnvelope<T>> {
  const key = cursorSigningKey();
  const after = req.cursor === undefined ? req.start : decodeCursor(key, req.binding, req.cursor);
  const pages = await Promise.all(
    req.sources.map((source) =>
      readPage({
        source,
        workspaceId: req.binding.workspaceId,
        limit: req.limit,
        after,
        ...(req.filter ? { filter: req.filter } : {}),
        ...(req.ascending ? { ascending: true } : {}),
      }),
    ),
  );
  const order = req.ascending ? 1 : -1;
  const merged = pages.flatMap((page) => page.items).sort((a, b) => order * (String(a.SK) < String(b.SK) ? -1 : String(a.SK) > String(b.SK) ? 1 : 0));
  const shown = req.keep ? merged.filter(req.keep) : merged;
  const items = shown.slice(0, req.limit);
  // Exact: past the page there is a shown item, or a source's next item, committed when it was read
  // (a source with an item held back by `keep` holds nothing to show after it yet).
  const keep = req.keep ?? (() => true);
  const hasMore = shown.length > req.limit || pages.some((page) => page.hasMore && page.items.every(keep));
  const last = items[items.length - 1];
  return {
    object: 'list',
    data: items.map(req.toResource),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(key, req.binding, String(last.SK)) : null,
  };
}

/** Case-insensitive substring search: items store a folded copy of the searched field. */
export const foldForSearch = (s: string) => s.normalize('NFKC').toLowerCase();
