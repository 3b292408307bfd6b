/**
 * ETag and If-Match. A resource's ETag is its version, which every change increments; the
 * writes compare it in their condition expressions, never by reading first.
 */
import { invalidParam } from '../errors.ts';

export const etagOf = (version: number) => `"${version}"`;

/** A version no resource ever has: an If-Match naming nothing of ours can only fail (412). */
const NO_VERSION = -1;

/**
 * The version If-Match asks for; undefined when it is absent or `*` (any current version).
 * Weak ETags never match (If-Match compares strongly); several ETags are not supported.
 */
export function expectedVersionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const tags = ifMatch.split(',').map((t) => t.trim()).filter(Boolean);
  if (tags.length !== 1) throw invalidParam('If-Match', 'If-Match must hold one ETag, as returned by the last retrieve or update, or *');
  const match = /^"(\d{1,15})"$/.exec(tags[0]!);
  return match ? Number(match[1]) : NO_VERSION;
}
