/**
 * `tsc` over the whole repository (tsconfig.json), as a test of the suite
 * (test/unit/typecheck.test.ts) rather than a step before it: `npm test` starts it in the unit
 * project's global setup, so the compiler checks while the stacks start and the first files run,
 * instead of holding one core while the other waits. A run of single files (`npx vitest run
 * <file>`) starts it only if it selects the typecheck test.
 */
import { execFile, type ChildProcess, type ExecFileException } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { TSC } from '../../scripts/tsc.ts';

export { TSC };

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the global setup's tsc writes its result (RESULT_FILE), or '' when it did not start one. */
    typecheckDir: string;
  }
}

export interface TypecheckResult {
  /** tsc's exit code (null: killed). */
  readonly code: number | null;
  /** What it printed: the errors, one per line, with their files. */
  readonly output: string;
}

const ROOT = resolve(import.meta.dirname, '../..');
const RESULT_FILE = 'result.json';

type Finished = (error: ExecFileException | null, stdout: string, stderr: string) => void;
/**
 * Niceness of the global setup's tsc (and of the compiler it starts, which inherits it): the
 * setups after it (importing the stacks, the synthesis, the local stack's start) run one after the
 * other on vitest's main thread, which every test file waits for. At equal priority tsc's threads
 * competed with that thread; lowered, tsc takes the cores the setups leave, and `npm test` no
 * longer starts with a stretch on one core once tsc is done (about 12 s of it before, 4.5 s after,
 * measured). tsc still finishes long before the type check's test reads its result.
 */
const BACKGROUND_NICENESS = 10;
function run(args: string[], finished: Finished, background: boolean): ChildProcess {
  const child = execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, finished);
  try {
    if (background && child.pid !== undefined) setPriority(child.pid, BACKGROUND_NICENESS);
  } catch {
    // Gone already, or a system that refuses: it runs at the usual priority.
  }
  return child;
}
const resultOf = (error: ExecFileException | null, stdout: string, stderr: string): TypecheckResult => ({
  code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
  output: `${stdout}${stderr}`,
});

/**
 * Writes the SDK's generated types (git ignores them: sdk/scripts/types.ts), then runs tsc; `done`
 * gets the result. `background`: at a lower priority (BACKGROUND_NICENESS).
 */
export function runTsc(done: (result: TypecheckResult) => void, { background = false } = {}): { kill(): void } {
  let child: ChildProcess = run(['--import', 'tsx', join(ROOT, 'sdk/scripts/types.ts')], (error, stdout, stderr) => {
    if (error) return done(resultOf(error, stdout, stderr));
    // One thread: the same diagnostics in about 9 core-seconds instead of 12.5, as tsc's parallel
    // checkers each work out again the types their files share (alternate runs, twice each, on an
    // idle 2-core machine, 2026-12-02). Its extra second of wall time is off the critical path.
    child = run([TSC, '-p', ROOT, '--singleThreaded'], (error, stdout, stderr) => done(resultOf(error, stdout, stderr)), background);
  }, background);
  return { kill: () => child.kill('SIGKILL') };
}

/** The global setup's result once written (undefined while tsc runs). */
export function readResult(dir: string): TypecheckResult | undefined {
  const file = join(dir, RESULT_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TypecheckResult) : undefined;
}

export default function setup(project: TestProject) {
  // npm test (npm's lifecycle event 'test'); other runs leave it to the test file.
  if (process.env.npm_lifecycle_event !== 'test') {
    project.provide('typecheckDir', '');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'timebill-tsc-'));
  const child = runTsc((result) => writeFileSync(join(dir, RESULT_FILE), JSON.stringify(result)), { background: true });
  project.provide('typecheckDir', dir);
  return () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  };
}
