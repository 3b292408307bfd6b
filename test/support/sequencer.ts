/**
 * The order of the suite's files (vitest.config.ts), from vitest's own (the slowest or largest
 * files first). First every file that runs in a worker of its own (the `-isolated` projects), the
 * directories' in turn: one of unit, one of infra, one of integration, and again; then the files
 * that share workers, by directory: unit, infra, integration.
 * - Isolated files start a worker each whatever comes before them, so mixing them costs nothing:
 *   the unit ones that mostly wait (the SDK budget's real timeouts, the trimmed stream's poller)
 *   or mostly load modules run beside infra ones that keep a core busy.
 * - A directory's shared files follow one another, so that a worker that finishes one goes on
 *   with the next (a shared worker runs its own project's files only).
 * - The integration files end the run: their short ones keep both cores busy to the end, where
 *   the unit files (last until 002d5bb) left one idle for about 8 s (measured).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ISOLATED = '-isolated';
/** The directories' order (their projects' names without `-isolated`); another project's files come first. */
const FAMILY_ORDER = ['unit', 'infra', 'integration'];

/** `infra` for `infra`, `infra-isolated` and `infra-isolated-forks`. */
function familyOf(projectName: string): string {
  return projectName.split(ISOLATED)[0]!;
}

const isIsolated = (file: TestSpecification) => file.project.name.includes(ISOLATED);
const familyRank = (file: TestSpecification) => FAMILY_ORDER.indexOf(familyOf(file.project.name));

/** One of each list in turn, each list's order kept. */
function roundRobin<T>(lists: T[][]): T[] {
  const longest = Math.max(0, ...lists.map((list) => list.length));
  return Array.from({ length: longest }, (_, i) => lists.flatMap((list) => (i < list.length ? [list[i]!] : []))).flat();
}

export class IsolatedFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const groups = [...new Set(sorted.map((file) => file.project.config.sequence.groupOrder))].sort((a, b) => a - b);
    return groups.flatMap((group) => {
      const inGroup = sorted.filter((file) => file.project.config.sequence.groupOrder === group);
      const ranks = [...new Set(inGroup.map(familyRank))].sort((a, b) => a - b);
      const isolated = roundRobin(ranks.map((rank) => inGroup.filter((file) => isIsolated(file) && familyRank(file) === rank)));
      const shared = ranks.flatMap((rank) => inGroup.filter((file) => !isIsolated(file) && familyRank(file) === rank));
      return [...isolated, ...shared];
    });
  }
}
