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
 * stack by `npm start`, Prism) come first: on a fresh clone vitest has no durations and orders by
 * size, which put two such small files (local-stack, contract) last, where they held the run's
 * last 10 s at about 1.5 cores (measured).
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ISOLATED = '-isolated';
/** A test file that starts processes of its own: it imports the helpers that start them. */
const STARTS_PROCESSES = /from '\.\.\/support\/(npm-start|prism)\.ts'/;
/** The directories' order (their projects' names without `-isolated`). */
const FAMILY_ORDER = ['unit', 'infra', 'integration'];

/** `infra` for `infra`, `infra-isolated` and `infra-isolated-forks`. */
function familyOf(projectName: string): string {
  return projectName.split(ISOLATED)[0]!;
}

export class IsolatedFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const startsProcesses = new Map(files.map((file) => [file, STARTS_PROCESSES.test(readFileSync(file.moduleId, 'utf8'))]));
    const rank = (file: TestSpecification) => (file.project.name.includes(ISOLATED) ? 0 : startsProcesses.get(file) ? 1 : 2);
    // Array.prototype.sort is stable: within a rank, vitest's order stands.
    return (await super.sort(files)).sort((a, b) => {
      const groups = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groups !== 0) return groups;
      const familyA = familyOf(a.project.name);
      const familyB = familyOf(b.project.name);
      if (familyA !== familyB) return FAMILY_ORDER.indexOf(familyA) - FAMILY_ORDER.indexOf(familyB);
      return rank(a) - rank(b);
    });
  }
}
