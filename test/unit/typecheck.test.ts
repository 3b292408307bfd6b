/**
 * The repository type-checks: `tsc` with tsconfig.json (strict), over functions, shared, infra,
 * scripts, sdk and the tests. Started early by `npm test` (test/support/typecheck.ts), or here.
 */
import { describe, expect, inject, it } from 'vitest';
import { readResult, runTsc, type TypecheckResult } from '../support/typecheck.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function typecheck(): Promise<TypecheckResult> {
  const dir = inject('typecheckDir');
  if (dir === '') return new Promise((resolve) => runTsc(resolve));
  for (;;) {
    const result = readResult(dir);
    if (result) return result;
    await sleep(200);
  }
}

describe('TypeScript', () => {
  // A ceiling for a failing run only: tsc takes about 5 s on an idle machine, longer beside the suite.
  it('tsc finds no error in the repository', { timeout: 600_000 }, async () => {
    const result = await typecheck();
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});
