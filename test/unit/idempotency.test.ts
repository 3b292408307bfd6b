/** The request hash an Idempotency-Key's record compares (shared/http/idempotency.ts). */
import { describe, expect, it } from 'vitest';
import { fingerprintOf, idempotencyKeyOf } from '../../shared/http/idempotency.ts';

describe('fingerprintOf', () => {
  it('is the same for the same validated request, whatever the member order', () => {
    const a = fingerprintOf('createClient', '', { company_name: 'A', company_email: 'a@a.test', tags: [{ x: 1, y: 2 }] });
    const b = fingerprintOf('createClient', '', { tags: [{ y: 2, x: 1 }], company_email: 'a@a.test', company_name: 'A' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('differs with the operation, the path id, a value, an absent member, or array order', () => {
    const base = fingerprintOf('updateClient', 'cli_1', { company_name: 'A', list: [1, 2] });
    expect(fingerprintOf('updateProject', 'cli_1', { company_name: 'A', list: [1, 2] })).not.toBe(base);
    expect(fingerprintOf('updateClient', 'cli_2', { company_name: 'A', list: [1, 2] })).not.toBe(base);
    expect(fingerprintOf('updateClient', 'cli_1', { company_name: 'B', list: [1, 2] })).not.toBe(base);
    expect(fingerprintOf('updateClient', 'cli_1', { company_name: 'A', list: [2, 1] })).not.toBe(base);
    expect(fingerprintOf('updateClient', 'cli_1', { list: [1, 2] })).not.toBe(base);
    // A member given as undefined is an absent one; null is a value.
    expect(fingerprintOf('updateClient', 'cli_1', { company_name: 'A', list: [1, 2], website: undefined })).toBe(base);
    expect(fingerprintOf('updateClient', 'cli_1', { company_name: 'A', list: [1, 2], website: null })).not.toBe(base);
    expect(fingerprintOf('deleteClient', 'cli_1', null)).not.toBe(fingerprintOf('deleteClient', 'cli_1', {}));
  });

  it('refuses a value nested deeper than any schema allows (a bug, never a body: bodies are validated first)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = [deep];
    expect(() => fingerprintOf('createClient', '', { deep })).toThrow('nested deeper');
  });
});

describe('idempotencyKeyOf', () => {
  it('takes 1 to 255 visible ASCII characters, and refuses anything else naming the header', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('a#b!~')).toBe('a#b!~');
    expect(idempotencyKeyOf('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'has space', 'k'.repeat(256), 'é']) {
      expect(() => idempotencyKeyOf(bad)).toThrow(expect.objectContaining({ param: 'Idempotency-Key', status: 400 }));
    }
  });
});
