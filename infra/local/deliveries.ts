/**
 * The local stand-in for the delivery queue (SQS in AWS): each message waits for its time, then
 * runs the same delivery attempt as the Lambda function, and a failed attempt is retried on the
 * same schedule (first delay WEBHOOK_RETRY_BASE_MS, doubling, with jitter); past the last attempt
 * it is dead-lettered (kept in `deadLetters` and logged).
 *
 * stop() starts no more attempts and, given a state file (DATA_DIR), keeps in it the messages
 * still waiting or in flight, from then on; the next start over the same DATA_DIR reloads them.
 * So a delivery queued before a stop is not lost, even if the process exits before the attempts
 * in flight end (one of those may then be made again: deliveries are at least once).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Next } from '../../shared/webhooks/attempt.ts';
import { parseDeliveryMessage, type DeliveryMessage, type DeliveryQueue } from '../../shared/webhooks/queue.ts';
import { AWS_RETRY_BASE_MS, RETRY_CAP_MS, type RetrySchedule } from '../../shared/core/retry-schedule.ts';
import { waitAtMost } from './wait.ts';

/**
 * The first retry delay from WEBHOOK_RETRY_BASE_MS (whole ms, at most the 12 h cap); AWS's 60 s
 * when unset. Throws the message to print on anything else.
 */
export function retryBaseMsFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return AWS_RETRY_BASE_MS;
  const ms = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > RETRY_CAP_MS) {
    throw new Error(`WEBHOOK_RETRY_BASE_MS must be a whole number of milliseconds from 1 to ${RETRY_CAP_MS}, not '${value}'`);
  }
  return ms;
}

export interface LocalDeliveriesOptions {
  schedule: RetrySchedule;
  attempt: (message: DeliveryMessage, attempt: number, schedule: RetrySchedule) => Promise<Next>;
  /** Where waiting messages are kept across a stop (DATA_DIR only). */
  stateFile?: string;
  onError?: (error: unknown) => void;
}

interface Waiting {
  message: DeliveryMessage;
  attempt: number;
  dueAt: number;
}

export interface LocalDeliveries extends DeliveryQueue {
  readonly deadLetters: readonly Waiting[];
  /** Messages waiting or in flight. */
  pending(): number;
  /**
   * Starts no more attempts, and waits up to `waitMs` for those in flight. From its call on, the
   * state file always holds what is waiting or still in flight (the latter as the same attempt,
   * due at once), and is written again whenever that changes, so an exit at any moment loses nothing.
   */
  stop(options?: { waitMs?: number }): Promise<void>;
}

/** How long a stop waits for attempts in flight (each may take the 10 s delivery timeout). */
const STOP_WAIT_MS = 2500;

export function startLocalDeliveries(options: LocalDeliveriesOptions): LocalDeliveries {
  const waiting = new Map<Waiting, NodeJS.Timeout | undefined>();
  const inFlight = new Map<Waiting, Promise<void>>();
  const deadLetters: Waiting[] = [];
  let stopped = false;

  const save = () => {
    if (!stopped || !options.stateFile) return;
    const now = Date.now();
    const state: Waiting[] = [...waiting.keys(), ...[...inFlight.keys()].map((entry) => ({ ...entry, dueAt: now }))];
    const temporary = `${options.stateFile}.tmp`;
    writeFileSync(temporary, JSON.stringify(state));
    renameSync(temporary, options.stateFile);
  };

  const schedule = (entry: Waiting) => {
    if (stopped) {
      waiting.set(entry, undefined); // kept for the state file
      save();
      return;
    }
    const timer = setTimeout(() => {
      waiting.delete(entry);
      const run = runAttempt(entry).finally(() => {
        inFlight.delete(entry);
        save();
      });
      inFlight.set(entry, run);
    }, Math.max(0, entry.dueAt - Date.now()));
    waiting.set(entry, timer);
  };

  const runAttempt = async (entry: Waiting) => {
    let next: Next;
    try {
      next = await options.attempt(entry.message, entry.attempt, options.schedule);
    } catch (error) {
      // The table failed, not the receiver: try the same attempt again later (SQS would, too).
      options.onError?.(error);
      schedule({ ...entry, dueAt: Date.now() + options.schedule.baseMs });
      return;
    }
    if (next.kind === 'retry') schedule({ message: entry.message, attempt: entry.attempt + 1, dueAt: Date.now() + next.delayMs });
    else if (next.kind === 'dead_letter') deadLetters.push(entry);
  };

  if (options.stateFile && existsSync(options.stateFile)) for (const entry of readState(options.stateFile)) schedule(entry);

  return {
    deadLetters,
    pending: () => waiting.size + inFlight.size,
    async send(messages) {
      for (const message of messages) schedule({ message, attempt: 1, dueAt: Date.now() });
    },
    async stop({ waitMs = STOP_WAIT_MS } = {}) {
      if (!stopped) {
        stopped = true;
        for (const [entry, timer] of waiting) {
          clearTimeout(timer);
          waiting.set(entry, undefined);
        }
        save();
      }
      await waitAtMost(Promise.all(inFlight.values()), waitMs);
    },
  };
}

/** The deliveries a stop left waiting; a file that is not ours stops the start rather than drop them silently. */
function readState(file: string): Waiting[] {
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not readable JSON (${error instanceof Error ? error.message : String(error)}); move it away to start without the deliveries it holds`);
  }
  const entries = Array.isArray(saved) ? saved : [];
  const valid = entries.flatMap((entry: Partial<Waiting>) => {
    const message = entry && typeof entry === 'object' ? parseDeliveryMessage(JSON.stringify(entry.message)) : undefined;
    return message && Number.isSafeInteger(entry.attempt) && entry.attempt! >= 1 && Number.isFinite(entry.dueAt)
      ? [{ message, attempt: entry.attempt!, dueAt: entry.dueAt! }]
      : [];
  });
  if (!Array.isArray(saved) || valid.length !== entries.length) {
    throw new Error(`${file} holds entries that are not waiting deliveries; move it away to start without them`);
  }
  return valid;
}
