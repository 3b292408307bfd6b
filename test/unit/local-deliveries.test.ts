import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalDeliveries } from '../../infra/local/deliveries.ts';
import { nextDelayMs, retrySchedule } from '../../shared/events/retry.ts';
import type { Next } from '../../shared/events/attempt.ts';

const message = { workspace_id: 'w', endpoint_id: 'we_1', event_id: 'evt_1' };
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the local delivery scheduler', () => {
  it('retries a failing delivery on the schedule and dead-letters it after the last attempt', async () => {
    const schedule = retrySchedule(5, 20, 60); // 5, 10, 20, 20, 20 ms: 6 attempts
    const attempts: number[] = [];
    const deliveries = startLocalDeliveries({
      schedule,
      attempt: async (_m, attempt, s): Promise<Next> => {
        attempts.push(attempt);
        const delayMs = nextDelayMs(s, attempt);
        return delayMs === undefined ? { kind: 'dead_letter' } : { kind: 'retry', delayMs };
      },
    });
    await deliveries.send([message]);
    for (let i = 0; i < 100 && deliveries.deadLetters.length === 0; i++) await settle(10);
    expect(attempts).toEqual(Array.from({ length: schedule.maxAttempts }, (_, i) => i + 1));
    expect(deliveries.deadLetters).toHaveLength(1);
    expect(deliveries.pending()).toBe(0);
    await deliveries.stop();
  });

  it('keeps waiting deliveries across a stop in its state file, and runs them after a restart', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'deliveries-')), 'pending.json');
    const first = startLocalDeliveries({ schedule: retrySchedule(60_000), stateFile, attempt: async () => ({ kind: 'retry', delayMs: 60_000 }) });
    await first.send([message]);
    await settle(20); // the first attempt fails; the retry waits a minute
    expect(first.pending()).toBe(1);
    await first.stop();
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject([{ message, attempt: 2 }]);

    const seen: number[] = [];
    const second = startLocalDeliveries({ schedule: retrySchedule(60_000), stateFile, attempt: async (_m, attempt) => (seen.push(attempt), { kind: 'delivered' }) });
    expect(second.pending()).toBe(1);
    await second.stop();
  });

  it('runs an attempt that could not run (the table failed) again, as the same attempt', async () => {
    let calls = 0;
    const seen: number[] = [];
    const deliveries = startLocalDeliveries({
      schedule: retrySchedule(5),
      attempt: async (_m, attempt) => {
        seen.push(attempt);
        if (++calls === 1) throw new Error('table unavailable');
        return { kind: 'delivered' };
      },
    });
    await deliveries.send([message]);
    for (let i = 0; i < 50 && seen.length < 2; i++) await settle(10);
    expect(seen).toEqual([1, 1]);
    await deliveries.stop();
  });
});
