/**
 * The CDK app (`npx cdk synth|deploy`, see cdk.json and docs/deploy.md): one Stage per environment
 * of infra/config/environments.ts (dev, staging, prod), each with an explicit account and region,
 * its typed configuration and its five stacks (Data, Functions, Billing, Api, Operations: infra/stack.ts,
 * decision 0014); no `-c` flags. Deploy one environment with `npx cdk deploy 'prod/*'`, or all
 * with `npx cdk deploy --all`: CDK deploys each environment's stacks in their dependency order.
 *
 * No lookups: synthesis needs no credentials and no network, for every environment.
 *
 * cdk-nag's AwsSolutions pack runs on every synthesis as a validation plugin: any finding that the
 * stacks do not acknowledge (with a reason, see NAG_ACKNOWLEDGEMENTS in stack.ts) fails `cdk synth`.
 */
import { pathToFileURL } from 'node:url';
import { App, Stage, Tags, Validations } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TimebillApi, functionKinds } from './stack.ts';
import { ENVIRONMENTS, configurationErrors, type EnvironmentConfig } from './config/environments.ts';
import { COST_TAGS, ENVIRONMENT_TAG } from './operations/cost-guards.ts';

/** Builds every environment's Stage and stacks into `app`; refuses a configuration that breaks a rule. */
export function buildApp(app: App, environments: readonly EnvironmentConfig[] = Object.values(ENVIRONMENTS)): Map<string, TimebillApi> {
  const errors = configurationErrors(environments, functionKinds());
  if (errors.length > 0) throw new Error(`infra/config/environments.ts:\n- ${errors.join('\n- ')}`);
  const built = new Map<string, TimebillApi>();
  for (const config of environments) {
    const stage = new Stage(app, config.name, { env: { account: config.account, region: config.region } });
    // Cost-allocation tags on every resource of the environment (activate them once, docs/deploy.md).
    for (const [key, value] of Object.entries(COST_TAGS)) Tags.of(stage).add(key, value);
    Tags.of(stage).add(ENVIRONMENT_TAG, config.name);
    const service = new TimebillApi(stage, {
      stackName: config.stackName,
      config,
      ...(config.resourceServerIdentifier ? { resourceServerIdentifier: config.resourceServerIdentifier } : {}),
      ...(config.logRetentionDays ? { logRetention: config.logRetentionDays as RetentionDays } : {}),
    });
    Validations.of(stage).addPlugins(new AwsSolutionsChecks(stage, { verbose: true }));
    built.set(config.name, service);
  }
  return built;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = new App();
  buildApp(app);
  app.synth();
}
