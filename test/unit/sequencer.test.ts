/**
 * The suite's file order (test/support/sequencer.ts): a directory's shared files that start
 * processes of their own run one at a time among its other shared files, never side by side, and
 * never at the end; files that run a validator over the templates start first.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { rankOf, spreadStarters } from '../support/sequencer.ts';

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

describe('rankOf', () => {
  // Sources put together, so that this file's own text matches none of the patterns.
  const importing = (name: string, from: string) => ['import { ', name, " } from '", from, "';"].join('');
  const cfnGuard = ['@cdklabs', 'cdk-validator-cfnguard'].join('/');
  const validatePlugin = ['CloudFormation', 'ValidatePlugin'].join('');

  it('puts isolated files and the files that run a validator first, spreads those that start processes, and leaves the rest', () => {
    expect(rankOf('infra-isolated-forks', importing('App', 'aws-cdk-lib'))).toBe(0);
    expect(rankOf('infra', importing('CfnGuardValidator', cfnGuard))).toBe(0);
    expect(rankOf('infra', importing(`App, ${validatePlugin}`, 'aws-cdk-lib'))).toBe(0);
    expect(rankOf('integration', importing('npmStart', '../support/npm-start.ts'))).toBe(1);
    expect(rankOf('integration', importing('startPrism', '../support/prism.ts'))).toBe(1);
    expect(rankOf('infra', importing(`${validatePlugin}s`, 'aws-cdk-lib'))).toBe(2);
    expect(rankOf('unit', readFileSync(fileURLToPath(import.meta.url), 'utf8'))).toBe(2);
  });
});
