/**
 * One CloudWatch dashboard per environment: the paging alarm's state, the API, the authorizer,
 * each function (invocations, errors, p99, throttles, concurrency) and DynamoDB. One-minute
 * periods, like the alarms, so a graph shows what an alarm saw.
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ONE_MINUTE, TABLE_OPERATIONS, type PagingAlarms } from './alarms.ts';
import type { DeployedFunction } from './deployments.ts';

export interface OperationsDashboardProps {
  /** Dashboard names are per account (not per region): carry environment and region. */
  readonly dashboardName: string;
  readonly api: apigw.RestApi;
  readonly table: dynamodb.ITable;
  readonly functions: readonly DeployedFunction[];
  readonly paging: PagingAlarms;
}

const WIDTH = 24;
const sum = { statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE };
const p99 = { statistic: cloudwatch.Stats.p(99), period: ONE_MINUTE };
const max = { statistic: cloudwatch.Stats.MAXIMUM, period: ONE_MINUTE };

/** invocations, errors, p99, throttles, concurrency of one function (its live alias where it has one). */
export function functionRow(f: DeployedFunction): cloudwatch.IWidget[] {
  const width = WIDTH / 5;
  return [
    new cloudwatch.GraphWidget({ title: `${f.name}: invocations`, left: [f.alias.metricInvocations(sum)], width }),
    new cloudwatch.GraphWidget({ title: `${f.name}: errors`, left: [f.alias.metricErrors(sum)], width }),
    new cloudwatch.GraphWidget({ title: `${f.name}: p99 duration (ms)`, left: [f.alias.metricDuration(p99)], width }),
    new cloudwatch.GraphWidget({ title: `${f.name}: throttles`, left: [f.fn.metricThrottles(sum)], width }),
    new cloudwatch.GraphWidget({ title: `${f.name}: concurrency`, left: [f.fn.metric('ConcurrentExecutions', max)], width }),
  ];
}

export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const stage = props.api.deploymentStage;
    const { table } = props;
    const authorizer = props.functions.find((f) => f.operation === 'authorizer');
    const routes = props.functions.filter((f) => f !== authorizer);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: undefined,
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Paging alarm and its causes', alarms: [props.paging.composite, ...props.paging.alarms], width: WIDTH, height: 4 }),
    );
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## API', width: WIDTH, height: 1 }));
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Requests, 4xx, 5xx', left: [stage.metricCount(sum), stage.metricClientError(sum), stage.metricServerError(sum)], width: 8 }),
      new cloudwatch.GraphWidget({ title: 'p99 latency and integration latency (ms)', left: [stage.metricLatency(p99), stage.metricIntegrationLatency(p99)], width: 8 }),
      new cloudwatch.GraphWidget({ title: '401s and authorizer failures (access log)', left: [props.paging.unauthorized, props.paging.authorizerFailures], width: 8 }),
    );
    if (authorizer) {
      this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## Authorizer', width: WIDTH, height: 1 }));
      this.dashboard.addWidgets(...functionRow(authorizer));
    }
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## Functions', width: WIDTH, height: 1 }));
    for (const f of routes) this.dashboard.addWidgets(...functionRow(f));
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## DynamoDB', width: WIDTH, height: 1 }));
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Consumed read / write units',
        left: [table.metricConsumedReadCapacityUnits(sum)],
        right: [table.metricConsumedWriteCapacityUnits(sum)],
        width: 6,
      }),
      new cloudwatch.GraphWidget({ title: 'Throttled requests', left: [table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: ONE_MINUTE })], width: 6 }),
      new cloudwatch.GraphWidget({ title: 'System errors', left: [table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: ONE_MINUTE })], width: 6 }),
      new cloudwatch.GraphWidget({
        title: 'p99 latency by operation (ms)',
        left: TABLE_OPERATIONS.map((operation) =>
          table.metricSuccessfulRequestLatency({ dimensionsMap: { TableName: table.tableName, Operation: operation }, ...p99, label: operation }),
        ),
        width: 6,
      }),
    );
  }

  /**
   * The functions that are not routes (invocations and errors; a stream consumer's iterator age)
   * and the queues (messages waiting, the oldest one's age; dead letters and stream failures).
   */
  addBackground(props: {
    functions: readonly { name: string; fn: lambda.IFunction; readsStream: boolean }[];
    queues: readonly { name: string; queue: sqs.IQueue }[];
    undelivered: readonly { name: string; queue: sqs.IQueue }[];
  }): void {
    if (props.functions.length === 0) return;
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## Background functions and queues', width: WIDTH, height: 1 }));
    this.dashboard.addWidgets(
      ...props.functions.map(({ name, fn }) => new cloudwatch.GraphWidget({ title: `${name}: invocations and errors`, left: [fn.metricInvocations(sum), fn.metricErrors(sum)], width: 6 })),
      ...props.functions
        .filter((f) => f.readsStream)
        .map(({ name, fn }) => new cloudwatch.GraphWidget({ title: `${name}: iterator age (ms)`, left: [fn.metric('IteratorAge', max)], width: 6 })),
      new cloudwatch.GraphWidget({
        title: 'Queues: messages waiting, oldest (s)',
        left: props.queues.map(({ name, queue }) => queue.metricApproximateNumberOfMessagesVisible({ ...max, label: name })),
        right: props.queues.map(({ name, queue }) => queue.metricApproximateAgeOfOldestMessage({ ...max, label: `${name} oldest` })),
        width: 6,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead letters and stream failures (each pages)',
        left: props.undelivered.map(({ name, queue }) => queue.metricApproximateNumberOfMessagesVisible({ ...max, label: name })),
        width: 6,
      }),
    );
  }
}
