import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type TestProjectInlineConfiguration } from 'vitest/config';
import { IsolatedFirstSequencer } from './test/support/sequencer.ts';

/**
 * What `npm run mutation` (StrykerJS, stryker.config.json) runs against each mutant: the unit
 * tests of the pure modules it mutates. Only defined for it (VITEST_MUTATION=1), so `npm test`
 * does not run these files twice.
 */
export const MUTATION_TESTS = [
  'test/unit/cursor.test.ts',
  'test/unit/keys.test.ts',
  'test/unit/policy.test.ts',
  'test/unit/schemas.test.ts',
  'test/unit/conditional.test.ts',
  'test/unit/registry.test.ts',
  'test/unit/entity.test.ts',
  'test/unit/fields.test.ts',
  'test/unit/load.test.ts',
  'test/unit/money.test.ts',
  'test/unit/invoice-amounts.test.ts',
  'test/unit/invoice-fee-lines.test.ts',
  'test/unit/invoice-fees.test.ts',
  'test/unit/invoice-lock.test.ts',
  'test/unit/time-entry-move.test.ts',
  'test/unit/csv.test.ts',
  'test/unit/negotiation.test.ts',
] as const;

const MUTATION_PROJECT: TestProjectInlineConfiguration = { extends: true, test: { name: 'mutation', include: [...MUTATION_TESTS] } };

/**
 * Test files that change process-wide state (the environment, module or SDK client mocks, fake
 * clocks, global spies, the log sink) run each in a fresh worker. The others share workers
 * (isolate: false), which spares a worker start and a fresh import per file: about a fifth of
 * the unit and integration files' CPU. Found by what a file calls, so a new file is placed without
 * a list to keep.
 */
