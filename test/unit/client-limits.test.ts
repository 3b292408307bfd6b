import { describe, expect, it } from 'vitest';
import { clientLimiter, clientLimitsFromEnv, stageLimitsFromEnv } from '../../infra/local/client-limits.ts';
import { INVALID_TOKEN_PLAN, USAGE_PLANS } from '../../shared/core/plan-limits.ts';

const INVALID = 'invalid-token-key-0123456789';

describe('per-client limits of the local gateway', () => {
  it("takes each key's limits from its plan, and the invalid-token key's from the invalid-token plan", () => {
    const limiter = clientLimiter(INVALID);
    expect(limiter.limitsOf('key-a', 'default')).toEqual(USAGE_PLANS.default);
    expect(limiter.limitsOf('key-b', 'large')).toEqual(USAGE_PLANS.large);
    expect(limiter.limitsOf('key-c', undefined)).toEqual(USAGE_PLANS.default);
    expect(limiter.limitsOf('key-d', 'no-such-plan')).toEqual(USAGE_PLANS.default);
    expect(limiter.limitsOf(INVALID, 'large')).toEqual(INVALID_TOKEN_PLAN);
  });

  it('gives each key its own bucket: one spent bucket does not refuse another key', () => {
    let now = 0;
    const limiter = clientLimiter(INVALID, { override: { rateLimit: 2, burstLimit: 3 } }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.admit('a', 'default'))).toEqual([undefined, undefined, undefined, 'THROTTLED']);
    expect(limiter.admit('b', 'default')).toBeUndefined();
    now += 500; // one token back at 2 per second
    expect(limiter.admit('a', 'default')).toBeUndefined();
    expect(limiter.admit('a', 'default')).toBe('THROTTLED');
  });

  it('counts the monthly quota per calendar month (UTC), not counting throttled requests', () => {
    let now = Date.parse('2026-11-30T23:59:50.000Z');
    const limiter = clientLimiter(INVALID, { override: { rateLimit: 1, burstLimit: 2 }, monthlyQuota: 2 }, () => now);
    expect(limiter.admit('a', 'default')).toBeUndefined();
    expect(limiter.admit('a', 'default')).toBeUndefined();
    expect(limiter.admit('a', 'default')).toBe('THROTTLED');
    now += 1000;
    expect(limiter.admit('a', 'default')).toBe('QUOTA_EXCEEDED');
    now = Date.parse('2026-12-01T00:00:05.000Z');
    expect(limiter.admit('a', 'default')).toBeUndefined();
  });

  it('reads CLIENT_RATE_LIMIT and CLIENT_BURST_LIMIT, and refuses values that are no limit', () => {
    expect(clientLimitsFromEnv({})).toEqual({});
    expect(clientLimitsFromEnv({ CLIENT_RATE_LIMIT: '2.5', CLIENT_BURST_LIMIT: '10' })).toEqual({ rateLimit: 2.5, burstLimit: 10 });
    expect(() => clientLimitsFromEnv({ CLIENT_RATE_LIMIT: '0' })).toThrow(/CLIENT_RATE_LIMIT/);
    expect(() => clientLimitsFromEnv({ CLIENT_RATE_LIMIT: 'fast' })).toThrow(/CLIENT_RATE_LIMIT/);
    expect(() => clientLimitsFromEnv({ CLIENT_BURST_LIMIT: '1.5' })).toThrow(/CLIENT_BURST_LIMIT/);
    // The stage's bucket by the same rules: empty is unset, not a rate of 0.
    expect(stageLimitsFromEnv({ THROTTLE_RATE: '', THROTTLE_BURST: '300' })).toEqual({ burstLimit: 300 });
    expect(() => stageLimitsFromEnv({ THROTTLE_RATE: 'NaN' })).toThrow(/THROTTLE_RATE/);
    expect(() => stageLimitsFromEnv({ THROTTLE_RATE: '0' })).toThrow("THROTTLE_RATE must be a positive number, not '0'");
    expect(() => stageLimitsFromEnv({ THROTTLE_BURST: '2.5' })).toThrow("THROTTLE_BURST must be a positive integer, not '2.5'");
    expect(() => stageLimitsFromEnv({ THROTTLE_BURST: 'many' })).toThrow("THROTTLE_BURST must be a positive integer, not 'many'");
  });
});
