/**
 * List cursors: opaque, HMAC-signed, and bound to the list, its filters and the workspace.
 * The cursor carries only the position (the sort key of the last item returned); the binding
 * is in the signature, so a cursor used on another list, filter or workspace fails to verify.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParam } from '../core/errors.ts';

export interface CursorBinding {
  list: string;
  workspaceId: string;
  /** The filters that shape the list (not the page size, which may change between pages). */
  filters: Record<string, string | undefined>;
}

const VERSION = 'v1';

function bindingString(b: CursorBinding): string {
  const filters = Object.keys(b.filters)
    .sort()
    .filter((k) => b.filters[k] !== undefined)
    .map((k) => `${k}=${encodeURIComponent(b.filters[k]!)}`)
    .join('&');
  return `${VERSION}|${b.list}|${b.workspaceId}|${filters}`;
}

function sign(key: string, binding: CursorBinding, position: string): Buffer {
  return createHmac('sha256', key).update(bindingString(binding)).update('|').update(position).digest().subarray(0, 16);
}

export function encodeCursor(key: string, binding: CursorBinding, position: string): string {
  const body = Buffer.from(position, 'utf8').toString('base64url');
  return `${body}.${sign(key, binding, position).toString('base64url')}`;
}

/** Returns the position, or throws a 400 naming `cursor` when the cursor is foreign or tampered with. */
export function decodeCursor(key: string, binding: CursorBinding, cursor: string): string {
  const invalid = () =>
    invalidParam('cursor', 'cursor is not valid for this list: pass the next_cursor of a previous page of the same list and filters');
  const [body, mac, extra] = cursor.split('.');
  if (!body || !mac || extra !== undefined) throw invalid();
  const position = Buffer.from(body, 'base64url').toString('utf8');
  const given = Buffer.from(mac, 'base64url');
  const expected = sign(key, binding, position);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  // Base64url decoding ignores unused trailing bits: only the canonical spelling is the cursor.
  if (given.toString('base64url') !== mac) throw invalid();
  if (Buffer.from(position, 'utf8').toString('base64url') !== body) throw invalid();
  return position;
}
