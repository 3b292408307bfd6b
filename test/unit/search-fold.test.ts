/**
 * Search's fold (shared/data/paging.ts) against Unicode's full case folding (CaseFolding.txt,
 * statuses C and F, in test/support/case-folding.json): two texts fold alike exactly when
 * Unicode folds them alike, after NFKC.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { foldForSearch, legacyFoldForSearch } from '../../shared/data/paging.ts';

const { mappings } = JSON.parse(readFileSync(new URL('../support/case-folding.json', import.meta.url), 'utf8')) as { mappings: Record<string, string> };
const hex = (c: string) => c.codePointAt(0)!.toString(16).toUpperCase();
/** Unicode's full case folding of a text, character by character. */
const unicodeFold = (s: string) => [...s].map((c) => mappings[hex(c)] ?? c).join('');
/** The caseless form Unicode defines with compatibility normalisation (as search compares). */
const reference = (s: string) => unicodeFold(unicodeFold(s.normalize('NFKC')).normalize('NFKC')).normalize('NFKC');

describe('search fold', () => {
  it('folds every character as Unicode\'s full case folding does', () => {
    const misses = Object.entries(mappings)
      .map(([code, folded]) => String.fromCodePoint(parseInt(code, 16)) + '→' + folded)
      .filter((pair) => {
        const [from, to] = pair.split('→') as [string, string];
        return foldForSearch(from) !== foldForSearch(to);
      });
    expect(misses).toEqual([]);
  });

  it('folds together no two characters that Unicode keeps apart', () => {
    // Every character of the fixture, and every one case mapping changes whose case pair the
    // fixture knows (ı, whose capital is I): pairs newer than the fixture's Unicode are left out.
    const known = new Set(Object.entries(mappings).flatMap(([code, folded]) => [String.fromCodePoint(parseInt(code, 16)), ...folded]));
    const characters = new Set(known);
    for (let code = 0; code <= 0x1ffff; code++) {
      const c = String.fromCodePoint(code);
      if (/\p{Changes_When_Casemapped}/u.test(c) && [c.toUpperCase(), c.toLowerCase()].some((m) => known.has(m))) characters.add(c);
    }
    const classes = new Map<string, Set<string>>();
    for (const c of characters) {
      const key = foldForSearch(c);
      classes.set(key, (classes.get(key) ?? new Set()).add(reference(c)));
    }
    const merged = [...classes.values()].filter((refs) => refs.size > 1).map((refs) => [...refs]);
    expect(merged).toEqual([]);
    expect(characters.size).toBeGreaterThan(2500);
  });

  it('matches ß, ẞ and ss; İ with i̇; ΐ with its decomposed capital; and keeps ı apart from i', () => {
    const matches = (text: string, search: string) => foldForSearch(text).includes(foldForSearch(search));
    for (const search of ['STRASSE', 'strasse', 'straße', 'STRAẞE', 'Straße']) expect(matches('Straße GmbH', search), search).toBe(true);
    const cases: [text: string, search: string, found: boolean][] = [
      ['GROẞ', 'gross', true],
      ['İstanbul Ltd', 'i̇stanbul', true],
      ['i̇stanbul', 'İSTANBUL', true],
      ['ΐ', 'Ϊ́', true],
      ['ΑΣΤΡΟ ΟΔΟΣ', 'οδος', true],
      ['Kırmızı', 'kirmizi', false],
    ];
    for (const [text, search, found] of cases) expect(matches(text, search), `${text} ~ ${search}`).toBe(found);
    expect(matches('Kırmızı', 'KIRMIZI'.toLowerCase().replaceAll('i', 'ı'))).toBe(true);
  });

  it('differs from the fold items were stored with before only where full folding changed a character', () => {
    expect(legacyFoldForSearch('Straße')).toBe('straße');
    expect(foldForSearch('Straße')).toBe('strasse');
    for (const text of ['Acme Inc', 'ΑΣΤΡΟ ΟΔΟΣ', 'Ünïcode Ｃｏ', 'İstanbul']) expect(foldForSearch(text), text).toBe(legacyFoldForSearch(text));
  });
});
