/**
 * Section 3: warm overhead. Each handler runs in this process (the repository's modules, as the
 * local gateway runs them) with the DynamoDB round trip taken out: one real invocation records
 * the raw HTTP responses DynamoDB Local gave, then every measured invocation is answered from
 * that recording by a middleware just in front of the SDK's HTTP handler (lib/sdk-hooks.ts). The
 * SDK still builds, signs, serializes and parses every request, so what is measured is all the
 * CPU the function spends per request, without the wait and without DynamoDB's own work.
 * `process.cpuUsage()` around each call; p50 and p99 over many calls, after a warm-up.
 * Beside it, the bare SDK call: the same DynamoDB calls sent directly on the same client,
 * answered from their own recording the same way; the two are measured in alternating blocks.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { routeByOperation } from '../../shared/api/routes.ts';
import { floorCallsFor } from './cold-start.ts';
import { runFloorCalls, type FloorCall } from './lib/floor.ts';
import { handlerOf, lambdaContext, proxyEvent } from './lib/invoke.ts';
import { record, rewindReplay, startReplay, stopReplay, type RecordedResponse } from './lib/sdk-hooks.ts';
import { median, quantile } from './lib/stats.ts';
import type { Fixture, Scenario } from './scenarios.ts';

export interface CpuStats {
  /** CPU milliseconds per call (user + system). */
  p50: number;
  p99: number;
  /** Wall milliseconds per call (no network: close to the CPU time). */
  wallP50: number;
  n: number;
}

export interface WarmResult {
  name: string;
  handler: CpuStats;
  sdk: CpuStats;
  /** Handler p50 minus bare SDK p50: what the handler adds around the same calls. */
  overheadP50: number;
  /** Median wall time of a real warm invocation, DynamoDB Local round trip included (for the cost model). */
  realMs: number;
}

export const WARM_SETTINGS = { warmup: 300, samples: 1000, real: 20 };

/** One call's CPU and wall milliseconds. */
async function sample(fn: () => Promise<void>): Promise<{ cpu: number; wall: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall };
}

const stats = (samples: { cpu: number; wall: number }[]): CpuStats => ({
  p50: quantile(
    samples.map((s) => s.cpu),
    0.5,
  ),
  p99: quantile(
    samples.map((s) => s.cpu),
    0.99,
  ),
  wallP50: quantile(
    samples.map((s) => s.wall),
    0.5,
  ),
  n: samples.length,
});

export interface Measured {
  name: string;
  /** One invocation; it must make the same DynamoDB calls every time. */
  call: () => Promise<void>;
}

/**
 * Records one real run of each, then measures them answered from their recordings, in
 * alternating blocks (handler, SDK, handler, SDK, ...) so that drift and the JIT's progress
 * weigh on both alike.
 */
async function measurePair(a: Measured, b: Measured, settings = WARM_SETTINGS, blocks = 10): Promise<[CpuStats, CpuStats]> {
  const recordings: RecordedResponse[][] = [];
  for (const m of [a, b]) recordings.push((await record(m.call)).responses);
  const run = async (index: 0 | 1, count: number, into?: { cpu: number; wall: number }[]) => {
    const m = index === 0 ? a : b;
    const responses = recordings[index]!;
    if (responses.length > 0) startReplay(responses);
    try {
      for (let i = 0; i < count; i++) {
        rewindReplay();
        const s = await sample(m.call);
        into?.push(s);
      }
    } finally {
      stopReplay();
    }
  };
  await run(0, settings.warmup);
  await run(1, settings.warmup);
  const samples: [{ cpu: number; wall: number }[], { cpu: number; wall: number }[]] = [[], []];
  const perBlock = Math.ceil(settings.samples / blocks);
  for (let block = 0; block < blocks; block++) {
    await run(0, perBlock, samples[0]);
    await run(1, perBlock, samples[1]);
  }
  return [stats(samples[0]), stats(samples[1])];
}

export async function warmRoute(fx: Fixture, scenario: Scenario, settings = WARM_SETTINGS): Promise<WarmResult> {
  const route = routeByOperation(scenario.operation);
  const handler = await handlerOf(fx.repoRoot, route);
  const context = lambdaContext(route.operation);
  const event = proxyEvent(fx.caller, await scenario.prepare(fx));
  const floorCalls = await floorCallsFor(fx, scenario);
  const [handlerStats, sdk] = await measurePair(
    {
      name: scenario.operation,
      call: async () => {
        const result = await handler(event, context);
        if (result.statusCode >= 300) throw new Error(`${scenario.key}: ${result.statusCode} ${result.body}`);
      },
    },
    { name: 'bare SDK', call: async () => void (await runFloorCalls(floorCalls)) },
    settings,
  );
  // Real round trips, for the durations of the cost model (fresh data for each call).
  const real: number[] = [];
  for (let i = 0; i < settings.real; i++) {
    const fresh = proxyEvent(fx.caller, await scenario.prepare(fx));
    const t0 = performance.now();
    const result = await handler(fresh, lambdaContext(route.operation));
    real.push(performance.now() - t0);
    if (result.statusCode >= 300) throw new Error(`${scenario.key}: ${result.statusCode} ${result.body}`);
  }
  return { name: scenario.operation, handler: handlerStats, sdk, overheadP50: handlerStats.p50 - sdk.p50, realMs: median(real) };
}

type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/**
 * The authorizer, warm: key set and registry entry cached (as after its first request), a
 * token verified (RS256) and a policy built on every call; beside it, its registry read.
 */
export async function warmAuthorizer(
  authorizer: Authorizer,
  event: APIGatewayTokenAuthorizerEvent,
  floorCalls: FloorCall[],
  settings = WARM_SETTINGS,
): Promise<WarmResult> {
  const call = async () => {
    const result = await authorizer(event);
    if (result.principalId === 'invalid-token') throw new Error('authorizer refused the benchmark token');
  };
  await call(); // key set fetched, registry read: cached from here on
  const [handlerStats, sdk] = await measurePair(
    { name: 'authorizer', call },
    { name: 'bare SDK', call: async () => void (await runFloorCalls(floorCalls)) },
    settings,
  );
  const real: number[] = [];
  for (let i = 0; i < settings.real; i++) {
    const t0 = performance.now();
    await call();
    real.push(performance.now() - t0);
  }
  return { name: 'authorizer', handler: handlerStats, sdk, overheadP50: handlerStats.p50 - sdk.p50, realMs: median(real) };
}
