/**
 * ETag and If-Match. A resource's ETag is its version, which every change increments; the
 * writes compare it in their condition expressions, never by reading first.
 */
import { invalidParam } from '../core/errors.ts';
import type { IfMatch } from '../domain/context.ts';

export const etagOf = (version: number) => `"${version}"`;

/** Most ETags one If-Match may list: a DynamoDB IN takes at most 100 operands. */
export const MAX_IF_MATCH_TAGS = 100;

/** One entity-tag of RFC 9110 (section 8.8.3): optional weakness mark, then an opaque quoted tag. */
const LIST_MEMBER = /\s*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?\s*(,|$)/y; // empty members are allowed
/** The opaque tags this API issues: a version in canonical decimal form. */
const OUR_TAG = /^(?:0|[1-9]\d{0,14})$/;

const MALFORMED = 'If-Match must be * or a comma-separated list of ETags, each in double quotes as returned by the last retrieve or update';

/**
 * If-Match under RFC 9110's strong comparison: the versions any of whose ETags the caller names.
 * `*` (undefined) matches any existing resource; a list matches if any member is exactly the
 * current tag; weak tags, and tags this API never issues ("01", "abc"), match nothing.
 */
export function ifMatchOf(header: string | undefined): IfMatch {
  if (header === undefined || header.trim() === '*') return undefined;
  const versions = new Set<number>();
  let tags = 0;
  LIST_MEMBER.lastIndex = 0;
  for (;;) {
    const match = LIST_MEMBER.exec(header);
    if (!match) throw invalidParam('If-Match', MALFORMED);
    const [, weak, opaque, separator] = match;
    if (opaque !== undefined) {
      tags++;
      if (!weak && OUR_TAG.test(opaque)) versions.add(Number(opaque));
    }
    if (separator === '') break;
  }
  if (tags === 0) throw invalidParam('If-Match', MALFORMED);
  if (tags > MAX_IF_MATCH_TAGS) throw invalidParam('If-Match', `If-Match may list at most ${MAX_IF_MATCH_TAGS} ETags`);
  return [...versions];
}

/**
 * If-None-Match (RFC 9110, 13.1.2) against the ETag a GET would answer: true (a 304) when it is `*`
 * or lists that tag, weak or not (the weak comparison a GET's If-None-Match takes).
 */
export function noneMatchFails(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((member) => member.trim().replace(/^W\//, '') === opaque);
}
