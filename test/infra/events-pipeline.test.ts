/**
 * The events pipeline in AWS (docs/events.md, docs/deploy.md "Events and webhooks"), proven on the
 * synthesized prod stacks, read from the infra project's cloud assembly (test/infra/support/assembly.ts;
 * bundling skipped: test/infra/stack.test.ts checks the bundles):
 *
 *   table stream ─▶ recordEvents ─▶ deliveries queue ─▶ deliverWebhooks ─▶ POST
 *                     └ on failure: stream failures queue      └ after the last attempt: dead letters
 *
 * the stream and its mapping (bisection, bounded retries and age, on-failure destination), the
 * queues (encryption, TLS only, retention, redrive), the alarms in the paging tree, the dashboard
 * row, and the grants of both functions, each cut to what its code sends.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { mergedFromAssembly, readAssembly } from './support/templates.ts';
import { TABLE_ACTIONS } from '../../infra/access.ts';
import { EVENTS_BATCHING_WINDOW, ITERATOR_AGE_ALARM_MS, QUEUE_CONSUMER_MAX_CONCURRENCY, QUEUE_RETENTION, STREAM_MAX_RECORD_AGE, STREAM_RETRY_ATTEMPTS } from '../../infra/stack.ts';
import { GAP_BOUND_MS } from '../../shared/events/sync.ts';
import { OUTPUTS } from '../../infra/names.ts';
import { BACKGROUND_FUNCTIONS } from '../../shared/api/background.ts';
import { AWS_RETRY_SCHEDULE, RETRY_CAP_MS, RETRY_SPAN_MS, nextDelayMs } from '../../shared/core/retry-schedule.ts';
import { DELIVERY_TIMEOUT_MS } from '../../shared/webhooks/delivery.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface CfnResource {
  Type: string;
  Properties: Json;
}

const refId = (value: Json): string | undefined => value?.Ref ?? (value?.['Fn::GetAtt'] ? value['Fn::GetAtt'][0] : undefined);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
const DAY_SECONDS = 24 * 60 * 60;
/** DynamoDB Streams keeps records 24 hours. */
const STREAM_RETENTION_SECONDS = DAY_SECONDS;

const consumer = BACKGROUND_FUNCTIONS.find((f) => f.trigger === 'table-stream')!;
const worker = BACKGROUND_FUNCTIONS.find((f) => f.trigger === 'queue')!;

let resources: Record<string, CfnResource>;
let outputs: Record<string, { Value: Json }>;

beforeAll(() => {
  const template = mergedFromAssembly(readAssembly(inject('infraAssembly')).get('prod')!);
  resources = template.Resources;
  outputs = template.Outputs;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const idStartingWith = (type: string, prefix: string) => {
  const found = ofType(type).filter(([id]) => id.startsWith(prefix));
  expect(found, `${type} ${prefix}`).toHaveLength(1);
  return found[0]![0];
};
const functionId = (operation: string) => idStartingWith('AWS::Lambda::Function', `${operation.charAt(0).toUpperCase()}${operation.slice(1)}Function`);
const tableId = () => ofType('AWS::DynamoDB::Table')[0]![0];
const deliveries = () => idStartingWith('AWS::SQS::Queue', 'DeliveriesQueue');
const deadLetters = () => idStartingWith('AWS::SQS::Queue', 'DeliveriesDeadLetters');
const streamFailures = () => idStartingWith('AWS::SQS::Queue', 'RecordEventsStreamFailures');
/** The billing runs' queues (decision 0033; their own tests are in stack.test.ts): the consumer sends each started run's first plan page. */
const billing = () => idStartingWith('AWS::SQS::Queue', 'BillingQueue');
const billingQueues = () => [billing(), idStartingWith('AWS::SQS::Queue', 'BillingDeadLetters'), idStartingWith('AWS::SQS::Queue', 'SweepBillingSchedulesScheduleDeadLetters')];
const streamMapping = () => ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.StartingPosition !== undefined)![1].Properties;
const queueMapping = () => ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.StartingPosition === undefined)![1].Properties;

