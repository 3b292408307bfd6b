/**
 * Resource ids: a type prefix and a ULID (48-bit millisecond time + 80 random bits, Crockford
 * base32). Ids therefore sort by creation time, which the key schema relies on. Each resource's
 * prefix is declared in shared/model/resources.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID as a regular expression source (Crockford base32: no I, L, O or U). */
export const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const ULID = new RegExp(`^${ULID_PATTERN}$`);

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32]! + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! % 32];
  return out;
}

export function newId(prefix: string, now: Date): string {
  return sortableId(prefix, now.getTime());
}

/** `<prefix><10 chars of order><16 random chars>`: ids sort by `order` (a time, or an event's sequence number). */
export function sortableId(prefix: string, order: number): string {
  return `${prefix}${encodeTime(order)}${encodeRandom()}`;
}

/** The id of the one item of its kind a workspace has (its business profile): the same from the start, from the workspace's id. */
export function singletonIdOf(prefix: string, workspace: string): string {
  const digest = createHash('sha256').update(workspace).digest();
  let out = '';
  for (let i = 0; i < 26; i++) out += ALPHABET[digest[i]! % 32];
  return `${prefix}${out}`;
}

/** The order a sortable id was made with (sortableId's `order`): an event id's sequence number. */
export function orderOfId(prefix: string, id: string): number {
  let order = 0;
  for (const char of id.slice(prefix.length, prefix.length + 10)) order = order * 32 + ALPHABET.indexOf(char);
  return order;
}

/** True when `id` could name a resource with this prefix; anything else cannot exist, so is a 404 without a read. */
export function isWellFormedId(prefix: string, id: string): boolean {
  return id.startsWith(prefix) && ULID.test(id.slice(prefix.length));
}
