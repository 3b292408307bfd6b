/**
 * The events pipeline in AWS (events.md):
 *
 *   table stream (NEW_AND_OLD_IMAGES) ─▶ EventsConsumer ─▶ event items (the feed)
 *                                          │  on failure (after bisecting and retries) ─▶ StreamFailureQueue
 *                                          └▶ DeliveryQueue ─▶ WebhookDelivery ─▶ POST to the endpoint
 *                                               retries: visibility timeout set per attempt (backoff + jitter)
 *                                               after the last attempt ─▶ DeliveryDeadLetterQueue
 *
 * The functions are the same modules the local stack runs (shared/events/functions.ts). Every
 * queue is KMS-encrypted and refuses non-TLS access; the alarms are exposed for the operations
 * dashboards (deliveryDeadLetterAlarm, streamFailureAlarm, iteratorAgeAlarm, …).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_FUNCTIONS } from '../shared/events/functions.ts';
import { AWS_RETRY_SCHEDULE, RETRY_CAP_MS } from '../shared/events/retry.ts';
import { DELIVERY_TIMEOUT_MS } from '../shared/events/delivery.ts';
import { EVENT_SOURCE_KINDS } from '../shared/events/types.ts';
import type { TableAccess } from './access.ts';

export interface EventFunctionOptions {
  entry: string;
  description: string;
  environment: Record<string, string>;
  access: TableAccess;
  timeout: Duration;
}

export interface EventsPipelineProps {
  /** The table, with its stream enabled. */
  table: dynamodb.Table;
  /** Makes a function as the stack makes every other one (own role, own log group, table access). */
  makeFunction: (name: string, options: EventFunctionOptions) => nodejs.NodejsFunction;
  environment: Record<string, string>;
}

/** A batch of up to 100 changes appends their events in a few transactions; 30 s leaves room for retries. */
export const CONSUMER_TIMEOUT = Duration.seconds(30);
/** Ten deliveries run in parallel, each at most 10 s plus its DNS lookup and two reads. */
export const DELIVERY_FUNCTION_TIMEOUT = Duration.seconds(Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 10);
/** Attempts of a failing stream batch (each bisects it) before its records go to the failure queue. */
export const STREAM_RETRY_ATTEMPTS = 10;
/** At most this many deliveries run at once: a burst of events never floods a receiver or the account. */
export const DELIVERY_MAX_CONCURRENCY = 10;
/** The consumer is behind when its oldest record is older than this. */
export const ITERATOR_AGE_ALARM_MS = 60_000;

