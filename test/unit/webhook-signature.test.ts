import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeader, verifySignature } from '../../shared/events/signature.ts';

describe('webhook signatures', () => {
  const secret = 'whsec_test-secret';
  const body = '{"object":"event","id":"evt_1"}';
  const now = new Date('2026-11-22T10:00:00.000Z');

  it('is t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>" keyed with the whole secret>', () => {
    const header = signatureHeader(secret, body, now);
    const t = Math.floor(now.getTime() / 1000);
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(header).toBe(`t=${t},v1=${expected}`);
  });

  it('verifies its own signature and refuses a changed body, a wrong secret and a stale timestamp', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(secret, body, header, { now })).toBe(true);
    expect(verifySignature(secret, `${body} `, header, { now })).toBe(false);
    expect(verifySignature('whsec_other', body, header, { now })).toBe(false);
    expect(verifySignature(secret, body, header, { now: new Date(now.getTime() + 301_000) })).toBe(false);
    expect(verifySignature(secret, body, 'v1=abc', { now })).toBe(false);
  });

  it('makes secrets with the whsec_ prefix and 256 random bits', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSecret()).not.toBe(a);
  });
});
