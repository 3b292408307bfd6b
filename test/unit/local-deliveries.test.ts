/**
 * The local stand-in for the delivery queue (infra/local/deliveries.ts): the schedule's attempts
 * in order, dead-lettering after the last, and nothing lost across a stop: attempts in flight
 * finish, and what waits for a retry is kept in the state file and run by the next start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/temp-dirs.ts';
import { retryBaseMsFromEnv, startLocalDeliveries } from '../../infra/local/deliveries.ts';
import { AWS_RETRY_BASE_MS, RETRY_CAP_MS, nextDelayMs, retrySchedule } from '../../shared/core/retry-schedule.ts';
import type { Next } from '../../shared/webhooks/attempt.ts';

const message = { workspace_id: 'w', endpoint_id: 'we_1', event_id: 'evt_1' };
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stateFileIn = () => join(tempDir('deliveries-'), 'pending.json');
afterAll(removeTempDirs);

/** Waits for `done`; the ceiling bounds a failing wait only (generous, for a loaded machine). */
async function until(done: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await settle(5);
  }
}

describe('WEBHOOK_RETRY_BASE_MS', () => {
  it("is AWS's first delay when unset, and whole milliseconds up to the cap otherwise", () => {
    expect(retryBaseMsFromEnv(undefined)).toBe(AWS_RETRY_BASE_MS);
    expect(retryBaseMsFromEnv('')).toBe(AWS_RETRY_BASE_MS);
    expect(retryBaseMsFromEnv('1')).toBe(1);
    expect(retryBaseMsFromEnv('250')).toBe(250);
    expect(retryBaseMsFromEnv(String(RETRY_CAP_MS))).toBe(RETRY_CAP_MS);
    for (const bad of ['0', '-5', '1.5', '1e3', ' 200', 'abc', String(RETRY_CAP_MS + 1), '99999999999999999999']) {
      expect(() => retryBaseMsFromEnv(bad), bad).toThrow(/^WEBHOOK_RETRY_BASE_MS must be a whole number of milliseconds from 1 to/);
    }
  });
});

