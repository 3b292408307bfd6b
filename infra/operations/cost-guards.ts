/**
 * Cost guards of one environment (the table's on-demand maximum throughput is set on the table):
 * - an AWS Budget on the environment's cost-allocation tags, with alerts at 80 % of actual and
 *   100 % of forecast spend;
 * - a Cost Anomaly Detection monitor on the same tags with a daily email subscription;
 * - a WAF rate-based rule on the Cognito user pool, i.e. on the token endpoint: a client that
 *   fetches a token for every call costs $2.25 per 1,000 tokens; one source IP gets at most the
 *   configured number of token requests per 5 minutes, beyond that 429 from WAF.
 * The tags (`service`, `environment`) must be activated once as cost-allocation tags in the
 * billing console (docs/deploy.md, "Costs"); until then the budget and monitor see nothing.
 */
import { Stack } from 'aws-cdk-lib';
import * as budgets from 'aws-cdk-lib/aws-budgets';
import * as ce from 'aws-cdk-lib/aws-ce';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { EnvironmentConfig } from '../config/environments.ts';

/** The cost-allocation tags every resource carries (set on the Stage in infra/app.ts and on the stack). */
export const COST_TAGS = { service: 'timebill-api' } as const;
export const ENVIRONMENT_TAG = 'environment';

export interface CostGuardsProps {
  readonly config: EnvironmentConfig;
  readonly userPool: cognito.UserPool;
}

export class CostGuards extends Construct {
  readonly budget: budgets.CfnBudget;
  readonly anomalyMonitor: ce.CfnAnomalyMonitor;
  readonly tokenEndpointAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: CostGuardsProps) {
    super(scope, id);
    const { config } = props;
    const name = `timebill-api-${config.name}`;
    const subscribers = config.costs.alertEmails.map((address) => ({ subscriptionType: 'EMAIL', address }));
    // Budgets filter by "user:<key>$<value>" for cost-allocation tags.
    const tagFilter = [`user:service$${COST_TAGS.service}`, `user:${ENVIRONMENT_TAG}$${config.name}`];

    this.budget = new budgets.CfnBudget(this, 'Budget', {
      budget: {
        budgetName: `${name}-${Stack.of(this).region}`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: config.costs.monthlyBudgetUsd, unit: 'USD' },
        costFilters: { TagKeyValue: tagFilter },
      },
      notificationsWithSubscribers: [
        { notification: { notificationType: 'ACTUAL', comparisonOperator: 'GREATER_THAN', threshold: 80, thresholdType: 'PERCENTAGE' }, subscribers },
        { notification: { notificationType: 'FORECASTED', comparisonOperator: 'GREATER_THAN', threshold: 100, thresholdType: 'PERCENTAGE' }, subscribers },
      ],
    });

    this.anomalyMonitor = new ce.CfnAnomalyMonitor(this, 'AnomalyMonitor', {
      monitorName: `${name}-${Stack.of(this).region}`,
      monitorType: 'CUSTOM',
      monitorSpecification: JSON.stringify({
        And: [
          { Tags: { Key: 'service', Values: [COST_TAGS.service], MatchOptions: ['EQUALS'] } },
          { Tags: { Key: ENVIRONMENT_TAG, Values: [config.name], MatchOptions: ['EQUALS'] } },
        ],
      }),
    });
    new ce.CfnAnomalySubscription(this, 'AnomalySubscription', {
      subscriptionName: `${name}-${Stack.of(this).region}`,
      frequency: 'DAILY',
      monitorArnList: [this.anomalyMonitor.attrMonitorArn],
      subscribers: config.costs.alertEmails.map((address) => ({ type: 'EMAIL', address })),
      thresholdExpression: JSON.stringify({
        Dimensions: { Key: 'ANOMALY_TOTAL_IMPACT_ABSOLUTE', MatchOptions: ['GREATER_THAN_OR_EQUAL'], Values: [String(config.costs.anomalyThresholdUsd)] },
      }),
    });

    const metricName = `timebill-${config.name}-token-endpoint`;
    this.tokenEndpointAcl = new wafv2.CfnWebACL(this, 'TokenEndpointAcl', {
      name: `${name}-token-endpoint`,
      description: 'Rate limit on the Cognito token endpoint, where each token request is billed',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName },
      rules: [
        {
          name: 'token-requests-per-ip',
          priority: 0,
          action: { block: { customResponse: { responseCode: 429 } } },
          statement: { rateBasedStatement: { limit: config.costs.tokenRequestsPer5MinutesPerIp, evaluationWindowSec: 300, aggregateKeyType: 'IP' } },
          visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: `${metricName}-rate` },
        },
      ],
    });
    new wafv2.CfnWebACLAssociation(this, 'TokenEndpointAclAssociation', {
      resourceArn: props.userPool.userPoolArn,
      webAclArn: this.tokenEndpointAcl.attrArn,
    });
  }
}
