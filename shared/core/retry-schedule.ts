/**
 * The delivery retry schedule, shared by AWS (SQS visibility timeouts) and the local stack (timers):
 * attempt n+1 waits base × 2^(n-1), capped, plus up to 25 % jitter. The number of attempts is the
 * smallest that spans at least RETRY_SPAN_MS even when every jitter is zero, so the 3 days of
 * events.md hold whatever the random draws.
 */

/** Deliveries are retried for at least this long (events.md: at least 3 days). */
export const RETRY_SPAN_MS = 3 * 24 * 60 * 60 * 1000;
/** In AWS the first retry waits a minute. Locally WEBHOOK_RETRY_BASE_MS sets it. */
export const AWS_RETRY_BASE_MS = 60_000;
/** SQS's longest visibility timeout (12 h): no single wait can be longer. */
export const RETRY_CAP_MS = 12 * 60 * 60 * 1000;
/** Each wait is lengthened by a random fraction up to this, so failed receivers are not retried in lockstep. */
export const JITTER = 0.25;

export interface RetrySchedule {
  baseMs: number;
  capMs: number;
  /** Total attempts, the first included; after the last failure the delivery is dead-lettered. */
  maxAttempts: number;
}

/** The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed, without jitter. */
export function baseDelayMs(schedule: Pick<RetrySchedule, 'baseMs' | 'capMs'>, attempt: number): number {
  return Math.min(schedule.baseMs * 2 ** Math.min(attempt - 1, 52), schedule.capMs);
}

export function retrySchedule(baseMs: number, capMs = RETRY_CAP_MS, spanMs = RETRY_SPAN_MS): RetrySchedule {
  if (!(Number.isFinite(baseMs) && baseMs > 0)) throw new Error(`The first retry delay must be a positive number of ms, not ${baseMs}`);
  let total = 0;
  let attempts = 1;
  while (total < spanMs) {
    total += baseDelayMs({ baseMs, capMs }, attempts);
    attempts += 1;
  }
  return { baseMs, capMs, maxAttempts: attempts };
}

/** The jittered wait after attempt `attempt` failed; undefined when it was the last attempt. */
export function nextDelayMs(schedule: RetrySchedule, attempt: number, random: () => number = Math.random): number | undefined {
  if (attempt >= schedule.maxAttempts) return undefined;
  const base = baseDelayMs(schedule, attempt);
  return Math.min(Math.round(base * (1 + JITTER * random())), schedule.capMs);
}

/** The AWS schedule; SQS counts in whole seconds, which 60 s multiples always are. */
export const AWS_RETRY_SCHEDULE = retrySchedule(AWS_RETRY_BASE_MS);
