/**
 * CDK's built-in CloudFormation validation (CloudFormationValidatePlugin, which `cdk synth` and
 * `cdk deploy` run with `@aws-cdk/core:validateAgainstDefaultRules` on, cdk.json) over every
 * template of every environment, from the cloud assembly the infra project synthesizes once
 * (test/infra/support/assembly.ts). The plugin runs here, in a test worker beside the other
 * files, rather than in that synthesis, which every infra file waits for.
 */
import { describe, expect, inject, it } from 'vitest';
import { App, CloudFormationValidatePlugin } from 'aws-cdk-lib';
import { readAssembly } from './support/templates.ts';
import { STACK_ROLES } from '../../infra/stack.ts';

describe('CloudFormation validation (what cdk synth runs)', () => {
  const environments = readAssembly(inject('infraAssembly'));

  it('the assembly holds every environment, each with its five stacks', () => {
    expect([...environments.keys()].sort()).toEqual(['dev', 'prod', 'staging']);
    for (const stacks of environments.values()) expect(Object.keys(stacks)).toHaveLength(STACK_ROLES.length);
  });

  it('finds nothing in any template of any environment: no error and no warning', () => {
    // The plugin reads the templates; the app is part of its context, and synthesizes nothing here.
    const appConstruct = new App({ outdir: inject('infraAssembly') });
    // Every template in one call: a call costs about 7 s of CPU however many templates it is
    // given (measured: 7.5 s for one environment's four stacks, 6.9 s for all twelve of them). A violation
    // names its template, whose path names the environment (assembly-<environment>/).
    const stackTemplates = [...environments.values()].flatMap((stacks) =>
      Object.values(stacks).map((s) => ({ stackConstructPath: s.path, templatePath: s.templateFile, accountId: s.account, region: s.region })),
    );
    expect(stackTemplates).toHaveLength(3 * STACK_ROLES.length);
    const report = new CloudFormationValidatePlugin().validate({ templatePaths: stackTemplates.map((s) => s.templatePath), stackTemplates, appConstruct });
    expect(report.violations).toEqual([]);
    expect(report.success).toBe(true);
  });
});
