/**
 * Alarms that page on what matters. Every alarm here has 1-minute periods and fires on M of N
 * of them (one bad minute is noise, three of five is an incident). They are combined in ONE
 * composite alarm whose only action is the pager topic, so an incident pages once, however many of
 * its symptoms fire. That composite is a tree: the alarms go into group composites of at most
 * ALARMS_PER_GROUP each (no actions), and the paging composite is ANY of the groups, so no rule
 * nears CloudWatch's 10,240 characters whatever the number of functions. Each symptom alarm notifies only the notices topic (a chat channel or ticket
 * queue, never a pager): AWS Control Tower's CT.CLOUDWATCH.PR.1 wants an action on every alarm. Each alarm's runbook line is in docs/deploy.md
 * ("Alarms"), keyed by the alarm's construct id.
 *
 * Hook for later alarms (DLQ depth, stream iterator age from the events work): call
 * `paging.add(alarm)` (TimebillApi in infra/stack.ts) with any 1-minute M-of-N alarm, anywhere before synthesis; the
 * composite's rule is computed at synthesis, so it includes it. Add its runbook line too.
 */
import { Duration, Lazy } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { EnvironmentConfig } from '../config/environments.ts';
import type { DeployedFunction } from './deployments.ts';

export const ONE_MINUTE = Duration.minutes(1);
/** The table operations the functions send (Get, Query, Put, Update, Delete, TransactWrite). */
export const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];
/** Rates are not computed on fewer requests than this a minute (two 401s of three calls are no outage). */
export const MIN_REQUESTS_FOR_RATE = 20;
/** CloudWatch's limit on a composite alarm's rule. */
export const MAX_ALARM_RULE_LENGTH = 10240;
/** Upper bound of one term of the rule: `ALARM("arn:aws:cloudwatch:<region>:<account>:alarm:<name>") OR `. */
export const ALARM_RULE_TERM_LENGTH = 160;
/** Alarms per group composite (and groups in the paging composite): 40 × 160 = 6,400 characters at most. */
export const ALARMS_PER_GROUP = 40;

export interface PagingAlarmsProps {
  readonly config: EnvironmentConfig;
  readonly api: apigw.RestApi;
  readonly accessLogs: logs.ILogGroup;
  /** Namespace of the metrics counted from the access log (one per environment: no collisions). */
  readonly metricsNamespace: string;
  readonly table: dynamodb.ITable;
  readonly indexNames: readonly string[];
  readonly functions: readonly DeployedFunction[];
  readonly pagerTopic: sns.ITopic;
  /** Where each symptom alarm reports (not a pager). */
  readonly noticeTopic: sns.ITopic;
}

/** M of N one-minute periods, breaching when above the threshold; missing data is not breaching. */
export function pagingAlarm(scope: Construct, id: string, metric: cloudwatch.IMetric, threshold: number, m: number, n: number, description: string) {
  return new cloudwatch.Alarm(scope, id, {
    metric,
    threshold,
    evaluationPeriods: n,
    datapointsToAlarm: m,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: `${description} (${m} of the last ${n} minutes). Runbook: docs/deploy.md#alarms, ${id}.`,
  });
}

