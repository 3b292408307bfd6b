/**
 * Section 6, last rows: fairness between API clients. A well-behaved client (well under its
 * plan's rate) is measured alone, then beside a noisy client sending far over its own limit, on a
 * gateway of its own with the plans' per-client limits (the stack's gateway has them lifted) and
 * the stage's bucket lifted. The noisy client's excess is refused by its own bucket (429) before
 * it reaches the stage or a handler, so the well-behaved client's p99 and error count should not
 * move. Both load generators run in child processes (./load-child.mjs).
 */
import type { Server } from 'node:http';
import { createLocalGateway } from '../../infra/local/gateway.ts';
import { freePort } from '../../infra/local/dynamodb.ts';
import { LOCAL_INVALID_TOKEN_API_KEY } from '../../infra/local/stack.ts';
import { DEFAULT_PLAN, USAGE_PLANS } from '../../shared/core/plan-limits.ts';
import { median } from './lib/stats.ts';
import { loadOnce, type LoadRun, type LoadTarget } from './throughput.ts';

/** The well-behaved client: half its plan's rate, on one connection. */
export const QUIET_RATE = USAGE_PLANS[DEFAULT_PLAN].rateLimit / 2;
/** The noisy client: twenty times its plan's rate, on eight connections. */
export const NOISY_RATE = USAGE_PLANS[DEFAULT_PLAN].rateLimit * 20;
const NOISY_CONNECTIONS = 8;
/** What "unchanged" allows for on a shared machine: p99 beside <= p99 alone x 1.5 + 5 ms. */
export const P99_TOLERANCE = { factor: 1.5, plusMs: 5 };

export interface FairnessResult {
  plan: string;
  quietRate: number;
  noisyRate: number;
  noisyConnections: number;
  durationSeconds: number;
  alone: LoadRun[];
  beside: LoadRun[];
  noisy: LoadRun[];
  /** Medians over the runs, and summed failures (errors + timeouts + non-2xx) of the well-behaved client. */
  aloneP99: number;
  besideP99: number;
  aloneFailures: number;
  besideFailures: number;
  /** The noisy client's answers: 2xx per second and 429s in all (medians / sums). */
  noisyServedRps: number;
  noisyRefused: number;
}

export const fairnessMet = (f: FairnessResult) =>
  f.aloneFailures === 0 && f.besideFailures === 0 && f.besideP99 <= f.aloneP99 * P99_TOLERANCE.factor + P99_TOLERANCE.plusMs;

async function startGateway(repoRoot: string): Promise<{ url: string; server: Server }> {
  const server = createLocalGateway({ repoRoot, throttling: { rateLimit: 1e6, burstLimit: 1e6 }, invalidTokenKey: LOCAL_INVALID_TOKEN_API_KEY });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${port}`, server };
}

export async function runFairness(
  tokens: { quiet: string; noisy: string },
  settings: { duration: number; reps: number },
  repoRoot: string,
  log: (line: string) => void,
): Promise<FairnessResult> {
  const { url, server } = await startGateway(repoRoot);
  try {
    const target = (overallRate: number): LoadTarget => ({ name: 'list', method: 'GET', url: `${url}/api/v1/clients?limit=25`, overallRate });
    // Warm-up: handler loaded, policies cached; then let both buckets refill.
    await loadOnce(target(QUIET_RATE), tokens.quiet, 1, 1, repoRoot);
    await loadOnce(target(QUIET_RATE), tokens.noisy, 1, 1, repoRoot);
    const alone: LoadRun[] = [];
    const beside: LoadRun[] = [];
    const noisy: LoadRun[] = [];
    for (let rep = 0; rep < settings.reps; rep++) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      alone.push(await loadOnce(target(QUIET_RATE), tokens.quiet, 1, settings.duration, repoRoot));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const [q, n] = await Promise.all([
        loadOnce(target(QUIET_RATE), tokens.quiet, 1, settings.duration, repoRoot),
        loadOnce(target(NOISY_RATE), tokens.noisy, NOISY_CONNECTIONS, settings.duration, repoRoot),
      ]);
      beside.push(q);
      noisy.push(n);
      log(`  fairness: round ${rep + 1}/${settings.reps} done`);
    }
    const failures = (runs: LoadRun[]) => runs.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0);
    return {
      plan: DEFAULT_PLAN,
      quietRate: QUIET_RATE,
      noisyRate: NOISY_RATE,
      noisyConnections: NOISY_CONNECTIONS,
      durationSeconds: settings.duration,
      alone,
      beside,
      noisy,
      aloneP99: median(alone.map((r) => r.p99)),
      besideP99: median(beside.map((r) => r.p99)),
      aloneFailures: failures(alone),
      besideFailures: failures(beside),
      noisyServedRps: median(noisy.map((r) => (r.requests - r.non2xx) / settings.duration)),
      noisyRefused: noisy.reduce((sum, r) => sum + r.non2xx, 0),
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
