/**
 * Optional AWS Backup plan for the table (EnvironmentConfig.backup): daily recovery points kept
 * for the configured days, each copied to a vault in another account when one is configured (so
 * that losing this account does not lose the backups). Point-in-time recovery (35 days, on the
 * table) stays the first line; this is the second. The destination vault's access policy must
 * allow this account to copy into it (docs/deploy.md, "Restore and backups").
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import type { BackupConfig } from '../config/environments.ts';

export interface TableBackupProps {
  readonly backup: BackupConfig;
  readonly table: dynamodb.ITable;
  readonly vaultName: string;
}

export class TableBackup extends Construct {
  readonly plan: backup.BackupPlan;
  readonly vault: backup.BackupVault;

  constructor(scope: Construct, id: string, props: TableBackupProps) {
    super(scope, id);
    const config = props.backup;
    this.vault = new backup.BackupVault(this, 'Vault', { backupVaultName: props.vaultName, removalPolicy: RemovalPolicy.RETAIN });
    const copyTo = config.copyToVaultArn
      ? [
          {
            destinationBackupVault: backup.BackupVault.fromBackupVaultArn(this, 'CopyVault', config.copyToVaultArn),
            deleteAfter: Duration.days(config.copyRetentionDays ?? config.retentionDays),
          },
        ]
      : undefined;
    this.plan = new backup.BackupPlan(this, 'Plan', { backupVault: this.vault });
    this.plan.addRule(
      new backup.BackupPlanRule({
        ruleName: 'daily',
        scheduleExpression: events.Schedule.expression(config.scheduleExpression),
        deleteAfter: Duration.days(config.retentionDays),
        ...(copyTo ? { copyActions: copyTo } : {}),
      }),
    );
    this.plan.addSelection('Table', { resources: [backup.BackupResource.fromDynamoDbTable(props.table)] });
  }
}

/** The cdk-nag finding of the backup plan, accepted with its reason (applied by the stack). */
export function acknowledgeBackupFindings(backupPlan: TableBackup): void {
  Validations.of(backupPlan).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
    reason:
      'AWS Backup takes the recovery points through the role of the backup selection; AWSBackupServiceRolePolicyForBackup is the AWS-managed policy made for exactly that role.',
  });
}
