/**
 * Logs and traces as AWS Control Tower's proactive controls want them (CT.CLOUDWATCH.PR.2 and
 * PR.3, CT.APIGATEWAY.PR.2): every log group kept at least 365 days and encrypted with one
 * customer-managed KMS key that rotates yearly, whose key policy lets CloudWatch Logs use it for
 * this account's log groups only. X-Ray tracing is switched on where the stack creates the stage
 * and the functions (infra/stack.ts).
 */
import { Arn, ArnFormat, Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** CT.CLOUDWATCH.PR.2: log groups keep their events at least a year. */
export const MIN_LOG_RETENTION_DAYS = 365;
export const DEFAULT_LOG_RETENTION = logs.RetentionDays.ONE_YEAR;

/** A retention of at least a year, or an error that says why (RetentionDays.INFINITE, 9999, counts as kept). */
export function checkedLogRetention(retention: logs.RetentionDays | undefined): logs.RetentionDays {
  const days = retention ?? DEFAULT_LOG_RETENTION;
  if (days < MIN_LOG_RETENTION_DAYS) {
    throw new Error(`logRetention must be at least ${MIN_LOG_RETENTION_DAYS} days (AWS Control Tower CT.CLOUDWATCH.PR.2), not ${days}`);
  }
  return days;
}

export interface EncryptedLogsProps {
  readonly retention: logs.RetentionDays;
}

/** Every log group (in the Data stack): one KMS key for all of them, and one retention. */
export class EncryptedLogs extends Construct {
  readonly key: kms.Key;
  readonly retention: logs.RetentionDays;

  constructor(scope: Construct, id: string, props: EncryptedLogsProps) {
    super(scope, id);
    this.retention = props.retention;
    this.key = new kms.Key(this, 'Key', {
      description: 'Encrypts the log groups of the Timebill API (CloudWatch Logs)',
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      // Deleting the key would make every log event written with it unreadable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // CloudWatch Logs encrypts with the key on behalf of this account's log groups, and nothing else.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchLogsOfThisAccount',
        principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': Arn.format(
              { service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME },
              Stack.of(this),
            ),
          },
        },
      }),
    );
    // CT.KMS.PR.3: grants on the key only for AWS services acting for AWS resources.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyGrantsExceptToAwsServices',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );
  }

  /** A log group kept for the stack's retention and encrypted with the key. */
  logGroup(scope: Construct, id: string): logs.LogGroup {
    const group = new logs.LogGroup(scope, id, { retention: this.retention, encryptionKey: this.key });
    // The key policy must exist before CloudWatch Logs is asked to use the key.
    group.node.addDependency(this.key);
    return group;
  }
}