describe('the local delivery scheduler', () => {
  it('retries a failing delivery after the delays the schedule gives, and dead-letters it after the last attempt', async () => {
    const schedule = retrySchedule(5, 20, 60); // 5, 10, 20, 20, 20 ms (plus jitter): 6 attempts
    const attempts: { attempt: number; at: number }[] = [];
    const delays: number[] = [];
    const deliveries = startLocalDeliveries({
      schedule,
      attempt: async (_m, attempt, s): Promise<Next> => {
        attempts.push({ attempt, at: Date.now() });
        const delayMs = nextDelayMs(s, attempt);
        if (delayMs !== undefined) delays.push(delayMs);
        return delayMs === undefined ? { kind: 'dead_letter' } : { kind: 'retry', delayMs };
      },
    });
    await deliveries.send([message]);
    await until(() => deliveries.deadLetters.length > 0);
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: schedule.maxAttempts }, (_, i) => i + 1));
    // Each retry waited at least the delay the schedule gave after the previous attempt.
    attempts.slice(1).forEach((a, i) => expect(a.at - attempts[i]!.at).toBeGreaterThanOrEqual(delays[i]! - 2));
    expect(deliveries.deadLetters).toEqual([expect.objectContaining({ message, attempt: schedule.maxAttempts })]);
    expect(deliveries.pending()).toBe(0);
    await deliveries.stop();
  });

  it('stops after its attempts in flight finish: a delivery acknowledged during the stop is not kept, one that failed is', async () => {
    const stateFile = stateFileIn();
    const outcomes: Record<string, Next> = { evt_ok: { kind: 'delivered' }, evt_failed: { kind: 'retry', delayMs: 60_000 } };
    let finished = 0;
    const deliveries = startLocalDeliveries({
      schedule: retrySchedule(60_000),
      stateFile,
      attempt: async (m) => {
        await settle(50);
        finished += 1;
        return outcomes[m.event_id]!;
      },
    });
    await deliveries.send([
      { ...message, event_id: 'evt_ok' },
      { ...message, event_id: 'evt_failed' },
    ]);
    await settle(10); // both attempts under way
    await deliveries.stop();
    expect(finished).toBe(2);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual([expect.objectContaining({ message: { ...message, event_id: 'evt_failed' }, attempt: 2 })]);
  });

  it('keeps an attempt still in flight when its stop stops waiting, and what is queued after the stop, in the state file at every moment', async () => {
    const stateFile = stateFileIn();
    let finish!: (next: Next) => void;
    const deliveries = startLocalDeliveries({
      schedule: retrySchedule(60_000),
      stateFile,
      attempt: () => new Promise<Next>((resolve) => (finish = resolve)), // a receiver that does not answer
    });
    await deliveries.send([message]);
    await until(() => finish !== undefined);
    const stoppedAt = Date.now();
    await deliveries.stop({ waitMs: 20 });
    // Given up waiting: the attempt in flight is kept as the same attempt, due at once.
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(saved).toEqual([{ message, attempt: 1, dueAt: expect.any(Number) }]);
    expect(saved[0].dueAt).toBeGreaterThanOrEqual(stoppedAt);
    // A delivery the stream poller queues while it finishes its batch is kept too.
    const late = { ...message, event_id: 'evt_late' };
    await deliveries.send([late]);
    const ids = () => JSON.parse(readFileSync(stateFile, 'utf8')).map((e: { message: { event_id: string } }) => e.message.event_id);
    expect(ids().sort()).toEqual(['evt_1', 'evt_late']);
    // The attempt in flight ends acknowledged after all: it leaves the file.
    finish({ kind: 'delivered' });
    await until(() => ids().length === 1);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual([expect.objectContaining({ message: late, attempt: 1 })]);
  });

  it('keeps waiting deliveries across a stop in its state file, and the next start runs them when they are due', async () => {
    const stateFile = stateFileIn();
    let tried = 0;
    const first = startLocalDeliveries({ schedule: retrySchedule(1000), stateFile, attempt: async () => (tried++, { kind: 'retry', delayMs: 1000 }) });
    await first.send([message]);
    await until(() => tried === 1); // the first attempt failed; the retry waits 1 s (room for a loaded machine before the stop)
    expect(first.pending()).toBe(1);
    await first.stop();
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(saved).toEqual([expect.objectContaining({ message, attempt: 2 })]);

    const seen: { attempt: number; at: number }[] = [];
    const second = startLocalDeliveries({
      schedule: retrySchedule(1000),
      stateFile,
      attempt: async (_m, attempt) => {
        seen.push({ attempt, at: Date.now() });
        return { kind: 'delivered' };
      },
    });
    expect(second.pending()).toBe(1);
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ attempt: 2, at: expect.any(Number) }]);
    expect(seen[0]!.at).toBeGreaterThanOrEqual(saved[0].dueAt - 2); // not before it was due
    expect(second.pending()).toBe(0);
    await second.stop();
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual([]);
  });

  it('refuses to start over a state file that is not its own, rather than drop what it holds', () => {
    const attempt = async (): Promise<Next> => ({ kind: 'delivered' });
    for (const content of ['{not json', '{"message":1}', JSON.stringify([{ message: { workspace_id: 'w' }, attempt: 2, dueAt: 0 }]), JSON.stringify([{ message, attempt: 0, dueAt: 0 }])]) {
      const stateFile = stateFileIn();
      writeFileSync(stateFile, content);
      expect(() => startLocalDeliveries({ schedule: retrySchedule(5), stateFile, attempt }), content).toThrow(/move it away/);
    }
  });

  it('runs an attempt that could not run (the table failed) again, as the same attempt', async () => {
    let calls = 0;
    const seen: number[] = [];
    const errors: unknown[] = [];
    const deliveries = startLocalDeliveries({
      schedule: retrySchedule(5),
      attempt: async (_m, attempt) => {
        seen.push(attempt);
        if (++calls === 1) throw new Error('table unavailable');
        return { kind: 'delivered' };
      },
      onError: (error) => errors.push(error),
    });
    await deliveries.send([message]);
    await until(() => seen.length >= 2);
    expect(seen).toEqual([1, 1]);
    expect(errors).toHaveLength(1);
    await until(() => deliveries.pending() === 0);
    await deliveries.stop();
  });
});