const CHANGES_PROCESS_STATE =
  /vi\.(mock|doMock|useFakeTimers|setSystemTime|stubGlobal|stubEnv|resetModules)\(|mockClient\(|mockWrites\(|spyOn\((process|console|globalThis)\b|redirectLogs\(|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|Object\.assign\(process\.env|delete process\.env/;
/** The test files of `dir` (relative to the repository) that change process-wide state. */
function statefulFiles(dir: string): string[] {
  const root = fileURLToPath(new URL(`${dir}/`, import.meta.url));
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && CHANGES_PROCESS_STATE.test(readFileSync(root + file, 'utf8')))
    .map((file) => `${dir}/${file}`);
}

type ProjectTest = NonNullable<TestProjectInlineConfiguration['test']>;

/**
 * `name` (the files of `dir` that share workers) and `name`-isolated (the others, each in a fresh
 * worker thread), with the same settings; the files of `forks` run each in a child process
 * instead (`name`-isolated-forks).
 */
function sharedAndIsolated(
  name: string,
  dir: string,
  settings: ProjectTest,
  { shared = {}, forks = [] }: { shared?: ProjectTest; forks?: string[] } = {},
): TestProjectInlineConfiguration[] {
  const stateful = statefulFiles(dir).filter((file) => !forks.includes(file));
  const forked: TestProjectInlineConfiguration = { extends: true, test: { ...settings, name: `${name}-isolated-forks`, include: forks, pool: 'forks' } };
  return [
    { extends: true, test: { ...settings, ...shared, name, include: [`${dir}/**/*.test.ts`], exclude: [...stateful, ...forks], isolate: false } },
    { extends: true, test: { ...settings, name: `${name}-isolated`, include: stateful } },
    ...(forks.length > 0 ? [forked] : []),
  ];
}

/**
 * The AWS SDK (`@aws-sdk/*`, `@smithy/*`) resolved as Node resolves it (its CommonJS build) rather
 * than as Vite does (its `module` build, dist-es, which Node cannot load as it stands): vitest then
 * ran some 560 of the SDK's modules through its module runner in each project's global setup and in
 * each test file's worker, instead of leaving them to Node. Measured on a 2-core machine: each
 * project setup that imports the DynamoDB client took 2 to 3 s of vitest's main thread, and now
 * 0.1 s; the first test file starts at 27 s instead of 35 s. Whole runs vary too much there
 * (308 to 316 s with it, 299 to 314 s without) to show more.
 */
const AWS_SDK_AS_NODE_LOADS_IT: Plugin = {
  name: 'aws-sdk-as-node-loads-it',
  enforce: 'pre',
  resolveId(source, importer) {
    if (!/^@(aws-sdk|smithy)\//.test(source)) return null;
    return createRequire(importer && isAbsolute(importer) ? importer : import.meta.url).resolve(source);
  },
};

const ENV = { AWS_LAMBDA_LOG_LEVEL: 'WARN', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

export default defineConfig({
  plugins: [AWS_SDK_AS_NODE_LOADS_IT],
  test: {
    env: ENV,
    // Worker threads, not child processes: the same isolation per file (a fresh module graph and
    // environment), without a Node process per worker. Measured on fresh clones of an idle 2-core
    // machine (2026-11-28): 450 and 461 core-seconds, 238 s and 243 s, where child processes took
    // 493 core-seconds and 264 s (250 to 278 s over the runs before).
    pool: 'threads',
    sequence: { sequencer: IsolatedFirstSequencer },
    projects: [
      // The projects' files share one pool of three workers (one group: every project states the
      // same maxWorkers), so the CPU-bound infra files (synthesis, esbuild, cfn-guard) overlap with
      // the integration files, which mostly wait on the shared stack: 263 s instead of 287 s with
      // two, on an idle 2-core machine (2026-11-26, fresh clone). Two phases (the infra files
      // first, then the others) did no better: alternate runs without a duration cache took 260.8
      // and 304.7 s in one phase, 274.2 and 279.1 s in two, the same wall time per core-second
      // (2026-12-02); the machine's speed varied more than that.
      // Generous ceilings (vitest's default is 5 s): a failing test only; a loaded machine must not fail a correct run.
      // The unit files that share workers include the type check (tsc), which `npm test` starts first.
      ...sharedAndIsolated('unit', 'test/unit', { testTimeout: 60_000, hookTimeout: 60_000, maxWorkers: 3, sequence: { groupOrder: 1 } }, { shared: { globalSetup: ['test/support/typecheck.ts'] } }),
      ...(process.env.VITEST_MUTATION === '1' ? [MUTATION_PROJECT] : []),
      // Both integration projects share one local stack (test/support/global-setup.ts).
      ...sharedAndIsolated('integration', 'test/integration', {
        globalSetup: ['test/support/global-setup.ts'],
        // Ceilings for a failing test only (waits poll their condition): generous, so that a
        // loaded machine (a second suite beside this one) does not fail a correct run.
        testTimeout: 120_000,
        hookTimeout: 180_000,
        maxWorkers: 3,
        sequence: { groupOrder: 1 },
      }),
      // infra: every environment synthesized once per run (test/infra/support/assembly.ts, which both
      // infra projects share); no timeout that load could break. The files that change no
      // process-wide state share workers, as the unit and integration files do: each would
      // otherwise import aws-cdk-lib and the stacks afresh.
      // CDK_VALIDATION=false: aws-cdk-lib checks each synthesized template against CloudFormation's
      // schemas in WebAssembly (about 10 s of CPU for a file's first synth). The shared assembly of
      // every environment is checked by cloudformation-validate.test.ts, as `cdk synth` checks it;
      // a test file's own variant synths are not.
      ...sharedAndIsolated('infra', 'test/infra', {
        globalSetup: ['test/infra/support/assembly.ts'],
        env: { ...ENV, CDK_VALIDATION: 'false' },
        testTimeout: 0,
        hookTimeout: 0,
        maxWorkers: 3,
        sequence: { groupOrder: 1 },
      }, {
        // CDK's bundling spawns esbuild with the worker's stdio, which a worker thread does not
        // have as file descriptors: the file that bundles runs in a child process.
        forks: ['test/infra/stack.test.ts'],
      }),
    ],
  },
});
