import { App } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../infra/app.ts';
const ctx = JSON.parse(readFileSync('/work/wt/issue-13/cdk.json','utf8')).context;
const app = new App({ context: { ...ctx, 'aws:cdk:bundling-stacks': [] }, outdir: '/tmp/t13/out' });
const stacks = buildApp(app);
for (const [n, s] of stacks) {
  const v = new AwsSolutionsChecks(app).validateScope(s).violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r: any) => r.constructPath ?? r.resourceLogicalId).join(', ')}`);
  console.log(n, v);
}
const asm = app.synth();
console.log(asm.stacksRecursively.map(s => s.stackName + ' ' + Object.keys(s.template.Resources).length));
