/**
 * CDK's built-in CloudFormation validation (CloudFormationValidatePlugin, which `cdk synth` and
 * `cdk deploy` run with `@aws-cdk/core:validateAgainstDefaultRules` on, cdk.json) over every
 * template of every environment, from the cloud assembly the infra project synthesizes once
 * (test/infra/support/assembly.ts). The plugin runs here, in a test worker beside the other
 * files, rather than in that synthesis, which every infra file waits for (about 12 s of CPU).
 */
import { describe, expect, inject, it } from 'vitest';
import { App, CloudFormationValidatePlugin } from 'aws-cdk-lib';
import { readAssembly } from './support/templates.ts';

describe('CloudFormation validation (what cdk synth runs)', () => {
  const environments = readAssembly(inject('infraAssembly'));

  it('the assembly holds every environment, each with its four stacks', () => {
    expect([...environments.keys()].sort()).toEqual(['dev', 'prod', 'staging']);
    for (const stacks of environments.values()) expect(Object.keys(stacks)).toHaveLength(4);
  });

  it('finds nothing in any template of any environment: no error and no warning', () => {
    const plugin = new CloudFormationValidatePlugin();
    // The plugin reads the templates; the app is part of its context, and synthesizes nothing here.
    const appConstruct = new App({ outdir: inject('infraAssembly') });
    for (const [environment, stacks] of environments) {
      const stackTemplates = Object.values(stacks).map((s) => ({ stackConstructPath: s.path, templatePath: s.templateFile, accountId: s.account, region: s.region }));
      const report = plugin.validate({ templatePaths: stackTemplates.map((s) => s.templatePath), stackTemplates, appConstruct });
      expect(report.violations, environment).toEqual([]);
      expect(report.success, environment).toBe(true);
    }
  });
});
