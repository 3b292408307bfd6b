/**
 * Resource ids: a type prefix and a ULID (48-bit millisecond time + 80 random bits, Crockford
 * base32). Ids therefore sort by creation time, which the key schema relies on.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const ID_PREFIX = { client: 'cli_', project: 'prj_', time_entry: 'te_', event: 'evt_', webhook_endpoint: 'we_' } as const;
export type IdKind = keyof typeof ID_PREFIX;

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

export function newId(kind: IdKind, now: Date): string {
  return sortableId(ID_PREFIX[kind], now.getTime());
}

/** `<prefix><10 chars of order><16 random chars>`: ids sort by `order` (a time, or a sequence number). */
export function sortableId(prefix: string, order: number): string {
  return `${prefix}${encodeTime(order)}${encodeRandom()}`;
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const ID_PATTERNS: Record<IdKind, RegExp> = {
  client: new RegExp(`^${ID_PREFIX.client}${ULID}$`),
  project: new RegExp(`^${ID_PREFIX.project}${ULID}$`),
  time_entry: new RegExp(`^${ID_PREFIX.time_entry}${ULID}$`),
  event: new RegExp(`^${ID_PREFIX.event}${ULID}$`),
  webhook_endpoint: new RegExp(`^${ID_PREFIX.webhook_endpoint}${ULID}$`),
};

/** True when `id` could name a resource of `kind`; anything else cannot exist, so is a 404 without a read. */
export function isWellFormedId(kind: IdKind, id: string): boolean {
  return ID_PATTERNS[kind].test(id);
}
