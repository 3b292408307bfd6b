/**
 * `tsc` over the whole repository (tsconfig.json), as a test of the suite
 * (test/unit/typecheck.test.ts) rather than a step before it: `npm test` starts it in the unit
 * project's global setup, so the compiler checks while the stacks start and the first files run,
 * instead of holding one core for about 25 s while the other waits. A run of single files
 * (`npx vitest run <file>`) starts it only if it selects the typecheck test.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

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

/** Runs tsc; `done` gets its result. */
export function runTsc(done: (result: TypecheckResult) => void): ChildProcess {
  return execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', ROOT], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
    done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` }),
  );
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
  const child = runTsc((result) => writeFileSync(join(dir, RESULT_FILE), JSON.stringify(result)));
  project.provide('typecheckDir', dir);
  return () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
}
