/**
 * The suite's file order (test/support/sequencer.ts): a directory's shared files that start
 * processes of their own run one at a time among its other shared files, never side by side, and
 * never at the end.
 */
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { spreadStarters } from '../support/sequencer.ts';

const spec = (project: string, name: string) => ({ project: { name: project }, moduleId: name }) as unknown as TestSpecification;
const names = (files: TestSpecification[]) => files.map((file) => file.moduleId);

describe('spreadStarters', () => {
  const isolated = [spec('integration-isolated', 'i1'), spec('integration-isolated', 'i2')];
  const starters = ['s1', 's2', 's3', 's4'].map((name) => spec('integration', name));
  const others = Array.from({ length: 20 }, (_, n) => spec('integration', `o${n}`));
  const unit = [spec('unit-isolated', 'u1'), spec('unit', 'u2')];
  const ranks = new Map<TestSpecification, number>([[unit[0]!, 0], [unit[1]!, 2], ...isolated.map((f) => [f, 0] as const), ...starters.map((f) => [f, 1] as const), ...others.map((f) => [f, 2] as const)]);
  const rank = (file: TestSpecification) => ranks.get(file)!;
  const order = names(spreadStarters([...unit, ...isolated, ...starters, ...others], rank));

  it('keeps every file once, each directory in place, its isolated files first, its other files in their order', () => {
    expect([...order].sort()).toEqual(names([...unit, ...isolated, ...starters, ...others]).sort());
    expect(order.slice(0, 4)).toEqual(['u1', 'u2', 'i1', 'i2']);
    expect(order.filter((name) => name.startsWith('o'))).toEqual(names(others));
    expect(order.filter((name) => name.startsWith('s'))).toEqual(names(starters));
  });

  it('places the starters apart, the first at once and the last within the first 60% of the others', () => {
    const at = names(starters).map((name) => order.indexOf(name) - 4);
    expect(at[0]).toBe(0);
    for (let n = 1; n < at.length; n++) expect(at[n]! - at[n - 1]!).toBeGreaterThan(1);
    const othersBeforeLast = order.slice(4, 4 + at.at(-1)!).filter((name) => name.startsWith('o')).length;
    expect(othersBeforeLast).toBeLessThanOrEqual(0.6 * others.length);
  });

  it('changes nothing in a directory without starters', () => {
    expect(names(spreadStarters([...unit, ...others], rank))).toEqual(names([...unit, ...others]));
  });
});