/** Every statement of the policies attached to a function's role. */
const statementsOf = (fnId: string): Json[] => {
  const role = refId(resources[fnId]!.Properties.Role)!;
  return [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')]
    .filter(([, p]) => (p.Properties.Roles ?? []).some((r: Json) => refId(r) === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
};
const withPrefix = (statements: Json[], prefix: string) => statements.filter((s) => asArray<string>(s.Action).some((a) => a.startsWith(prefix)));
const actionsIn = (statements: Json[]) => [...new Set(statements.flatMap((s) => asArray<string>(s.Action)))].sort();
const resourceIds = (statements: Json[]) => [...new Set(statements.flatMap((s) => asArray(s.Resource)).map((r) => refId(r) ?? JSON.stringify(r)))].sort();

describe('the table stream and its consumer', () => {
  it('the table streams both images of every change', () => {
    expect(resources[tableId()]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('the consumer reads it from the oldest record, one batch per shard at a time, bisecting a failing batch', () => {
    const m = streamMapping();
    expect(m.EventSourceArn).toEqual({ 'Fn::GetAtt': [tableId(), 'StreamArn'] });
    expect(refId(m.FunctionName)).toBe(functionId(consumer.operation));
    expect(m).toMatchObject({ StartingPosition: 'TRIM_HORIZON', BatchSize: 100, ParallelizationFactor: 1, BisectBatchOnFunctionError: true });
    // A second of a shard's changes per batch: one append transaction per workspace (decision 0018).
    expect(m.MaximumBatchingWindowInSeconds).toBe(EVENTS_BATCHING_WINDOW.toSeconds());
    // The consumer throws on any failure (shared/webhooks/consumer.ts): no per-record responses are
    // claimed; bisection isolates the record it fails on.
    expect(m.FunctionResponseTypes).toBeUndefined();
  });

  it('gives up on a record after bounded retries or age, and then describes it in an encrypted, TLS-only on-failure queue', () => {
    const m = streamMapping();
    expect(m.MaximumRetryAttempts).toBe(STREAM_RETRY_ATTEMPTS);
    expect(m.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(m.MaximumRecordAgeInSeconds).toBe(STREAM_MAX_RECORD_AGE.toSeconds());
    // Given up while the record is still in the stream, so it can be read back and replayed (docs/deploy.md).
    expect(m.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(STREAM_RETENTION_SECONDS / 2);
    // Sync mode passes a missing event only once nothing can write it any more (shared/events/sync.ts):
    // later than the oldest record the consumer, or a replay (docs/deploy.md), can still read, plus its longest invocation.
    expect(GAP_BOUND_MS / 1000).toBeGreaterThan(Math.max(STREAM_MAX_RECORD_AGE.toSeconds(), STREAM_RETENTION_SECONDS) + consumer.timeoutSeconds);
    expect(m.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [streamFailures(), 'Arn'] } } });
    const queue = resources[streamFailures()]!.Properties;
    expect(queue).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: QUEUE_RETENTION.toSeconds(), RedriveAllowPolicy: { redrivePermission: 'allowAll' } });
  });
});

describe('the delivery queue and its dead-letter queue', () => {
  it('moves a message to the dead-letter queue after the schedule\'s last attempt', () => {
    expect(resources[deliveries()]!.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters(), 'Arn'] },
      maxReceiveCount: AWS_RETRY_SCHEDULE.maxAttempts,
    });
    expect(worker.trigger === 'queue' && worker.maxReceives).toBe(AWS_RETRY_SCHEDULE.maxAttempts);
  });

  it('keeps a message longer than its whole retry span at the worst jitter, and a dead letter long enough to be redriven', () => {
    const timeout = resources[functionId(worker.operation)]!.Properties.Timeout as number;
    // Every wait at its largest jitter, and every attempt holding the message for the function's whole timeout.
    let worstMs = AWS_RETRY_SCHEDULE.maxAttempts * timeout * 1000;
    let leastMs = 0;
    for (let attempt = 1; attempt < AWS_RETRY_SCHEDULE.maxAttempts; attempt++) {
      worstMs += nextDelayMs(AWS_RETRY_SCHEDULE, attempt, () => 1)!;
      leastMs += nextDelayMs(AWS_RETRY_SCHEDULE, attempt, () => 0)!;
      // Each wait is a visibility timeout: SQS allows at most 12 hours.
      expect(nextDelayMs(AWS_RETRY_SCHEDULE, attempt, () => 1)!).toBeLessThanOrEqual(RETRY_CAP_MS);
    }
    expect(nextDelayMs(AWS_RETRY_SCHEDULE, AWS_RETRY_SCHEDULE.maxAttempts)).toBeUndefined();
    expect(leastMs).toBeGreaterThanOrEqual(RETRY_SPAN_MS); // events.md: retried for at least 3 days
    expect(worstMs / 1000 / DAY_SECONDS).toBeLessThan(4); // about 3.4 days
    const retention = (id: string) => resources[id]!.Properties.MessageRetentionPeriod as number;
    expect(retention(deliveries())).toBeGreaterThan(worstMs / 1000);
    // A dead letter keeps its first enqueue time: it has the rest of the retention to be redriven (10 days and more).
    expect(retention(deadLetters()) - worstMs / 1000).toBeGreaterThanOrEqual(10 * DAY_SECONDS);
  });

  it('the worker outlives a delivery\'s 10 s timeout, and the queue hides a received message six times that long', () => {
    const timeout = resources[functionId(worker.operation)]!.Properties.Timeout as number;
    expect(timeout).toBe(worker.timeoutSeconds);
    expect(timeout).toBeGreaterThan(DELIVERY_TIMEOUT_MS / 1000 + 2 * 8.5);
    expect(resources[deliveries()]!.Properties.VisibilityTimeout).toBe(6 * timeout);
    expect(resources[functionId(consumer.operation)]!.Properties.Timeout).toBe(consumer.timeoutSeconds);
  });

  it('the worker takes up to 10 messages, reports each failure alone, and runs at most QUEUE_CONSUMER_MAX_CONCURRENCY at once', () => {
    const m = queueMapping();
    expect(m.EventSourceArn).toEqual({ 'Fn::GetAtt': [deliveries(), 'Arn'] });
    expect(refId(m.FunctionName)).toBe(functionId(worker.operation));
    expect(m).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: QUEUE_CONSUMER_MAX_CONCURRENCY } });
    expect(m.MaximumBatchingWindowInSeconds).toBe(EVENTS_BATCHING_WINDOW.toSeconds());
    // The consumer learns the queue's URL from its environment.
    expect(resources[functionId(consumer.operation)]!.Properties.Environment.Variables.DELIVERIES_QUEUE_URL).toEqual({ Ref: deliveries() });
  });

  it('every queue is encrypted, keeps messages 14 days and refuses requests without TLS', () => {
    const queues = ofType('AWS::SQS::Queue').map(([id]) => id).sort();
    expect(queues).toEqual([deliveries(), deadLetters(), streamFailures(), ...billingQueues()].sort());
    for (const id of queues) {
      expect(resources[id]!.Properties, id).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * DAY_SECONDS });
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => p.Properties.Queues.some((q: Json) => refId(q) === id));
      const denies = policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement).filter((s: Json) => s.Effect === 'Deny');
      expect(denies, id).toEqual([expect.objectContaining({ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Principal: { AWS: '*' } })]);
    }
  });
});

