/**
 * After `stryker run`: the mutation score of each module it names (a module is a file,
 * or every file of a folder), from Stryker's JSON report. Exits 1 when one is under 80 %.
 * Score = killed (or timed out) / (killed + timed out + survived + no coverage); mutants that
 * do not compile or fail at run time for another reason do not count, as in Stryker's own score.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';

export const MODULES = [
  'shared/auth/',
  'shared/data/cursor.ts',
  'shared/core/ids.ts',
  'shared/http/conditional.ts',
  'shared/model/',
  'shared/api/object-schemas.ts',
  'shared/api/event-schemas.ts',
  'shared/api/time-summary-schemas.ts',
  'shared/data/keys.ts',
] as const;
export const MIN_SCORE = 80;

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

export function scores(report: Report): { module: string; killed: number; total: number; score: number }[] {
  return MODULES.map((module) => {
    let killed = 0;
    let total = 0;
    for (const [file, { mutants }] of Object.entries(report.files)) {
      if (!(module.endsWith('/') ? file.startsWith(module) : file === module)) continue;
      for (const { status } of mutants) {
        if (status === 'Killed' || status === 'Timeout') killed++;
        if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(status)) total++;
      }
    }
    return { module, killed, total, score: total === 0 ? 0 : (100 * killed) / total };
  });
}

const REPORT = resolve(import.meta.dirname, '../reports/mutation/mutation.json');

runWhenMain(import.meta.url, async () => {
  parseCommandLine({ options: {} }, `Usage: npm run mutation -- [--help]  (stryker run, then this check: each module's score from ${REPORT}; exit 1 when one is under ${MIN_SCORE} %)`);
  if (!existsSync(REPORT)) throw new UsageError(`no report at ${REPORT}: run \`npm run mutation\` (stryker writes it first)`);
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
  let failed = false;
  for (const row of scores(report)) {
    if (row.total === 0) {
      // Not mutated in this run (stryker run --mutate ... on a part): no score, not a pass.
      console.log(`${row.module.padEnd(28)}     –    (no mutants in this run)`);
      continue;
    }
    const ok = row.score >= MIN_SCORE;
    failed ||= !ok;
    console.log(`${row.module.padEnd(28)} ${row.score.toFixed(1).padStart(5)} %  (${row.killed}/${row.total})${ok ? '' : `  under ${MIN_SCORE} %`}`);
  }
  if (failed) process.exitCode = 1;
}, 'mutation-scores');
