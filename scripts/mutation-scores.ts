/**
 * After `stryker run`: the mutation score of each module it names (a module is a file,
 * or every file of a folder), from Stryker's JSON report. Exits 1 when one is under its minimum:
 * 80 %, or 90 % for the modules that compute money and the dates it is billed by (issue 53).
 * Score = killed (or timed out) / (killed + timed out + survived + no coverage); mutants that
 * do not compile or fail at run time for another reason do not count, as in Stryker's own score.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';

const MIN_SCORE = 80;
const MONEY_MIN_SCORE = 90;

/** Each module and the score it must reach. */
export const MODULES: Readonly<Record<string, number>> = {
  'shared/auth/': MIN_SCORE,
  'shared/data/cursor.ts': MIN_SCORE,
  'shared/core/ids.ts': MIN_SCORE,
  'shared/http/conditional.ts': MIN_SCORE,
  'shared/model/': MIN_SCORE,
  'shared/api/object-schemas.ts': MIN_SCORE,
  'shared/api/event-schemas.ts': MIN_SCORE,
  'shared/api/time-summary-schemas.ts': MIN_SCORE,
  'shared/data/keys.ts': MIN_SCORE,
  'shared/core/money.ts': MONEY_MIN_SCORE,
  'shared/domain/invoices/amounts.ts': MONEY_MIN_SCORE,
  'shared/domain/invoices/fees.ts': MONEY_MIN_SCORE,
  'shared/domain/invoices/lock.ts': MONEY_MIN_SCORE,
  'shared/totals/totals.ts': MONEY_MIN_SCORE,
  'shared/core/calendar.ts': MONEY_MIN_SCORE,
};

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

export function scores(report: Report): { module: string; min: number; killed: number; total: number; score: number }[] {
  return Object.entries(MODULES).map(([module, min]) => {
    let killed = 0;
    let total = 0;
    for (const [file, { mutants }] of Object.entries(report.files)) {
      if (!(module.endsWith('/') ? file.startsWith(module) : file === module)) continue;
      for (const { status } of mutants) {
        if (status === 'Killed' || status === 'Timeout') killed++;
        if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(status)) total++;
      }
    }
    return { module, min, killed, total, score: total === 0 ? 0 : (100 * killed) / total };
  });
}

const REPORT = resolve(import.meta.dirname, '../reports/mutation/mutation.json');

runWhenMain(import.meta.url, async () => {
  parseCommandLine({ options: {} }, `Usage: npm run mutation -- [--help]  (stryker run, then this check: each module's score from ${REPORT}; exit 1 when one is under its minimum, ${MIN_SCORE} % or ${MONEY_MIN_SCORE} % for the money modules)`);
  if (!existsSync(REPORT)) throw new UsageError(`no report at ${REPORT}: run \`npm run mutation\` (stryker writes it first)`);
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
  let failed = false;
  for (const row of scores(report)) {
    if (row.total === 0) {
      // Not mutated in this run (stryker run --mutate ... on a part): no score, not a pass.
      console.log(`${row.module.padEnd(36)}     –    (no mutants in this run)`);
      continue;
    }
    const ok = row.score >= row.min;
    failed ||= !ok;
    console.log(`${row.module.padEnd(36)} ${row.score.toFixed(1).padStart(5)} %  (${row.killed}/${row.total})${ok ? '' : `  under ${row.min} %`}`);
  }
  if (failed) process.exitCode = 1;
}, 'mutation-scores');
