import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type CursorBinding } from '../../shared/cursor.ts';
import { ApiError } from '../../shared/errors.ts';

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

describe('cursor', () => {
  const position = 'CLIENT#cli_01M7YN6FC9FCH8W24JAA49XGS6';
  const cursor = encodeCursor(key, binding, position);

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

  it('does not show the workspace or filters in the cursor', () => {
    const decoded = Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8');
    expect(decoded).not.toContain('acme');
    expect(decoded).not.toContain('LEAD');
  });
});
