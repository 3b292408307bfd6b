import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type CursorBinding } from '../../shared/data/cursor.ts';
import { ApiError } from '../../shared/core/errors.ts';

const key = 'k'.repeat(32);
const binding: CursorBinding = { list: 'clients', workspaceId: 'acme', filters: { status: 'LEAD', search: undefined } };

function expectInvalid(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).param).toBe('cursor');
    return;
  }
  throw new Error('expected the cursor to be refused');
}

const position = 'CLIENT#cli_01M7YN6FC9FCH8W24JAA49XGS6';
let cursor: string;

describe('cursor', () => {
  // Built in a hook, not while collecting: a fault in the code under test then fails a test.
  beforeAll(() => {
    cursor = encodeCursor(key, binding, position);
  });

  it('is exactly this signed spelling: a change of format or signing scheme invalidates every cursor out there', () => {
    expect(cursor).toBe('Q0xJRU5UI2NsaV8wMU03WU42RkM5RkNIOFcyNEpBQTQ5WEdTNg.DkRejsK2qdmQCA0dkzRyPw');
    expect(encodeCursor(key, { ...binding, filters: { status: 'LEAD', search: 'a b' } }, position)).toBe(
      'Q0xJRU5UI2NsaV8wMU03WU42RkM5RkNIOFcyNEpBQTQ5WEdTNg.r_cpznM6334UL3Q5g2eIHg',
    );
  });

  it('says what to do when refused', () => {
    try {
      decodeCursor(key, binding, 'x.y');
      throw new Error('accepted');
    } catch (error) {
      expect((error as ApiError).message).toBe('cursor is not valid for this list: pass the next_cursor of a previous page of the same list and filters');
    }
  });

  it('round-trips the position for the same list, filters and workspace', () => {
    expect(decodeCursor(key, binding, cursor)).toBe(position);
  });

  it('ignores absent filters and their order', () => {
    expect(decodeCursor(key, { ...binding, filters: { search: undefined, status: 'LEAD' } }, cursor)).toBe(position);
    expect(decodeCursor(key, { ...binding, filters: { status: 'LEAD' } }, cursor)).toBe(position);
  });

  it('is refused on another list, workspace, filter value or key', () => {
    expectInvalid(() => decodeCursor(key, { ...binding, list: 'projects' }, cursor));
    expectInvalid(() => decodeCursor(key, { ...binding, workspaceId: 'other' }, cursor));
    expectInvalid(() => decodeCursor(key, { ...binding, filters: { status: 'ACTIVE' } }, cursor));
    expectInvalid(() => decodeCursor(key, { ...binding, filters: { status: 'LEAD', search: 'a' } }, cursor));
    expectInvalid(() => decodeCursor('x'.repeat(32), binding, cursor));
  });

  it('is refused when tampered with or malformed', () => {
    const [body, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from('CLIENT#cli_00000000000000000000000000', 'utf8').toString('base64url');
    expectInvalid(() => decodeCursor(key, binding, `${forged}.${mac}`));
    expectInvalid(() => decodeCursor(key, binding, `${body}.${mac.slice(0, -2)}AA`));
    expectInvalid(() => decodeCursor(key, binding, body));
    expectInvalid(() => decodeCursor(key, binding, `${cursor}.x`));
    expectInvalid(() => decodeCursor(key, binding, '...'));
  });

  it('is refused (400, never a 500) when its MAC has the wrong length', () => {
    const [body, mac] = cursor.split('.') as [string, string];
    const bytes = Buffer.from(mac, 'base64url');
    for (const wrong of [bytes.subarray(0, 15), Buffer.concat([bytes, Buffer.from([0])]), bytes.subarray(0, 1), Buffer.alloc(32)]) {
      expectInvalid(() => decodeCursor(key, binding, `${body}.${wrong.toString('base64url')}`));
    }
  });

  it('is refused when its MAC or body is not in canonical base64url', () => {
    const [body, mac] = cursor.split('.') as [string, string];
    // Same bytes, another spelling: padding, or the unused trailing bits of the last character set.
    expectInvalid(() => decodeCursor(key, binding, `${body}.${mac}==`));
    const last = mac.at(-1)!;
    const sibling = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('').find((c) => c !== last && Buffer.from(`${mac.slice(0, -1)}${c}`, 'base64url').equals(Buffer.from(mac, 'base64url')));
    if (sibling) expectInvalid(() => decodeCursor(key, binding, `${body}.${mac.slice(0, -1)}${sibling}`));
    expectInvalid(() => decodeCursor(key, binding, `${body}=.${mac}`));
  });

  it('signs the position and the binding: another position under the same MAC fails', () => {
    const other = encodeCursor(key, binding, `${position}X`);
    expect(other).not.toBe(cursor);
    expect(other.split('.')[1]).not.toBe(cursor.split('.')[1]);
    expect(decodeCursor(key, binding, other)).toBe(`${position}X`);
    // Binding fields are delimited: moving text between list and workspace changes the MAC.
    const a = encodeCursor(key, { list: 'ab', workspaceId: 'c', filters: {} }, position);
    expectInvalid(() => decodeCursor(key, { list: 'a', workspaceId: 'bc', filters: {} }, a));
    // A filter value with a separator in it is encoded, so it cannot pose as two filters.
    const b = encodeCursor(key, { list: 'l', workspaceId: 'w', filters: { a: 'x&b=y' } }, position);
    expectInvalid(() => decodeCursor(key, { list: 'l', workspaceId: 'w', filters: { a: 'x', b: 'y' } }, b));
  });

  it('does not show the workspace or filters in the cursor', () => {
    const decoded = Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8');
    expect(decoded).not.toContain('acme');
    expect(decoded).not.toContain('LEAD');
  });
});
