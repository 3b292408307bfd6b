/**
 * Section 6: throughput of the local stack (npm start's gateway, with its throttling lifted)
 * under autocannon at concurrency 1, 8 and 64, on retrieve, list and create. The load generator
 * runs in a child process; the gateway runs the handlers in the benchmark's own process (as
 * `npm start` does, one process for all routes), over DynamoDB Local (Java): three processes on
 * two cores, so these are figures of the local stack, not of Lambda.
 */
import { resolve } from 'node:path';
import { runChild } from './lib/child.ts';
import { median } from './lib/stats.ts';

export interface LoadTarget {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  /** Requests per second over all connections (autocannon overallRate); flat out when absent. */
  overallRate?: number;
}

export interface LoadRun {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

export interface ThroughputResult {
  name: string;
  connections: number;
  runs: LoadRun[];
  /** Medians over the runs. */
  rps: number;
  p50: number;
  p99: number;
  /** Summed over the runs: errors, timeouts and non-2xx answers. */
  failures: number;
}

const CHILD = resolve(import.meta.dirname, 'load-child.mjs');

export async function loadOnce(target: LoadTarget, token: string, connections: number, duration: number, repoRoot: string): Promise<LoadRun> {
  const options = {
    url: target.url,
    method: target.method,
    headers: { authorization: `Bearer ${token}`, ...(target.body ? { 'content-type': 'application/json' } : {}) },
    body: target.body,
    connections,
    duration,
    ...(target.overallRate ? { overallRate: target.overallRate } : {}),
  };
  const result = await runChild(process.execPath, [CHILD], {
    env: { PATH: process.env.PATH ?? '', BENCH_LOAD: JSON.stringify(options) },
    timeoutMs: (duration + 30) * 1000,
    cwd: repoRoot,
  });
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as LoadRun;
  } catch {
    throw new Error(`autocannon failed (exit ${result.code}): ${result.stderr.trim()}`);
  }
}

export async function runThroughput(
  targets: readonly LoadTarget[],
  token: string,
  settings: { connections: readonly number[]; duration: number; reps: number; warmupSeconds: number },
  repoRoot: string,
  log: (line: string) => void,
): Promise<ThroughputResult[]> {
  for (const target of targets) await loadOnce(target, token, 8, settings.warmupSeconds, repoRoot); // handlers loaded, JIT warm
  const runs = new Map<string, LoadRun[]>();
  for (let rep = 0; rep < settings.reps; rep++) {
    for (const target of targets) {
      for (const connections of settings.connections) {
        const key = `${target.name}@${connections}`;
        const run = await loadOnce(target, token, connections, settings.duration, repoRoot);
        runs.set(key, [...(runs.get(key) ?? []), run]);
      }
    }
    log(`  throughput: round ${rep + 1}/${settings.reps} done`);
  }
  return targets.flatMap((target) =>
    settings.connections.map((connections) => {
      const list = runs.get(`${target.name}@${connections}`)!;
      return {
        name: target.name,
        connections,
        runs: list,
        rps: median(list.map((r) => r.rps)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
        failures: list.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
      };
    }),
  );
}
