// temporary measurement script (removed after use)
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from './infra/app.ts';
import { ENVIRONMENTS } from './infra/config/environments.ts';
import { TimebillApi } from './infra/stack.ts';
import { mergeTemplates } from './test/infra/support/templates.ts';
process.env.CDK_VALIDATION = 'false';
const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8'));
const newApp = () => new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] }, outdir: '/tmp/meas/exp/out-' + Math.random() });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const mode = process.argv[2];
let t = cpu();
const lap = (what: string) => { const n = cpu(); console.log(`${what}: ${(n - t).toFixed(2)} s`); t = n; };
// warm up: one variant synth
mergeTemplates(Object.values(new TimebillApi(newApp(), { config: ENVIRONMENTS.dev, env: { account: ENVIRONMENTS.dev.account, region: ENVIRONMENTS.dev.region } }).stacks));
lap('warm-up variant synth');
mergeTemplates(Object.values(new TimebillApi(newApp(), { config: ENVIRONMENTS.dev, env: { account: ENVIRONMENTS.dev.account, region: ENVIRONMENTS.dev.region } }).stacks));
lap('second variant synth (no Stage, no nag)');
const shared = { account: ENVIRONMENTS.dev.account, region: ENVIRONMENTS.dev.region };
const environments = [ENVIRONMENTS.dev, { ...ENVIRONMENTS.staging, ...shared, cognitoDomainPrefix: 'timebill-staging-111111111111', ownsApiGatewayAccountRole: false }];
const built = [...buildApp(newApp(), environments).values()];
lap('buildApp two envs (construct)');
mergeTemplates(Object.values(built[1]!.stacks));
lap('synth staging stage (with nag)');
mergeTemplates(Object.values(built[0]!.stacks));
lap('synth dev stage (with nag)');