export class PagingAlarms extends Construct {
  private readonly children: cloudwatch.IAlarm[] = [];
  /** Group composites and their members, filled by add(); the paging composite is ANY of them. */
  private readonly groups: { readonly composite: cloudwatch.CompositeAlarm; readonly members: cloudwatch.IAlarm[] }[] = [];
  private readonly notice: cwActions.SnsAction;
  readonly composite: cloudwatch.CompositeAlarm;
  /** Metrics counted from the access log, for the dashboard. */
  readonly unauthorized: cloudwatch.Metric;
  readonly authorizerFailures: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: PagingAlarmsProps) {
    super(scope, id);
    this.notice = new cwActions.SnsAction(props.noticeTopic);
    const { config, api, table } = props;
    const stage = api.deploymentStage;
    const requests = stage.metricCount({ statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE });
    const fromAccessLog = (metricName: string, pattern: logs.IFilterPattern) =>
      new logs.MetricFilter(this, `${metricName}Filter`, {
        logGroup: props.accessLogs,
        filterPattern: pattern,
        metricNamespace: props.metricsNamespace,
        metricName,
        metricValue: '1',
      }).metric({ statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE });
    /** `part` as a percentage of the requests, 0 below the minimum volume. */
    const rate = (label: string, part: cloudwatch.IMetric) =>
      new cloudwatch.MathExpression({
        label,
        expression: `IF(requests >= ${MIN_REQUESTS_FOR_RATE}, 100 * FILL(part, 0) / requests, 0)`,
        usingMetrics: { part, requests },
        period: ONE_MINUTE,
      });

    // ---- API ----------------------------------------------------------------------------------
    this.add(
      pagingAlarm(this, 'ApiLatencyP99', stage.metricLatency({ statistic: cloudwatch.Stats.p(99), period: ONE_MINUTE }), config.alarms.apiLatencyP99Ms, 3, 5,
        `API p99 latency above ${config.alarms.apiLatencyP99Ms} ms`),
    );
    this.add(
      pagingAlarm(this, 'ApiIntegrationLatencyP99', stage.metricIntegrationLatency({ statistic: cloudwatch.Stats.p(99), period: ONE_MINUTE }),
        config.alarms.integrationLatencyP99Ms, 3, 5, `API p99 integration (function) latency above ${config.alarms.integrationLatencyP99Ms} ms`),
    );
    this.add(
      pagingAlarm(this, 'Api5xxRate', rate('5xx rate (%)', stage.metricServerError({ statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE })),
        config.alarms.serverErrorRatePercent, 3, 5, `More than ${config.alarms.serverErrorRatePercent} % of API requests answered 5xx`),
    );
    // A token-verification outage (JWKS unreachable, a bad deploy of the authorizer) turns every
    // request into a 401: the rate of 401s, not their number, shows it.
    this.unauthorized = fromAccessLog('Unauthorized', logs.FilterPattern.numberValue('$.status', '=', 401));
    this.add(
      pagingAlarm(this, 'Api401Spike', rate('401 rate (%)', this.unauthorized), config.alarms.unauthorizedRatePercent, 3, 5,
        `More than ${config.alarms.unauthorizedRatePercent} % of API requests answered 401`),
    );
    this.authorizerFailures = fromAccessLog(
      'AuthorizerFailures',
      logs.FilterPattern.any(
        logs.FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_FAILURE'),
        logs.FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
      ),
    );
    this.add(pagingAlarm(this, 'AuthorizerFailures', this.authorizerFailures, 5, 2, 3, 'API Gateway could not get an answer from the authorizer more than 5 times a minute'));

    // ---- functions ----------------------------------------------------------------------------
    for (const f of props.functions) {
      this.add(f.errorsAlarm);
      this.add(f.latencyAlarm);
      this.add(
        pagingAlarm(this, `${f.name}Throttles`, f.fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE }), 0, 2, 3,
          `${f.name} was throttled: it reached its reserved concurrency (or the account's)`),
      );
    }

    // ---- DynamoDB -----------------------------------------------------------------------------
    const operations = TABLE_OPERATIONS;
    this.add(
      pagingAlarm(this, 'TableSystemErrors', table.metricSystemErrorsForOperations({ operations, period: ONE_MINUTE }), 0, 2, 3,
        'DynamoDB answered with server errors (HTTP 500)'),
    );
    this.add(
      pagingAlarm(this, 'TableThrottledRequests', table.metricThrottledRequestsForOperations({ operations, period: ONE_MINUTE }), 0, 2, 3,
        'DynamoDB throttled requests (on demand: the table maximum throughput or a hot partition)'),
    );
    const indexThrottles: Record<string, cloudwatch.IMetric> = {};
    props.indexNames.forEach((indexName, i) => {
      for (const kind of ['Read', 'Write'] as const) {
        indexThrottles[`${kind.toLowerCase()}${i}`] = new cloudwatch.Metric({
          namespace: 'AWS/DynamoDB',
          metricName: `${kind}ThrottleEvents`,
          dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
          statistic: cloudwatch.Stats.SUM,
          period: ONE_MINUTE,
        });
      }
    });
    if (props.indexNames.length > 0) {
      this.add(
        pagingAlarm(this, 'IndexThrottleEvents',
          new cloudwatch.MathExpression({ label: 'GSI throttle events', expression: `SUM([${Object.keys(indexThrottles).join(',')}])`, usingMetrics: indexThrottles, period: ONE_MINUTE }),
          0, 2, 3, 'DynamoDB throttled reads or writes of a global secondary index'),
      );
    }
    const latencies: Record<string, cloudwatch.IMetric> = {};
    operations.forEach((operation, i) => {
      latencies[`op${i}`] = table.metricSuccessfulRequestLatency({ dimensionsMap: { TableName: table.tableName, Operation: operation }, statistic: cloudwatch.Stats.p(99), period: ONE_MINUTE });
    });
    this.add(
      pagingAlarm(this, 'TableLatencyP99',
        new cloudwatch.MathExpression({ label: 'DynamoDB p99 latency, slowest operation (ms)', expression: `MAX([${Object.keys(latencies).join(',')}])`, usingMetrics: latencies, period: ONE_MINUTE }),
        config.alarms.dynamoLatencyP99Ms, 3, 5, `DynamoDB p99 latency above ${config.alarms.dynamoLatencyP99Ms} ms for some operation`),
    );

    // ---- the one alarm that pages -------------------------------------------------------------
    const groups = this.groups;
    this.composite = new cloudwatch.CompositeAlarm(this, 'Page', {
      alarmDescription: 'Timebill API needs a human: one of its paging alarms fires. Open the dashboard; runbook in docs/deploy.md#alarms.',
      alarmRule: anyOfLater(() => groups.map((group) => group.composite)),
    });
    this.composite.addAlarmAction(new cwActions.SnsAction(props.pagerTopic));
    this.composite.addOkAction(new cwActions.SnsAction(props.pagerTopic));
    this.node.addValidation({
      validate: () => {
        // ARNs are tokens until deployment: count each term as `ALARM("<longest alarm ARN>") OR `.
        if (groups.length === 0) return ['The composite alarm has no alarms'];
        const longest = Math.max(groups.length, ...groups.map((group) => group.members.length)) * ALARM_RULE_TERM_LENGTH;
        return longest > MAX_ALARM_RULE_LENGTH ? [`Composite alarm rule too long (about ${longest})`] : [];
      },
    });
  }

  /**
   * Makes an alarm page (through the composite). For DLQ depth, iterator age and later alarms.
   * An alarm of this app also reports to the notices topic (its ALARM action).
   */
  add(alarm: cloudwatch.IAlarm): void {
    this.children.push(alarm);
    let group = this.groups.at(-1);
    if (group === undefined || group.members.length === ALARMS_PER_GROUP) {
      const members: cloudwatch.IAlarm[] = [];
      // No action: only the paging composite notifies (its rule is ANY of the groups).
      const composite = new cloudwatch.CompositeAlarm(this, `Group${this.groups.length + 1}`, {
        alarmDescription: 'A group of paging alarms; pages through the Page composite. Runbook: docs/deploy.md#alarms.',
        alarmRule: anyOfLater(() => members),
      });
      group = { composite, members };
      this.groups.push(group);
    }
    group.members.push(alarm);
    if (alarm instanceof cloudwatch.Alarm) alarm.addAlarmAction(this.notice);
  }

  get alarms(): readonly cloudwatch.IAlarm[] {
    return this.children;
  }
}

/** ANY of the alarms, rendered at synthesis so that alarms added later are in the rule. */
function anyOfLater(alarms: () => readonly cloudwatch.IAlarm[]): cloudwatch.IAlarmRule {
  return { renderAlarmRule: () => Lazy.string({ produce: () => cloudwatch.AlarmRule.anyOf(...alarms()).renderAlarmRule() }) };
}
