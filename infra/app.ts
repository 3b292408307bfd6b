/**
 * The CDK app (`npx cdk synth|deploy`, see cdk.json and docs/deploy.md).
 *
 * Environment-agnostic on purpose: no lookups, so synthesis needs no credentials and no network,
 * and the template is the same on every machine. `cdk deploy` targets the account and region of
 * the current AWS credentials/profile (AWS_REGION, AWS_PROFILE).
 *
 * Context values (`-c name=value` or cdk.json):
 * - stackName: name of the CloudFormation stack (default TimebillApi)
 * - cognitoDomainPrefix: prefix of the Cognito domain of the token endpoint (default timebill-<account id>)
 * - alarmEmail: email address subscribed to the alarm topic (default: none)
 * - resourceServerIdentifier: Cognito resource server of the scopes (default timebill-api)
 * - logRetentionDays: retention of every log group, a CloudWatch Logs value of at least 365 (default 365)
 *
 * cdk-nag's AwsSolutions pack runs on every synthesis as a validation plugin: any finding that the
 * stack does not acknowledge (with a reason, see NAG_ACKNOWLEDGEMENTS in stack.ts) fails `cdk synth`.
 */
import { App, Validations } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TimebillApiStack } from './stack.ts';
import { DEFAULT_STACK_NAME } from './names.ts';

const app = new App();
const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

new TimebillApiStack(app, context('stackName') ?? DEFAULT_STACK_NAME, {
  // Stack tags propagate to every resource: cost allocation by service.
  tags: { service: 'timebill-api' },
  cognitoDomainPrefix: context('cognitoDomainPrefix'),
  alarmEmail: context('alarmEmail'),
  resourceServerIdentifier: context('resourceServerIdentifier'),
  ...(context('logRetentionDays') ? { logRetention: Number(context('logRetentionDays')) as RetentionDays } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

app.synth();
