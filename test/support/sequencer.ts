/**
 * The order of the suite's files (vitest.config.ts): vitest's own (the slowest or largest files
 * first), by directory: unit, then infra, then integration; within each, the isolated files before
 * the files that share workers (`unit-isolated` before `unit`; `infra-isolated` and
 * `infra-isolated-forks` before `infra`). The unit files come first because some of them mostly
 * wait (the SDK budget's real timeouts, the poller's trimmed stream): run last, they left a core
 * idle for about 8 s at the end of `npm test` (measured), where now the integration files' short
 * ones, which keep both cores busy, end the run.
 *
 * Among a directory's shared files, those that start processes of their own and wait for them (a
 * stack by `npm start`, Prism) run one at a time among the others, over the first 60% of them
 * (spreadStarters): on a fresh clone vitest has no durations and orders by size, which put two such
 * small files (local-stack, contract) last, where they held the run's last 10 s at about 1.5 cores;
 * all of them first ran three stacks of their own side by side at full load, and left the shared
 * stack's files, which wait on it and leave part of a core idle, to end the run alone. Measured
 * alternately on one idle 2-core machine (2026-11-29; two fresh clones and two reruns each): that
 * way 226.1, 240.3, 231.8 and 231.0 s (36 to 50 idle core-seconds); spread 236.0, 218.6, 220.4
 * and 213.5 s (29 to 41).
 *
 * A file that runs a validator over the synthesized templates (cfn-guard, CloudFormation's
 * schemas) is short but runs long (17 and 41 s on a fresh clone): it starts with the isolated
 * files. Ordered by size, as on a fresh clone, the two such files, the smallest of the infra
 * files, came last of them.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ISOLATED = '-isolated';
/** A test file that starts processes of its own: it imports the helpers that start them. */
const STARTS_PROCESSES = /from '\.\.\/support\/(npm-start|prism)\.ts'/;
/** A test file that hands the synthesized templates to a validator, which takes tens of seconds. */
const RUNS_A_VALIDATOR = /from '@cdklabs\/cdk-validator-cfnguard'|\bCloudFormationValidatePlugin\b/;
/** The directories' order (their projects' names without `-isolated`). */
const FAMILY_ORDER = ['unit', 'infra', 'integration'];

/** `infra` for `infra`, `infra-isolated` and `infra-isolated-forks`. */
function familyOf(projectName: string): string {
  return projectName.split(ISOLATED)[0]!;
}

/**
 * A file's place among its directory's files: 0 first (isolated, or running a validator), 1 spread
 * among the others (starting processes of its own, spreadStarters), 2 the others.
 */
export function rankOf(projectName: string, source: string): 0 | 1 | 2 {
  if (projectName.includes(ISOLATED) || RUNS_A_VALIDATOR.test(source)) return 0;
  return STARTS_PROCESSES.test(source) ? 1 : 2;
}

export class IsolatedFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ranks = new Map(files.map((file) => [file, rankOf(file.project.name, readFileSync(file.moduleId, 'utf8'))]));
    const rank = (file: TestSpecification) => ranks.get(file)!;
    // Array.prototype.sort is stable: within a rank, vitest's order stands.
    const sorted = (await super.sort(files)).sort((a, b) => {
      const groups = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groups !== 0) return groups;
      const familyA = familyOf(a.project.name);
      const familyB = familyOf(b.project.name);
      if (familyA !== familyB) return FAMILY_ORDER.indexOf(familyA) - FAMILY_ORDER.indexOf(familyB);
      return rank(a) - rank(b);
    });
    return spreadStarters(sorted, rank);
  }
}

/** How far into a directory's shared files the last one that starts processes may begin. */
const SPREAD = 0.6;

/**
 * Places a directory's shared files that start processes of their own (rank 1) one by one among
 * its other shared files (rank 2), over their first SPREAD, instead of all together: each such file
 * keeps a core busy with its own stack, so beside two files that wait on the shared stack (which
 * leave part of a core idle), not beside each other at full load, and not last.
 */
export function spreadStarters(sorted: TestSpecification[], rank: (file: TestSpecification) => number): TestSpecification[] {
  const out: TestSpecification[] = [];
  for (let i = 0; i < sorted.length; ) {
    const family = familyOf(sorted[i]!.project.name);
    let end = i;
    while (end < sorted.length && familyOf(sorted[end]!.project.name) === family) end++;
    const members = sorted.slice(i, end);
    const starters = members.filter((file) => rank(file) === 1);
    const others = members.filter((file) => rank(file) > 1);
    out.push(...members.filter((file) => rank(file) === 0));
    const shared = [...others];
    starters.forEach((file, n) => shared.splice(Math.floor((n * others.length * SPREAD) / starters.length) + n, 0, file));
    out.push(...shared);
    i = end;
  }
  return out;
}
