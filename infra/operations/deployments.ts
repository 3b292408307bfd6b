/**
 * Safe deployments: every function is published as a version behind a `live` alias (API Gateway
 * and the authorizer call the alias, never $LATEST), and a CodeDeploy deployment group per
 * function shifts the alias to a new version as the environment says (canary in staging and
 * prod). Before any traffic moves, a pre-traffic hook smoke-tests the new version
 * (functions/operations/smoke-test.ts); while traffic moves, the alias's error and p99 alarms
 * roll the deployment back. docs/deploy.md ("What a deploy does", "Roll back") tells the rest.
 */
import { Arn, ArnFormat, Duration, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as codedeploy from 'aws-cdk-lib/aws-codedeploy';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { EnvironmentConfig, FunctionKind, TrafficShifting } from '../config/environments.ts';

export const LIVE_ALIAS = 'live';
export const SMOKE_TEST_ENTRY = 'functions/operations/smoke-test.ts';
/** The operation name under which the authorizer is smoke-tested (see smoke-test.ts). */
export const AUTHORIZER_OPERATION = 'authorizer';

const SHIFTING: Record<TrafficShifting, codedeploy.ILambdaDeploymentConfig> = {
  ALL_AT_ONCE: codedeploy.LambdaDeploymentConfig.ALL_AT_ONCE,
  CANARY_10PERCENT_5MINUTES: codedeploy.LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  CANARY_10PERCENT_10MINUTES: codedeploy.LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES,
  LINEAR_10PERCENT_EVERY_1MINUTE: codedeploy.LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
};

export interface DeployableFunction {
  /** Construct-friendly name: Authorizer, ListClients, ... */
  readonly name: string;
  readonly fn: lambda.Function;
  readonly kind: FunctionKind;
  /** Route operation, or AUTHORIZER_OPERATION: which request the smoke test sends. */
  readonly operation: string;
}

export interface DeployedFunction extends DeployableFunction {
  readonly alias: lambda.Alias;
  /** Unhandled errors or timeouts through the alias (1-minute periods, 2 of 3): rollback and paging. */
  readonly errorsAlarm: cloudwatch.Alarm;
  /** p99 duration through the alias (1-minute periods, 3 of 5): rollback and paging. */
  readonly latencyAlarm: cloudwatch.Alarm;
  readonly deploymentGroup: codedeploy.LambdaDeploymentGroup;
}

/** Creates a function the way the stack creates all of them (own role and log group). */
export type FunctionFactory = (name: string, options: { entry: string; description: string; environment: Record<string, string>; timeout: Duration }) => lambda.Function;

export interface SafeDeploymentsProps {
  readonly config: EnvironmentConfig;
  readonly functions: readonly DeployableFunction[];
  readonly createFunction: FunctionFactory;
}

export class SafeDeployments extends Construct {
  readonly application: codedeploy.LambdaApplication;
  readonly smokeTest: lambda.Function;
  /** The role CodeDeploy shifts every alias with. */
  readonly serviceRole: iam.Role;
  /** By name (Authorizer, ListClients, ...). */
  readonly functions: ReadonlyMap<string, DeployedFunction>;

  constructor(scope: Construct, id: string, props: SafeDeploymentsProps) {
    super(scope, id);
    const { config } = props;
    this.application = new codedeploy.LambdaApplication(this, 'Application');
    // One service role for every group (CodeDeploy's managed policy, and invoking the one hook):
    // a role per group would cost a resource per route for the same permissions.
    this.serviceRole = new iam.Role(this, 'ServiceRole', { assumedBy: new iam.ServicePrincipal('codedeploy.amazonaws.com') });

    this.smokeTest = props.createFunction('SmokeTestHook', {
      entry: SMOKE_TEST_ENTRY,
      description: 'CodeDeploy pre-traffic hook: smoke-tests a new function version before it gets traffic',
      environment: {
        SMOKE_TARGETS: Stack.of(this).toJsonString(props.functions.map((f) => ({ functionName: f.fn.functionName, operation: f.operation }))),
      },
      // Invokes one version (at most its timeout) and calls CodeDeploy twice.
      timeout: Duration.seconds(config.functions.timeoutSeconds + 20),
    });
    // Invoke any published version of the functions it tests (qualified ARNs), and nothing else.
    this.smokeTest.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: props.functions.map((f) => `${f.fn.functionArn}:*`) }),
    );

    const functions = new Map<string, DeployedFunction>();
    for (const target of props.functions) {
      const alias = new lambda.Alias(this, `${target.name}Live`, {
        aliasName: LIVE_ALIAS,
        version: target.fn.currentVersion,
        description: `The version of ${target.name} that API Gateway calls; moved by CodeDeploy`,
      });
      const oneMinute = Duration.minutes(1);
      const errorsAlarm = alias.metricErrors({ statistic: cloudwatch.Stats.SUM, period: oneMinute }).createAlarm(this, `${target.name}ErrorsAlarm`, {
        alarmDescription: `${target.name} (live alias) failed (unhandled error or timeout) in 2 of the last 3 minutes. Rolls a deployment back; pages.`,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      const latencyAlarm = alias.metricDuration({ statistic: cloudwatch.Stats.p(99), period: oneMinute }).createAlarm(this, `${target.name}LatencyAlarm`, {
        alarmDescription: `${target.name} (live alias) p99 duration above ${config.alarms.functionP99Ms} ms in 3 of the last 5 minutes. Rolls a deployment back; pages.`,
        threshold: config.alarms.functionP99Ms,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      const deploymentGroup = new codedeploy.LambdaDeploymentGroup(this, `${target.name}DeploymentGroup`, {
        application: this.application,
        role: this.serviceRole,
        alias,
        deploymentConfig: SHIFTING[config.deployment.trafficShifting],
        alarms: [errorsAlarm, latencyAlarm],
        preHook: this.smokeTest,
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      functions.set(target.name, { ...target, alias, errorsAlarm, latencyAlarm, deploymentGroup });
    }
    this.functions = functions;

    // The hook reads the deployment (to learn the function and version it tests) of its own groups only.
    this.smokeTest.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['codedeploy:GetDeployment'],
        resources: [...functions.values()].map((f) =>
          Arn.format(
            {
              service: 'codedeploy',
              resource: 'deploymentgroup',
              resourceName: `${this.application.applicationName}/${f.deploymentGroup.deploymentGroupName}`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            },
            Stack.of(this),
          ),
        ),
      }),
    );
  }
}

/** `AwsSolutions-IAM5[Resource::<LogicalId.Arn>:*]`: cdk-nag's granular id of a grant on every version of a function. */
function versionsFinding(fn: lambda.Function): string {
  const stack = Stack.of(fn);
  const logicalId = stack.resolve(stack.getLogicalId(fn.node.defaultChild as CfnElement)) as string;
  return `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`;
}

/** The cdk-nag findings of safe deployments, accepted with their reasons (applied by the stack). */
export function acknowledgeDeploymentFindings(deployments: SafeDeployments): void {
  Validations.of(deployments.serviceRole).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        'CodeDeploy moves the live alias and invokes the hooks through its service role; AWSCodeDeployRoleForLambdaLimited is the AWS-managed policy made for exactly that role and limited to aliases and hook invocations.',
    },
    {
      id: versionsFinding(deployments.smokeTest),
      reason:
        'CodeDeploy invokes the pre-traffic hook by qualified ARN; the grant covers the versions of the one hook function of this stack, nothing else.',
    },
  );
  for (const f of deployments.functions.values()) {
    Validations.of(deployments.smokeTest.role!).acknowledge({
      id: versionsFinding(f.fn),
      reason:
        'The smoke test invokes the version that a deployment is about to shift traffic to; that version is published by the same deployment, so the grant names the function and allows any of its versions (the qualifier), nothing else.',
    });
  }
}
