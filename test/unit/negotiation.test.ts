/**
 * Content negotiation (RFC 9110, 12.5.1; shared/http/negotiation.ts): q-values, ranges, ties to
 * the first type offered, and what cannot be read.
 */
import { describe, expect, it } from 'vitest';
import { mediaRanges, negotiate } from '../../shared/http/negotiation.ts';

const JSON_ONLY = ['application/json'];
const LIST = ['application/json', 'text/csv'];

describe('negotiate', () => {
  it('gives the first offered type without an Accept, with */*, application/* or one that names it', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', 'application/json', 'APPLICATION/JSON; charset=utf-8', 'text/html, */*;q=0.1']) {
      expect(negotiate(accept, JSON_ONLY), String(accept)).toBe('application/json');
    }
  });

  it('refuses (undefined) an Accept that allows none of the offered types, or gives them q=0', () => {
    for (const accept of ['text/csv', 'text/*', 'application/pdf', 'application/json;q=0', '*/*;q=0', 'application/*;q=0, text/csv', 'application/json;q=0, */*;q=0.5']) {
      expect(negotiate(accept, JSON_ONLY), accept).toBeUndefined();
    }
  });

  it('weighs each offered type by its most specific range, highest quality first, ties to the first offered', () => {
    expect(negotiate('text/csv', LIST)).toBe('text/csv');
    expect(negotiate('text/*', LIST)).toBe('text/csv');
    expect(negotiate('text/csv;q=0.9, application/json;q=0.8', LIST)).toBe('text/csv');
    expect(negotiate('text/csv;q=0.8, application/json;q=0.9', LIST)).toBe('application/json');
    // A tie, and */* alone: JSON.
    expect(negotiate('text/csv, application/json', LIST)).toBe('application/json');
    expect(negotiate('*/*', LIST)).toBe('application/json');
    // The exact range outweighs the wider one, whatever their order.
    expect(negotiate('*/*;q=1, application/json;q=0.1, text/csv;q=0.5', LIST)).toBe('text/csv');
    expect(negotiate('text/*;q=0.2, text/csv;q=0', LIST)).toBeUndefined();
    expect(negotiate('application/json;q=0.000, text/csv;q=0.001', LIST)).toBe('text/csv');
    // Two ranges as specific: the first one stands.
    expect(negotiate('application/json;q=0.2, application/json;q=0.9, text/csv;q=0.5', LIST)).toBe('text/csv');
  });

  it('reads a weight as RFC 9110 spells it: q=, spaces around it, 1 with up to three zeros', () => {
    expect(mediaRanges('text/csv;q=1, text/csv;q=1.000, text/csv; q = 0.5 , text/csv;Q=0.25')).toEqual([
      { type: 'text', subtype: 'csv', q: 1 },
      { type: 'text', subtype: 'csv', q: 1 },
      { type: 'text', subtype: 'csv', q: 0.5 },
      { type: 'text', subtype: 'csv', q: 0.25 },
    ]);
    // Not weights: another parameter's name ending or starting with q, a value with more in it.
    expect(mediaRanges('text/csv;xq=0, text/csv;qq=0').map((r) => r.q)).toEqual([1, 1]);
    expect(mediaRanges('text/csv;q=x0.5, text/csv;q=0.5x, text/csv;q=1.5, text/csv;q=1.0001')).toEqual([]);
    // Not tokens: a space inside the type or the subtype.
    expect(mediaRanges('te xt/csv, text/cs v')).toEqual([]);
  });

  it('leaves out ranges that cannot be read, and reads an Accept of none as */*', () => {
    expect(mediaRanges('text/csv;q=2, text/csv;q=0.5x, nonsense, */csv, a/b/c, text/csv ;q=0.5')).toEqual([{ type: 'text', subtype: 'csv', q: 0.5 }]);
    expect(negotiate('nonsense', JSON_ONLY)).toBe('application/json');
    expect(negotiate('text/csv;q=1.5', JSON_ONLY)).toBe('application/json');
  });
});
