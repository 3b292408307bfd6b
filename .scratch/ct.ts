import { App } from 'aws-cdk-lib';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { buildApp } from '../infra/app.ts';
import { Template } from 'aws-cdk-lib/assertions';
import { ENVIRONMENTS } from '../infra/config/environments.ts';
import { TimebillApiStack } from '../infra/stack.ts';
const ctx = JSON.parse(readFileSync('cdk.json','utf8')).context;
const app = new App({ context: { ...ctx, 'aws:cdk:bundling-stacks': [] }, outdir: '/tmp/t13/ct' });
const stacks = buildApp(app);
const extra = new TimebillApiStack(app, 'Full', { config: { ...ENVIRONMENTS.prod, domain: { hostedZoneId: 'Z0123456789ABCDEFGHIJ', hostedZoneName: 'example.com', apiDomainName: 'api.example.com', authDomainName: 'auth.api.example.com', authCertificateArn: 'arn:aws:acm:us-east-1:333333333333:certificate/x' } } });
mkdirSync('/tmp/t13/ctt', { recursive: true });
const paths: string[] = [];
for (const [n, s] of [...stacks, ['full', extra] as const]) { const p = `/tmp/t13/ctt/${n}.json`; writeFileSync(p, JSON.stringify(Template.fromStack(s as any).toJSON())); paths.push(p); }
const report = new CfnGuardValidator({ disabledRules: ['ct-lambda-pr-3', 'ct-lambda-pr-2'], maxBuffer: 64 * 1024 * 1024 }).validate({ templatePaths: paths, appConstruct: app } as any);
const seen = new Map<string, Set<string>>();
for (const v of report.violations) { const k = /\[(CT\.\w+\.PR\.\d+)\]/.exec(v.description)?.[1] ?? v.ruleName; const s = seen.get(k) ?? new Set(); for (const r of v.violatingResources) s.add(r.resourceLogicalId.replace(/[0-9A-F]{8}$/, '')); seen.set(k, s); }
for (const [k, s] of seen) console.log(k, [...s].slice(0, 8).join(', '), s.size);