export class EventsPipeline extends Construct {
  readonly consumer: nodejs.NodejsFunction;
  readonly delivery: nodejs.NodejsFunction;
  readonly deliveryQueue: sqs.Queue;
  readonly deliveryDeadLetterQueue: sqs.Queue;
  readonly streamFailureQueue: sqs.Queue;
  /** Deliveries that exhausted their retries (3+ days). */
  readonly deliveryDeadLetterAlarm: cloudwatch.Alarm;
  /** Stream records the consumer could not turn into events. */
  readonly streamFailureAlarm: cloudwatch.Alarm;
  /** The consumer falls behind the stream (the feed lags). */
  readonly iteratorAgeAlarm: cloudwatch.Alarm;
  readonly consumerErrorsAlarm: cloudwatch.Alarm;
  readonly deliveryErrorsAlarm: cloudwatch.Alarm;
  /** Every alarm above, for the stack's alarm action. */
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: EventsPipelineProps) {
    super(scope, id);
    const queue = (name: string, extra: Partial<sqs.QueueProps> = {}) =>
      new sqs.Queue(this, name, {
        encryption: sqs.QueueEncryption.KMS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        ...extra,
      });

    // Both are dead-letter destinations, and say so (RedriveAllowPolicy), which is what Control
    // Tower's CT.SQS.PR.1 asks of a queue without a dead-letter queue of its own. `allowAll`, not
    // `byQueue`: naming the delivery queue here would make a reference cycle with its redrive policy.
    const deadLetter = { redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL } };
    this.streamFailureQueue = queue('StreamFailureQueue', deadLetter);
    this.deliveryDeadLetterQueue = queue('DeliveryDeadLetterQueue', deadLetter);
    this.deliveryQueue = queue('DeliveryQueue', {
      // The visibility timeout of a first receive; each failed attempt sets its own (the schedule).
      visibilityTimeout: Duration.seconds(DELIVERY_FUNCTION_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deliveryDeadLetterQueue, maxReceiveCount: AWS_RETRY_SCHEDULE.maxAttempts },
    });

    this.consumer = props.makeFunction(EVENT_FUNCTIONS.consumer.name, {
      entry: EVENT_FUNCTIONS.consumer.entry,
      description: 'Table stream -> events (the feed) -> one delivery message per matching webhook endpoint',
      environment: { ...props.environment, DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl },
      access: 'eventsConsumer',
      timeout: CONSUMER_TIMEOUT,
    });
    this.deliveryQueue.grantSendMessages(this.consumer);
    this.consumer.addEventSource(
      new sources.DynamoEventSource(props.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(0),
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        parallelizationFactor: 1,
        onFailure: new sources.SqsDlq(this.streamFailureQueue),
        // Only resource items can make events: the rest (events, counters, idempotency records)
        // never invoke the function.
        filters: [lambda.FilterCriteria.filter({ dynamodb: { Keys: { SK: { S: EVENT_SOURCE_KINDS.map((kind) => ({ prefix: `${kind}#` })) } } } })],
      }),
    );

    this.delivery = props.makeFunction(EVENT_FUNCTIONS.delivery.name, {
      entry: EVENT_FUNCTIONS.delivery.entry,
      description: 'Delivery queue -> one signed POST per message, retried with backoff for 3+ days',
      environment: props.environment,
      access: 'webhookDelivery',
      timeout: DELIVERY_FUNCTION_TIMEOUT,
    });
    this.delivery.addEventSource(
      new sources.SqsEventSource(this.deliveryQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: DELIVERY_MAX_CONCURRENCY,
      }),
    );

    const fiveMinutes = Duration.minutes(5);
    const visible = (q: sqs.Queue) => q.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: fiveMinutes });
    const atLeastOne = {
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };
    this.deliveryDeadLetterAlarm = visible(this.deliveryDeadLetterQueue).createAlarm(this, 'DeliveryDeadLetterAlarm', {
      ...atLeastOne,
      alarmDescription: `A webhook delivery failed every attempt for ${Math.round(AWS_RETRY_SCHEDULE.maxAttempts)} attempts (3+ days) and was dead-lettered`,
    });
    this.streamFailureAlarm = visible(this.streamFailureQueue).createAlarm(this, 'StreamFailureAlarm', {
      ...atLeastOne,
      alarmDescription: 'Stream records could not be turned into events: their descriptions are in the stream failure queue',
    });
    this.iteratorAgeAlarm = this.consumer
      .metric('IteratorAge', { statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(1) })
      .createAlarm(this, 'IteratorAgeAlarm', {
        threshold: ITERATOR_AGE_ALARM_MS,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `The events consumer is more than ${ITERATOR_AGE_ALARM_MS / 1000} s behind the table stream: the feed lags`,
      });
    const errors = (fn: nodejs.NodejsFunction, name: string) =>
      fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }).createAlarm(this, `${name}ErrorsAlarm`, {
        ...atLeastOne,
        alarmDescription: `The ${name} function failed (unhandled error or timeout) in the last five minutes`,
      });
    this.consumerErrorsAlarm = errors(this.consumer, EVENT_FUNCTIONS.consumer.name);
    this.deliveryErrorsAlarm = errors(this.delivery, EVENT_FUNCTIONS.delivery.name);
    this.alarms = [this.deliveryDeadLetterAlarm, this.streamFailureAlarm, this.iteratorAgeAlarm, this.consumerErrorsAlarm, this.deliveryErrorsAlarm];
    if (RETRY_CAP_MS / 1000 > 43_200) throw new Error('A retry wait cannot exceed SQS visibility timeouts (12 h)');
  }
}