describe('alarms', () => {
  /** The alarms of the paging rule (the composite with an action), through its groups. */
  const paging = () => {
    const [, page] = ofType('AWS::CloudWatch::CompositeAlarm').find(([, a]) => (a.Properties.AlarmActions ?? []).length > 0)!;
    expect(page.Properties.AlarmActions).toEqual([{ Ref: refId(outputs[OUTPUTS.alarmTopicArn]!.Value) }]);
    const terms = (a: CfnResource) => (a.Properties.AlarmRule['Fn::Join'][1] as Json[]).map(refId).filter((id): id is string => id !== undefined);
    return new Set(terms(page).flatMap((id) => terms(resources[id]!)));
  };
  const alarm = (prefix: string) => {
    const id = idStartingWith('AWS::CloudWatch::Alarm', prefix);
    expect(paging().has(id), `${id} pages`).toBe(true);
    const p = resources[id]!.Properties;
    expect(p).toMatchObject({ Period: 60, TreatMissingData: 'notBreaching', ComparisonOperator: 'GreaterThanThreshold' });
    expect(p.DatapointsToAlarm).toBeGreaterThanOrEqual(2);
    expect(p.AlarmDescription).toMatch(/Runbook: docs\/deploy.md#alarms/);
    return p;
  };
  const onQueue = (p: Json) => refId(p.Dimensions.find((d: Json) => d.Name === 'QueueName').Value);
  const onFunction = (p: Json) => refId(p.Dimensions.find((d: Json) => d.Name === 'FunctionName').Value);

  it('a dead-lettered delivery pages', () => {
    const p = alarm('DeliveriesDeadLettersAlarm');
    expect(p).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS', Statistic: 'Maximum', Threshold: 0 });
    expect(onQueue(p)).toBe(deadLetters());
  });

  it('a record in the stream on-failure queue pages', () => {
    const p = alarm('RecordEventsStreamFailuresAlarm');
    expect(p).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum', Threshold: 0 });
    expect(onQueue(p)).toBe(streamFailures());
  });

  it('the consumer falling more than a minute behind the stream pages', () => {
    const p = alarm('RecordEventsIteratorAge');
    expect(p).toMatchObject({ MetricName: 'IteratorAge', Namespace: 'AWS/Lambda', Statistic: 'Maximum', Threshold: ITERATOR_AGE_ALARM_MS, DatapointsToAlarm: 3, EvaluationPeriods: 5 });
    expect(onFunction(p)).toBe(functionId(consumer.operation));
  });

  it('errors of either function page', () => {
    for (const f of [consumer, worker]) {
      const name = `${f.operation.charAt(0).toUpperCase()}${f.operation.slice(1)}`;
      const p = alarm(`${name}ErrorsAlarm`);
      expect(p).toMatchObject({ MetricName: 'Errors', Statistic: 'Sum', Threshold: 0 });
      expect(onFunction(p)).toBe(functionId(f.operation));
    }
  });

  it('the dashboard has their row: invocations and errors, iterator age, queue depths, dead letters and stream failures', () => {
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    expect(body).toContain('## Background functions and queues');
    for (const title of ['RecordEvents: invocations and errors', 'DeliverWebhooks: invocations and errors', 'RecordEvents: iterator age (ms)', 'Queues: messages waiting, oldest (s)', 'Dead letters and stream failures (each pages)']) {
      expect(body, title).toContain(title);
    }
    for (const queue of [deliveries(), deadLetters(), streamFailures()]) expect(body, queue).toContain(queue);
  });
});

describe('least privilege', () => {
  const table = () => ({ 'Fn::GetAtt': [tableId(), 'Arn'] });

  it('the consumer: the events level on the table alone (no index, no delete), its stream, and sending to the deliveries, the billing queue and its on-failure queue', () => {
    const statements = statementsOf(functionId(consumer.operation));
    const items = statements.filter((s) => asArray<string>(s.Action).some((a) => ['dynamodb:GetItem', 'dynamodb:PutItem'].includes(a)));
    expect(items).toHaveLength(1);
    expect(actionsIn(items)).toEqual([...TABLE_ACTIONS.events].sort());
    expect(items[0].Resource).toEqual(table());
    expect(actionsIn(items)).not.toContain('dynamodb:DeleteItem');
    const stream = statements.filter((s) => asArray<string>(s.Action).includes('dynamodb:GetRecords'));
    expect(stream).toHaveLength(1);
    expect(actionsIn(stream)).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']);
    expect(stream[0].Resource).toEqual({ 'Fn::GetAtt': [tableId(), 'StreamArn'] });
    // ListStreams has no resource-level permission (acknowledged in NAG_ACKNOWLEDGEMENTS.streamConsumer).
    const listStreams = statements.filter((s) => asArray<string>(s.Action).includes('dynamodb:ListStreams'));
    expect(listStreams.map((s) => s.Resource)).toEqual(['*']);
    const sqs = withPrefix(statements, 'sqs:');
    expect(actionsIn(sqs)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    expect(resourceIds(sqs)).toEqual([deliveries(), streamFailures(), billing()].sort());
  });

  it('the worker: GetItem on the table alone, and receiving, deleting and re-timing messages of its queue; no stream, no sending', () => {
    const statements = statementsOf(functionId(worker.operation));
    const dynamo = withPrefix(statements, 'dynamodb:');
    expect(actionsIn(dynamo)).toEqual(['dynamodb:GetItem']);
    expect(dynamo.map((s) => s.Resource)).toEqual([table()]);
    const sqs = withPrefix(statements, 'sqs:');
    expect(actionsIn(sqs)).toEqual(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage']);
    expect(resourceIds(sqs)).toEqual([deliveries()]);
  });

  it('neither gets anything else but its log group and X-Ray', () => {
    for (const f of [consumer, worker]) {
      const fnId = functionId(f.operation);
      const others = statementsOf(fnId).filter((s) => !asArray<string>(s.Action).every((a) => /^(dynamodb|sqs):/.test(a)));
      for (const s of others) {
        const actions = asArray<string>(s.Action).filter((a) => a !== 'dynamodb:ListStreams');
        expect(actions.every((a) => ['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTraceSegments', 'xray:PutTelemetryRecords'].includes(a)), `${fnId} ${actions}`).toBe(true);
      }
    }
  });
});
