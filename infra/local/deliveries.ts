/**
 * The local stand-in for the delivery queue (SQS in AWS): each message waits for its time, then
 * runs the same delivery attempt as the Lambda function, and a failed attempt is retried on the
 * same schedule (first delay WEBHOOK_RETRY_BASE_MS, doubling, with jitter); past the last attempt
 * it is dead-lettered (kept in `deadLetters` and logged).
 *
 * stop() waits for attempts in flight and, given a state file (DATA_DIR), writes the messages
 * still waiting to it; the next start over the same DATA_DIR reloads them. So a delivery queued
 * before a stop is not lost.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Next } from '../../shared/events/attempt.ts';
import type { DeliveryMessage, DeliveryQueue } from '../../shared/events/queue.ts';
import type { RetrySchedule } from '../../shared/events/retry.ts';

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
  stop(): Promise<void>;
}

export function startLocalDeliveries(options: LocalDeliveriesOptions): LocalDeliveries {
  const waiting = new Map<Waiting, NodeJS.Timeout | undefined>();
  const inFlight = new Set<Promise<void>>();
  const deadLetters: Waiting[] = [];
  let stopped = false;

  const schedule = (entry: Waiting) => {
    if (stopped) {
      waiting.set(entry, undefined); // kept for the state file
      return;
    }
    const timer = setTimeout(() => {
      waiting.delete(entry);
      const run = runAttempt(entry).finally(() => inFlight.delete(run));
      inFlight.add(run);
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

  if (options.stateFile && existsSync(options.stateFile)) {
    const saved = JSON.parse(readFileSync(options.stateFile, 'utf8')) as Waiting[];
    for (const entry of saved) schedule(entry);
  }

  return {
    deadLetters,
    pending: () => waiting.size + inFlight.size,
    async send(messages) {
      for (const message of messages) schedule({ message, attempt: 1, dueAt: Date.now() });
    },
    async stop() {
      stopped = true;
      for (const timer of waiting.values()) clearTimeout(timer);
      await Promise.all([...inFlight]);
      if (options.stateFile) {
        const temporary = `${options.stateFile}.tmp`;
        writeFileSync(temporary, JSON.stringify([...waiting.keys()]));
        renameSync(temporary, options.stateFile);
      }
    },
  };
}
