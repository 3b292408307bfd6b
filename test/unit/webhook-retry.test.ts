import { describe, expect, it } from 'vitest';
import { AWS_RETRY_SCHEDULE, JITTER, RETRY_CAP_MS, RETRY_SPAN_MS, baseDelayMs, nextDelayMs, retrySchedule } from '../../shared/core/retry-schedule.ts';

const totalWait = (schedule: ReturnType<typeof retrySchedule>, random: () => number) => {
  let total = 0;
  for (let attempt = 1; ; attempt++) {
    const delay = nextDelayMs(schedule, attempt, random);
    if (delay === undefined) return { total, attempts: attempt };
    total += delay;
  }
};

describe('the retry schedule', () => {
  it('doubles from the base delay, capped at 12 hours', () => {
    const s = retrySchedule(1000);
    expect([1, 2, 3, 4].map((n) => baseDelayMs(s, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(baseDelayMs(s, 40)).toBe(RETRY_CAP_MS);
  });

  it('retries for at least 3 days even when every jitter draw is zero, and not much longer', () => {
    for (const base of [60_000, 1000, 50]) {
      const s = retrySchedule(base);
      const least = totalWait(s, () => 0);
      expect(least.total).toBeGreaterThanOrEqual(RETRY_SPAN_MS);
      expect(least.total - baseDelayMs(s, s.maxAttempts - 1)).toBeLessThan(RETRY_SPAN_MS);
      expect(least.attempts).toBe(s.maxAttempts);
    }
  });

  it('in AWS: 16 attempts, every wait a whole number of seconds within SQS visibility limits', () => {
    expect(AWS_RETRY_SCHEDULE.maxAttempts).toBe(16);
    for (let attempt = 1; attempt < AWS_RETRY_SCHEDULE.maxAttempts; attempt++) {
      const delay = nextDelayMs(AWS_RETRY_SCHEDULE, attempt, () => 0.999)!;
      expect(delay).toBeGreaterThanOrEqual(60_000);
      expect(delay).toBeLessThanOrEqual(43_200_000);
    }
  });

  it('adds up to 25 % jitter and ends after the last attempt', () => {
    const s = retrySchedule(1000);
    expect(nextDelayMs(s, 1, () => 0)).toBe(1000);
    expect(nextDelayMs(s, 1, () => 0.5)).toBe(1000 * (1 + JITTER / 2));
    expect(nextDelayMs(s, 3, () => 0.999)).toBeLessThan(4000 * (1 + JITTER));
    expect(nextDelayMs(s, s.maxAttempts, () => 0)).toBeUndefined();
  });

  it('refuses a base delay that is not a positive number', () => {
    expect(() => retrySchedule(0)).toThrow();
    expect(() => retrySchedule(Number.NaN)).toThrow();
  });
});
