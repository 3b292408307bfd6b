/** The list envelope, with cursors bound to the list, its filters and the workspace. */
import { cursorSigningKey } from '../core/config.ts';
import { decodeCursor, encodeCursor, type CursorBinding } from './cursor.ts';
import { readPage, type PageRequest } from './list.ts';
import { positionOf, type ListSource } from './keys.ts';

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

export function listPage<T>(req: ListRequest<T>): Promise<ListEnvelope<T>> {
  return listMergedPage({ ...req, sources: [req.source] });
}

/**
 * One page merged from several sources whose items share one sort-key order (the events feed's
 * views: each source holds a disjoint part of one sequence); one source is an ordinary list.
 * Each source reads at most a page past the cursor, so the page costs what a page of each source
 * costs, whatever the other sources hold. `keep` drops items the caller may not show yet (they
 * still make `has_more`).
 */
export async function listMergedPage<T>(
  req: Omit<ListRequest<T>, 'source'> & { sources: readonly ListSource[]; keep?: (item: Record<string, unknown>) => boolean },
): Promise<ListEnvelope<T>> {
  // The key (read once per execution environment, config.ts) comes beside the page's reads: a
  // page that neither takes nor gives a cursor never waits for it, nor fails with it.
  const key = cursorSigningKey();
  key.catch(() => undefined);
  const after = req.cursor === undefined ? req.start : decodeCursor(await key, req.binding, req.cursor);
  if (req.empty) return { object: 'list', data: [], has_more: false, next_cursor: null };
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
  // One source is in its own order already (an index's, which the base sort key need not follow).
  const merged =
    pages.length === 1
      ? pages[0]!.items
      : pages.flatMap((page) => page.items).sort((a, b) => order * (String(a.SK) < String(b.SK) ? -1 : String(a.SK) > String(b.SK) ? 1 : 0));
  const keep = req.keep ?? (() => true);
  const shown = merged.filter(keep);
  const items = shown.slice(0, req.limit);
  // Exact: past the page there is a shown item, or a source's next item, committed when it was read
  // (a source with an item held back by `keep` holds nothing to show after it yet).
  const hasMore = shown.length > req.limit || pages.some((page) => page.hasMore && page.items.every(keep));
  const last = items[items.length - 1];
  return {
    object: 'list',
    data: items.map(req.toResource),
    has_more: hasMore,
    // Merged sources share the base sort key as their position (the feed's views).
    next_cursor: hasMore && last ? encodeCursor(await key, req.binding, positionOf(req.sources[0]!, last)) : null,
  };
}

const lowerCase = (s: string) => s.normalize('NFKC').toLowerCase();

/**
 * Case-insensitive substring search: items store a folded copy of the searched field (`search_text`).
 * The fold is Unicode's full case folding, after NFKC: lower, upper and lower again turns ß and ẞ
 * into `ss`, `ΐ` and `Ϊ́` into one form, `ᲀ` into `в`; every sigma is σ (lower-casing writes Σ as ς
 * at a word's end). The dotless ı keeps itself (upper-casing would make it `i`, which folding does
 * not). Checked code point by code point against Unicode's CaseFolding (test/unit/search-fold.test.ts).
 */
export const foldForSearch = (s: string) =>
  lowerCase(s)
    .replace(/[^ı]+/g, (run) => run.toUpperCase().toLowerCase())
    .normalize('NFKC')
    .replaceAll('ς', 'σ');

/**
 * The fold items were stored with before full case folding (ß stayed ß): a search also looks for
 * the text folded this way where it differs, so an item not renamed since still matches all it
 * matched then (docs/api.md, search).
 */
export const legacyFoldForSearch = (s: string) => lowerCase(s).replaceAll('ς', 'σ');
