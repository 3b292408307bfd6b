/**
 * The order of the suite's files (vitest.config.ts): vitest's own (projects by name, then the
 * slowest or largest files first), except that each directory's isolated files run before the
 * files that share workers (`unit-isolated` before `unit`; `infra-isolated` and
 * `infra-isolated-forks` before `infra`). The isolated files include some that mostly wait (the
 * SDK budget's real timeouts); run last, they left one core idle for about 6 s at the end of
 * `npm test`, where the many short shared files now fill it.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ISOLATED = '-isolated';

/** `infra` for `infra`, `infra-isolated` and `infra-isolated-forks`. */
function familyOf(projectName: string): string {
  return projectName.split(ISOLATED)[0]!;
}

export class IsolatedFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => (file.project.name.includes(ISOLATED) ? 0 : 1);
    // Array.prototype.sort is stable: within a rank, vitest's order stands.
    return (await super.sort(files)).sort((a, b) => {
      const groups = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groups !== 0) return groups;
      const familyA = familyOf(a.project.name);
      const familyB = familyOf(b.project.name);
      if (familyA !== familyB) return familyA < familyB ? -1 : 1;
      return rank(a) - rank(b);
    });
  }
}
