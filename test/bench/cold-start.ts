/**
 * Section 2: cold starts. A fresh `node` process (no tsx: the bundle is plain JavaScript, as on
 * Lambda) imports a function's bundle and serves its first request against DynamoDB Local;
 * beside it, the same for the floor bundle doing the same DynamoDB calls. Function and floor
 * run side by side, one process at a time, so that drift of the machine hits both alike; the
 * ratio is the median of the per-run ratios.
 */
import { resolve } from 'node:path';
import { keys } from '../../shared/data/keys.ts';
import { runChild } from './lib/child.ts';
import { floorCallsOf, type FloorCall } from './lib/floor.ts';
import { intercept } from './lib/sdk-hooks.ts';
import { invoke, proxyEvent } from './lib/invoke.ts';
import type { Fixture, Scenario } from './scenarios.ts';
import { median, quantile } from './lib/stats.ts';

export interface ColdSample {
  /** Process start → first reply (performance.now() at the reply: its origin is the process start). */
  totalMs: number;
  /** Import of the bundle → first reply: the part the bundle decides. */
  importAndFirstMs: number;
  importMs: number;
  firstRequestMs: number;
  /** Spawn → exit, measured by the parent (includes process teardown). */
  wallMs: number;
}

export interface ColdSummary {
  samples: ColdSample[];
  totalMs: number;
  importAndFirstMs: number;
  importMs: number;
  firstRequestMs: number;
}

const CHILD = resolve(import.meta.dirname, 'cold-child.mjs');
/** A captured command's counters (the time totals' ADDs are BigInt) as the numbers they are here: small. */
const bigintAsNumber = (_key: string, value: unknown) => (typeof value === 'bigint' ? Number(value) : value);

export async function coldStartOnce(bundlePath: string, event: unknown, env: NodeJS.ProcessEnv): Promise<ColdSample> {
  const result = await runChild(process.execPath, [CHILD, bundlePath], { env: { ...env, BENCH_EVENT: JSON.stringify(event, bigintAsNumber) }, timeoutMs: 30_000 });
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  let parsed: { importStart: number; importEnd: number; replied: number; status: unknown };
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`cold start of ${bundlePath} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
  }
  const ok = typeof parsed.status === 'number' ? parsed.status >= 200 && parsed.status < 300 : parsed.status === 'policy';
  if (!ok) throw new Error(`cold start of ${bundlePath}: first request answered ${String(parsed.status)}; ${result.stderr.trim()}`);
  return {
    totalMs: parsed.replied,
    importAndFirstMs: parsed.replied - parsed.importStart,
    importMs: parsed.importEnd - parsed.importStart,
    firstRequestMs: parsed.replied - parsed.importEnd,
    wallMs: result.wallMs,
  };
}

export function summarize(samples: ColdSample[]): ColdSummary {
  return {
    samples,
    totalMs: median(samples.map((s) => s.totalMs)),
    importAndFirstMs: median(samples.map((s) => s.importAndFirstMs)),
    importMs: median(samples.map((s) => s.importMs)),
    firstRequestMs: median(samples.map((s) => s.firstRequestMs)),
  };
}

/** The calls the floor makes for one invocation: the real handler's, captured with its writes held back (`cold`: a fresh function's). */
export async function floorCallsFor(fx: Fixture, scenario: Scenario, cold = false): Promise<FloorCall[]> {
  const request = await ((cold && scenario.coldPrepare) || scenario.prepare)(fx);
  const { result, calls } = await intercept(() => invoke(fx.repoRoot, fx.caller, request));
  if (result.status >= 300) throw new Error(`${scenario.key}: capture answered ${result.status} ${JSON.stringify(result.body)}`);
  return floorCallsOf(calls);
}

export interface ColdTarget {
  name: string;
  bundle: string;
  floorBundle: string;
  /** A fresh event for one run of the function (its data written now). */
  functionEvent(): Promise<unknown>;
  /** A fresh event for one run of the floor: the calls the function makes, on data of their own. */
  floorEvent(): Promise<unknown>;
  extraEnv?: NodeJS.ProcessEnv;
}

export interface ColdResult {
  name: string;
  function: ColdSummary;
  floor: ColdSummary;
  /** Median over the runs of (function / the floor run beside it): process start → first reply. */
  ratio: number;
  /** The 25th and 75th percentiles of those per-run ratios: how much they scatter. */
  ratioQuartiles: [number, number];
  /** The same for import → first reply. */
  ratioImportAndFirst: number;
}

export interface ColdRun {
  function: ColdSample;
  floor: ColdSample;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs every target and its floor `reps` times. Each round first prepares every event (the data
 * the runs need is written then), lets DynamoDB Local settle, then starts the processes one after
 * another, function and floor side by side, alternating which goes first.
 */
export async function runColdStarts(targets: readonly ColdTarget[], env: NodeJS.ProcessEnv, reps: number, log: (line: string) => void): Promise<ColdResult[]> {
  const runs = new Map<string, ColdRun[]>(targets.map((t) => [t.name, []]));
  for (let rep = 0; rep < reps; rep++) {
    const events: { function: unknown; floor: unknown }[] = [];
    for (const target of targets) events.push({ function: await target.functionEvent(), floor: await target.floorEvent() });
    await settle(250);
    for (const [i, target] of targets.entries()) {
      const runFunction = () => coldStartOnce(target.bundle, events[i]!.function, { ...env, ...target.extraEnv });
      const runFloor = () => coldStartOnce(target.floorBundle, events[i]!.floor, env);
      let run: ColdRun;
      if (rep % 2 === 0) {
        const fn = await runFunction();
        run = { function: fn, floor: await runFloor() };
      } else {
        const floor = await runFloor();
        run = { floor, function: await runFunction() };
      }
      runs.get(target.name)!.push(run);
    }
    log(`  cold starts: round ${rep + 1}/${reps} done`);
  }
  return targets.map((t) => {
    const list = runs.get(t.name)!;
    return {
      name: t.name,
      function: summarize(list.map((r) => r.function)),
      floor: summarize(list.map((r) => r.floor)),
      // Each run's function against the floor run beside it, then the median: robust to drift between rounds.
      ratio: median(list.map((r) => r.function.totalMs / r.floor.totalMs)),
      ratioQuartiles: [quantile(list.map((r) => r.function.totalMs / r.floor.totalMs), 0.25), quantile(list.map((r) => r.function.totalMs / r.floor.totalMs), 0.75)],
      ratioImportAndFirst: median(list.map((r) => r.function.importAndFirstMs / r.floor.importAndFirstMs)),
    };
  });
}

/** A route's cold-start target: its primary scenario, fresh data for each run. */
export function routeTarget(fx: Fixture, scenario: Scenario, bundle: string, floorBundle: string): ColdTarget {
  return {
    name: scenario.operation,
    bundle,
    floorBundle,
    functionEvent: async () => proxyEvent(fx.caller, await (scenario.coldPrepare ?? scenario.prepare)(fx)),
    floorEvent: async () => ({ floorCalls: await floorCallsFor(fx, scenario, true) }),
  };
}

/** The authorizer's floor: the registry read it makes (eventually consistent GetItem). */
export function authorizerFloorCalls(tableName: string, apiClientId: string): FloorCall[] {
  return [{ command: 'Get', input: { TableName: tableName, Key: keys.apiClient(apiClientId) } }];
}
