/**
 * The local stand-in for the billing queue and its dead-letter queue (SQS in AWS; decision 0033):
 * each message's work runs as the queue's consumer would run it, a few at a time; one that fails
 * comes back after `retryMs` (SQS: the visibility timeout), and after its last receive goes to
 * the dead-letter consumer. The same work code as the Lambda functions (shared/billing/work.ts).
 * stop() starts no more work and waits a moment for the work in flight; given a state file
 * (DATA_DIR), it keeps there every message still waiting or in flight, and the next start over the
 * same DATA_DIR takes them up again, so a run under way when the stack stopped completes after it
 * starts (a message in flight at the stop is worked again: a client's work is done once anyway).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { BillingMessage } from '../../shared/domain/billing-run-messages.ts';
import { parseBillingMessage, type BillingQueue } from '../../shared/billing/run-queue.ts';
import { waitAtMost } from './wait.ts';

export interface LocalBillingQueueOptions {
  work: (message: BillingMessage, attemptId: string) => Promise<void>;
  giveUp: (message: BillingMessage) => Promise<void>;
  /** Receives of a message before it is given up on (the queue's maxReceiveCount). */
  maxReceives: number;
  /** How long a failed message waits before its next receive. */
  retryMs: number;
  /** Messages worked on at once (the consumer's concurrency). */
  concurrency?: number;
  /** Where the messages a stop leaves are kept (DATA_DIR only). */
  stateFile?: string;
  onError?: (error: unknown, message: BillingMessage) => void;
}

export interface LocalBillingQueue extends BillingQueue {
  /** Messages waiting or in flight. */
  pending(): number;
  /** Resolves once nothing waits or runs (the tests' and the benchmark's end of a run's work). */
  idle(): Promise<void>;
  stop(options?: { waitMs?: number }): Promise<void>;
}

interface Entry {
  message: BillingMessage;
  receives: number;
}

/** The messages a stop left; a file that is not ours stops the start rather than drop them silently. */
function readState(file: string): Entry[] {
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not readable JSON (${error instanceof Error ? error.message : String(error)}); move it away to start without the billing work it holds`);
  }
  const entries = Array.isArray(saved) ? (saved as Partial<Entry>[]) : [];
  const valid = entries.flatMap((entry) => {
    const message = entry && typeof entry === 'object' ? parseBillingMessage(JSON.stringify(entry.message)) : undefined;
    return message && Number.isSafeInteger(entry.receives) && entry.receives! >= 0 ? [{ message, receives: entry.receives! }] : [];
  });
  if (!Array.isArray(saved) || valid.length !== entries.length) throw new Error(`${file} holds entries that are not billing messages; move it away to start without them`);
  return valid;
}

let attempts = 0;

export function startLocalBillingQueue(options: LocalBillingQueueOptions): LocalBillingQueue {
  const concurrency = options.concurrency ?? 4;
  const ready: Entry[] = options.stateFile && existsSync(options.stateFile) ? readState(options.stateFile) : [];
  const delayed = new Map<NodeJS.Timeout, Entry>();
  const inFlight = new Map<Promise<void>, Entry>();
  let idleWaiters: (() => void)[] = [];
  let stopped = false;

  const settle = () => {
    if (ready.length > 0 || delayed.size > 0 || inFlight.size > 0) return;
    for (const resolve of idleWaiters) resolve();
    idleWaiters = [];
  };

  const pump = () => {
    while (!stopped && inFlight.size < concurrency && ready.length > 0) {
      const entry = ready.shift()!;
      const run = receive(entry).finally(() => {
        inFlight.delete(run);
        pump();
        settle();
      });
      inFlight.set(run, entry);
    }
  };

  const receive = async (entry: Entry) => {
    const receives = entry.receives + 1;
    try {
      await options.work(entry.message, `local-${++attempts}:${receives}`);
    } catch (error) {
      options.onError?.(error, entry.message);
      if (receives >= options.maxReceives) {
        await options.giveUp(entry.message).catch((failure: unknown) => options.onError?.(failure, entry.message));
        return;
      }
      const next = { message: entry.message, receives };
      const timer = setTimeout(() => {
        delayed.delete(timer);
        ready.push(next);
        pump();
        settle();
      }, options.retryMs);
      delayed.set(timer, next);
    }
  };

  /** Once stopped: the state file holds what is left, in flight included (worked again at the next start: done once anyway). */
  const save = () => {
    if (!stopped || !options.stateFile) return;
    const temporary = `${options.stateFile}.tmp`;
    writeFileSync(temporary, JSON.stringify([...ready, ...delayed.values(), ...inFlight.values()]));
    renameSync(temporary, options.stateFile);
  };

  queueMicrotask(pump); // what a stop left, once the caller has its queue
  return {
    async send(messages) {
      ready.push(...messages.map((message) => ({ message, receives: 0 })));
      pump();
      save(); // sent as the stack stops (the stream's last batch): kept for the next start
    },
    pending: () => ready.length + delayed.size + inFlight.size,
    idle: () => new Promise<void>((resolve) => {
      idleWaiters.push(resolve);
      settle();
    }),
    async stop({ waitMs = 2500 } = {}) {
      stopped = true;
      for (const timer of delayed.keys()) clearTimeout(timer);
      save();
      await waitAtMost(Promise.all(inFlight.keys()), waitMs);
    },
  };
}
