import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/core/errors.ts';
import { ifMatchOf, MAX_IF_MATCH_TAGS } from '../../shared/http/conditional.ts';

describe('If-Match (RFC 9110 strong comparison)', () => {
  it('is no precondition when absent or *', () => {
    expect(ifMatchOf(undefined)).toBeUndefined();
    expect(ifMatchOf(' * ')).toBeUndefined();
  });

  it('names the exact versions of the strong tags this API issues, and no others', () => {
    expect(ifMatchOf('"1"')).toEqual([1]);
    expect(ifMatchOf('"7", "1"')).toEqual([7, 1]);
    expect(ifMatchOf('"01"')).toEqual([]);
    expect(ifMatchOf('W/"1"')).toEqual([]);
    expect(ifMatchOf('W/"1", "2",,"abc", "1e3"')).toEqual([2]);
    expect(ifMatchOf('"a,b", "3"')).toEqual([3]);
  });

  it('refuses what is not a list of entity-tags with 400 If-Match', () => {
    for (const header of ['', '1', '"1', '"1" "2"', '*, "1"', '" 1"', 'w/"1"']) {
      const error = (() => {
        try {
          ifMatchOf(header);
        } catch (e) {
          return e as ApiError;
        }
        throw new Error(`accepted ${JSON.stringify(header)}`);
      })();
      expect(error.status).toBe(400);
      expect(error.param).toBe('If-Match');
    }
  });

  it(`takes at most ${MAX_IF_MATCH_TAGS} tags (a DynamoDB IN takes 100 operands)`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `"${i}"`).join(', ');
    expect(ifMatchOf(list(MAX_IF_MATCH_TAGS))).toHaveLength(MAX_IF_MATCH_TAGS);
    expect(() => ifMatchOf(list(MAX_IF_MATCH_TAGS + 1))).toThrow(ApiError);
  });
});
