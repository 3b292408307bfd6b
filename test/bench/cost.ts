/**
 * Section 7: cost per million API requests for a stated mix of operations, from the units and
 * durations this run measured and AWS's published list prices (us-east-1).
 */
import type { LogEvidence } from './bill.ts';
import type { FixedCounts } from './fixed-items.ts';

/** AWS list prices, us-east-1. Not fetched: the benchmark has no network. */
export const PRICES = {
  asOf: '2025-08-01',
  source:
    'AWS pricing pages for Amazon API Gateway, AWS Lambda and Amazon DynamoDB (us-east-1), as published by AWS, as of 2025-08-01 ' +
    '(DynamoDB on-demand prices after the November 2024 price cut; Lambda bills the INIT phase of on-demand functions from 2025-08-01). ' +
    'Not re-checked by the benchmark, which has no network.',
  apiGatewayRestPerMillion: 3.5,
  lambdaRequestsPerMillion: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  dynamoWriteRequestUnitPerMillion: 0.625,
  dynamoReadRequestUnitPerMillion: 0.125,
  /** Standard queues, per million requests (each 64 KB chunk of a request counts as one). */
  sqsRequestsPerMillion: 0.4,
  /** GetRecords calls made by Lambda's event source mapping on a DynamoDB stream are not charged. */
  dynamoStreamReadsForLambdaPerMillion: 0,
} as const;

/** The mix: share of API requests per scenario (scenario keys of scenarios.ts). */
export const MIX: readonly { scenario: string; share: number }[] = [
  { scenario: 'listTimeEntries', share: 0.2 },
  { scenario: 'listClients', share: 0.1 },
  { scenario: 'listProjects', share: 0.1 },
  { scenario: 'retrieveTimeEntry', share: 0.1 },
  { scenario: 'retrieveClient', share: 0.1 },
  { scenario: 'retrieveProject', share: 0.1 },
  { scenario: 'logTimeEntry', share: 0.15 },
  { scenario: 'updateProject', share: 0.05 },
  { scenario: 'updateClient', share: 0.02 },
  { scenario: 'createClient', share: 0.02 },
  { scenario: 'createProject', share: 0.02 },
  { scenario: 'deleteTimeEntry', share: 0.03 },
  { scenario: 'deleteProject', share: 0.005 },
  { scenario: 'deleteClient', share: 0.005 },
];

export interface CostAssumptions {
  memoryMb: number;
  /** Share of requests whose policy API Gateway has cached (the authorizer is not invoked). */
  authorizerCacheHitRate: number;
  /** Share of invocations that are cold starts (their init is billed too). */
  coldStartRate: number;
}

export interface OperationInput {
  scenario: string;
  /** Units as measured (DynamoDB Local). */
  readUnits: number;
  writeUnits: number;
  /** Units as docs/data-model.md derives them (the floor). */
  floorReadUnits: number;
  floorWriteUnits: number;
  /** Warm invocation, DynamoDB round trip included. */
  warmMs: number;
  /** Process start to first reply. */
  coldMs: number;
}

/**
 * Batching of the events pipeline (decision 0018). The stream's event source mapping waits up to
 * its batching window (1 s, infra/stack.ts) to hand the consumer a batch: the model takes
 * CONSUMER_BATCH (test/bench/events.ts) changes of one workspace per batch, what a workspace making
 * 10 changes a second (or the whole table's traffic when every workspace is that busy) gives. Each
 * change queues one delivery (one endpoint per change), so a batch sends its deliveries in one
 * SendMessageBatch (10 messages), and the queue's event source mapping receives, and deletes, them
 * 10 at a time (batch size 10, 1 s window) in one invocation. The section also shows the pipeline
 * with no batching at all: one change per consumer invocation, one message per SQS request.
 */
export const QUEUE_BATCH = 10;

/** What one change costs the events pipeline (section 8), beyond the API request that made it. */
export interface EventsCostInput {
  /** Consumer units per change, by the scenario's kind of change. */
  consumerUnits: Record<'create' | 'update' | 'delete', { read: number; write: number }>;
  /** Changes per consumer invocation. */
  changesPerBatch: number;
  /** Deliveries per SQS request (send, receive, delete) and per delivery invocation. */
  deliveriesPerBatch: number;
  /** Consumer duration per change (its batch's divided by the changes in it). */
  consumerMs: number;
  /** Webhook deliveries per change (endpoints subscribed to it). */
  deliveriesPerChange: number;
  /** One delivery attempt, the receiver's answer included (local receiver: a lower bound). */
  deliveryMs: number;
  /** Reads per delivery attempt (the endpoint and the event, strongly consistent). */
  deliveryReadUnits: number;
}

/** create/update/delete of the mix's scenarios, by name. */
export const changeKindOf = (scenario: string): 'create' | 'update' | 'delete' | undefined =>
  /^(create|log)/.test(scenario) ? 'create' : /^update/.test(scenario) ? 'update' : /^delete/.test(scenario) ? 'delete' : undefined;

export interface CostLine {
  item: string;
  quantity: string;
  dollars: number;
}

export interface CostResult {
  assumptions: CostAssumptions;
  lines: CostLine[];
  total: number;
  /** The same with the floor units of docs/data-model.md instead of DynamoDB Local's. */
  totalAtFloorUnits: number;
  /** Of the total, the events pipeline's lines (Streams, consumer, deliveries, SQS, event reads and writes). */
  eventsTotal?: number;
  /** The events pipeline with no batching (one change per consumer invocation, one message per SQS request), for comparison. */
  eventsUnbatched?: number;
  perOperation: (OperationInput & { share: number; billedMs: number })[];
  /** The whole bill (issue 33): what the stacks are billed beyond compute and data, and the totals by volume. */
  bill?: BillResult;
  /** The log bytes' evidence: each operation's sample, rendered again by test/unit/log-bytes.test.ts. */
  logs?: LogEvidence;
}

const perMillion = 1_000_000;

export function costPerMillion(
  ops: readonly OperationInput[],
  authorizer: { warmMs: number; coldMs: number; readUnits: number },
  a: CostAssumptions,
  events?: EventsCostInput,
  unbatched?: EventsCostInput,
): CostResult {
  const gb = a.memoryMb / 1024;
  const byKey = new Map(ops.map((o) => [o.scenario, o]));
  const perOperation = MIX.map((m) => {
    const op = byKey.get(m.scenario);
    if (!op) throw new Error(`cost: no measurement for ${m.scenario}`);
    // Lambda bills each invocation's duration rounded up to the millisecond; a cold start adds its init.
    const billedMs = Math.ceil(op.warmMs) + a.coldStartRate * Math.ceil(op.coldMs);
    return { ...op, share: m.share, billedMs };
  });
  const sum = (f: (o: (typeof perOperation)[number]) => number) => perOperation.reduce((s, o) => s + o.share * f(o), 0);

  const authorizerInvocations = perMillion * (1 - a.authorizerCacheHitRate);
  const authorizerBilledMs = Math.ceil(authorizer.warmMs) + a.coldStartRate * Math.ceil(authorizer.coldMs);
  const functionGbSeconds = perMillion * sum((o) => o.billedMs / 1000) * gb;
  const authorizerGbSeconds = (authorizerInvocations * authorizerBilledMs * gb) / 1000;
  const readUnits = perMillion * sum((o) => o.readUnits) + authorizerInvocations * authorizer.readUnits;
  const writeUnits = perMillion * sum((o) => o.writeUnits);
  const floorReadUnits = perMillion * sum((o) => o.floorReadUnits) + authorizerInvocations * authorizer.readUnits;
  const floorWriteUnits = perMillion * sum((o) => o.floorWriteUnits);

  const m = (n: number) => `${(n / perMillion).toFixed(3)} M`;
  const lines: CostLine[] = [
    { item: 'API Gateway (REST) requests', quantity: m(perMillion), dollars: PRICES.apiGatewayRestPerMillion },
    {
      item: 'Lambda requests (functions + authorizer)',
      quantity: `${m(perMillion)} + ${m(authorizerInvocations)}`,
      dollars: ((perMillion + authorizerInvocations) / perMillion) * PRICES.lambdaRequestsPerMillion,
    },
    {
      item: `Lambda duration, functions (arm64, ${a.memoryMb} MB)`,
      quantity: `${Math.round(functionGbSeconds).toLocaleString('en-US')} GB-s`,
      dollars: functionGbSeconds * PRICES.lambdaArmPerGbSecond,
    },
    {
      item: `Lambda duration, authorizer (arm64, ${a.memoryMb} MB)`,
      quantity: `${Math.round(authorizerGbSeconds).toLocaleString('en-US')} GB-s`,
      dollars: authorizerGbSeconds * PRICES.lambdaArmPerGbSecond,
    },
    { item: 'DynamoDB read request units', quantity: m(readUnits), dollars: (readUnits / perMillion) * PRICES.dynamoReadRequestUnitPerMillion },
    { item: 'DynamoDB write request units', quantity: m(writeUnits), dollars: (writeUnits / perMillion) * PRICES.dynamoWriteRequestUnitPerMillion },
  ];
  const pipeline = events ? eventLines(events, a) : [];
  lines.push(...pipeline);
  const total = lines.reduce((s, l) => s + l.dollars, 0);
  const sumOf = (ls: readonly CostLine[]) => ls.reduce((s, l) => s + l.dollars, 0);
  const dynamoMeasured = lines[4]!.dollars + lines[5]!.dollars;
  const dynamoFloor =
    (floorReadUnits / perMillion) * PRICES.dynamoReadRequestUnitPerMillion + (floorWriteUnits / perMillion) * PRICES.dynamoWriteRequestUnitPerMillion;
  return {
    assumptions: a,
    lines,
    total,
    totalAtFloorUnits: total - dynamoMeasured + dynamoFloor,
    perOperation,
    ...(events ? { eventsTotal: sumOf(pipeline) } : {}),
    ...(unbatched ? { eventsUnbatched: sumOf(eventLines(unbatched, a)) } : {}),
  };
}

/** The events pipeline's share of a million API requests: each change's consumer, queue and delivery. */
function eventLines(e: EventsCostInput, a: CostAssumptions): CostLine[] {
  const gb = a.memoryMb / 1024;
  const m = (n: number) => `${(n / perMillion).toFixed(3)} M`;
  let changes = 0;
  let read = 0;
  let write = 0;
  for (const { scenario, share } of MIX) {
    const kind = changeKindOf(scenario);
    if (!kind) continue;
    changes += perMillion * share;
    read += perMillion * share * e.consumerUnits[kind].read;
    write += perMillion * share * e.consumerUnits[kind].write;
  }
  const deliveries = changes * e.deliveriesPerChange;
  read += deliveries * e.deliveryReadUnits;
  const consumerInvocations = changes / e.changesPerBatch;
  const deliveryInvocations = deliveries / e.deliveriesPerBatch;
  // A consumer invocation bills its batch's duration, rounded up to the millisecond; the deliveries
  // of one invocation are each billed whole (an upper bound: they run at once).
  const gbSeconds = ((consumerInvocations * Math.ceil(e.consumerMs * e.changesPerBatch) + deliveries * Math.ceil(e.deliveryMs)) * gb) / 1000;
  // Per batch of deliveries: the consumer's SendMessageBatch, the receive and the DeleteMessageBatch.
  const sqsRequests = (deliveries / e.deliveriesPerBatch) * 3;
  return [
    { item: 'DynamoDB Streams reads (by the Lambda trigger)', quantity: `${m(changes)} changes`, dollars: 0 },
    {
      item: `Lambda requests (events consumer, ${e.changesPerBatch} changes a batch + webhook deliveries, ${e.deliveriesPerBatch} a batch)`,
      quantity: `${m(consumerInvocations)} + ${m(deliveryInvocations)}`,
      dollars: ((consumerInvocations + deliveryInvocations) / perMillion) * PRICES.lambdaRequestsPerMillion,
    },
    { item: `Lambda duration, events consumer and deliveries (arm64, ${a.memoryMb} MB)`, quantity: `${Math.round(gbSeconds).toLocaleString('en-US')} GB-s`, dollars: gbSeconds * PRICES.lambdaArmPerGbSecond },
    {
      item: `SQS requests (send, receive, delete per ${e.deliveriesPerBatch === 1 ? 'delivery' : `${e.deliveriesPerBatch} deliveries`})`,
      quantity: m(sqsRequests),
      dollars: (sqsRequests / perMillion) * PRICES.sqsRequestsPerMillion,
    },
    { item: 'DynamoDB read request units, events', quantity: m(read), dollars: (read / perMillion) * PRICES.dynamoReadRequestUnitPerMillion },
    { item: 'DynamoDB write request units, events', quantity: m(write), dollars: (write / perMillion) * PRICES.dynamoWriteRequestUnitPerMillion },
  ];
}

// ---- the whole bill: what the stacks are billed beyond compute and data (issue 33)

/**
 * AWS list prices, us-east-1, of the items every deployment of the stacks pays beside the
 * requests' compute and data. Not fetched (no network); free tiers ignored.
 */
export const BILL_PRICES = {
  asOf: PRICES.asOf,
  source: `AWS pricing pages for AWS WAF, Amazon CloudWatch, AWS X-Ray, AWS KMS and AWS Secrets Manager (us-east-1), as published by AWS, as of ${PRICES.asOf}; free tiers ignored. Not re-checked by the benchmark, which has no network.`,
  wafRequestsPerMillion: 0.6,
  wafWebAclPerMonth: 5,
  wafRulePerMonth: 1,
  /** CloudWatch Logs ingestion, Standard class, per GB (each event's bytes + 26). */
  logsIngestionPerGb: 0.5,
  /** The Infrequent Access class (no metric filters, no EMF extraction, no subscription filters). */
  logsInfrequentIngestionPerGb: 0.25,
  /** Archived storage, per GB-month of compressed data. */
  logsStoragePerGbMonth: 0.03,
  xrayTracesRecordedPerMillion: 5,
  /** A standard-resolution alarm, per metric it evaluates, per month. */
  alarmMetricPerMonth: 0.1,
  compositeAlarmPerMonth: 0.5,
  dashboardPerMonth: 3,
  customMetricPerMonth: 0.3,
  kmsKeyPerMonth: 1,
  secretPerMonth: 0.4,
} as const;

const source = (service: string) => `AWS ${service} pricing, us-east-1, ${PRICES.asOf}`;

/** The volumes the bill is shown at, requests a month. */
export const BILL_VOLUMES = [1_000_000, 10_000_000, 100_000_000] as const;
/** The target volume of the whole bill's row. */
export const WHOLE_BILL_VOLUME = 100_000_000;
const SECONDS_A_MONTH = 30 * 24 * 3600;
const GB = 1e9;

export interface BillInput {
  fixed: FixedCounts;
  /** Log bytes (overhead included) per API request at the mix, by log group kind. */
  logBytes: { access: number; functions: number; events: number };
  /** Compressed bytes per API request (gzip of the same lines), what storage is billed on. */
  compressedBytes: number;
  /** Months each log group keeps its events. */
  retentionMonths: number;
  sampling: { reservoirPerSecond: number; fixedRate: number };
}


export interface BillLine extends CostLine {
  unitPrice: string;
  source: string;
}

export interface BillVolume {
  requestsPerMonth: number;
  /** Traces X-Ray records in the month at the stage's sampling. */
  traces: number;
  /** Per million requests: compute and data, the per-request items, X-Ray, the fixed items spread. */
  computeAndData: number;
  perRequestItems: number;
  xray: number;
  fixed: number;
  perMillion: number;
  monthly: number;
}

export interface BillResult {
  input: BillInput;
  /** Per million requests, whatever the volume. */
  perRequest: BillLine[];
  /** Per month, whatever the traffic. */
  fixed: BillLine[];
  fixedMonthly: number;
  volumes: BillVolume[];
  /** Per million requests at WHOLE_BILL_VOLUME. */
  whole: number;
  /** Each cost choice of docs/deploy.md ("Costs"), with what it saves per million at WHOLE_BILL_VOLUME. */
  choices?: CostChoice[];
}

export interface CostChoice {
  choice: string;
  /** What the stacks did before, and do now. */
  before: string;
  now: string;
  /** Per million requests at WHOLE_BILL_VOLUME (0 for a choice not taken: `saving` is what it would save). */
  savingPerMillion: number;
  taken: boolean;
  /** What operations keep, or why it is not taken. */
  why: string;
}

/** Traces recorded in a month of `requests`: the reservoir's first requests each second, then the rate of the rest. */
export function tracesRecorded(requests: number, sampling: BillInput['sampling']): number {
  const reservoir = Math.min(requests, sampling.reservoirPerSecond * SECONDS_A_MONTH);
  return reservoir + sampling.fixedRate * (requests - reservoir);
}

const usd = (n: number) => `$${n.toFixed(2)}`;

/** The whole bill: compute and data (costPerMillion's total) plus what the stacks are billed per request and per month. */
export function wholeBill(computeAndData: number, b: BillInput): BillResult {
  const p = BILL_PRICES;
  const gbPerMillion = (bytes: number) => (bytes * perMillion) / GB;
  const perRequest: BillLine[] = [
    { item: 'AWS WAF requests (the stage\'s web ACL)', quantity: '1.000 M', unitPrice: `${usd(p.wafRequestsPerMillion)} per million`, source: source('WAF'), dollars: p.wafRequestsPerMillion },
    {
      item: 'CloudWatch Logs ingestion, API access log (Standard: its metric filters need it)',
      quantity: `${gbPerMillion(b.logBytes.access).toFixed(3)} GB (${Math.round(b.logBytes.access)} B a request)`,
      unitPrice: `${usd(p.logsIngestionPerGb)} per GB`,
      source: source('CloudWatch'),
      dollars: gbPerMillion(b.logBytes.access) * p.logsIngestionPerGb,
    },
    {
      item: 'CloudWatch Logs ingestion, functions (platform and application records at the deployed levels)',
      quantity: `${gbPerMillion(b.logBytes.functions).toFixed(3)} GB (${Math.round(b.logBytes.functions)} B a request)`,
      unitPrice: `${usd(p.logsIngestionPerGb)} per GB`,
      source: source('CloudWatch'),
      dollars: gbPerMillion(b.logBytes.functions) * p.logsIngestionPerGb,
    },
    {
      item: 'CloudWatch Logs ingestion, webhook deliveries (attempt lines and EMF metrics)',
      quantity: `${gbPerMillion(b.logBytes.events).toFixed(3)} GB (${Math.round(b.logBytes.events)} B a request)`,
      unitPrice: `${usd(p.logsIngestionPerGb)} per GB`,
      source: source('CloudWatch'),
      dollars: gbPerMillion(b.logBytes.events) * p.logsIngestionPerGb,
    },
    {
      item: `CloudWatch Logs storage, ${b.retentionMonths} months kept (steady state, compressed)`,
      quantity: `${(gbPerMillion(b.compressedBytes) * b.retentionMonths).toFixed(3)} GB-months (${Math.round(b.compressedBytes)} B a request)`,
      unitPrice: `${usd(p.logsStoragePerGbMonth)} per GB-month`,
      source: source('CloudWatch'),
      dollars: gbPerMillion(b.compressedBytes) * b.retentionMonths * p.logsStoragePerGbMonth,
    },
  ];
  const f = b.fixed;
  const fixed: BillLine[] = [
    { item: 'AWS WAF web ACLs (the stage\'s, the token endpoint\'s)', quantity: String(f.webAcls), unitPrice: `${usd(p.wafWebAclPerMonth)} a month`, source: source('WAF'), dollars: f.webAcls * p.wafWebAclPerMonth },
    { item: 'AWS WAF rules (a managed rule group counts as one)', quantity: String(f.wafRules), unitPrice: `${usd(p.wafRulePerMonth)} a month`, source: source('WAF'), dollars: f.wafRules * p.wafRulePerMonth },
    {
      item: `CloudWatch alarms (${f.alarms}, by the metrics they evaluate)`,
      quantity: `${f.alarmMetrics} metrics`,
      unitPrice: `${usd(p.alarmMetricPerMonth)} per alarm metric a month`,
      source: source('CloudWatch'),
      dollars: f.alarmMetrics * p.alarmMetricPerMonth,
    },
    { item: 'CloudWatch composite alarms', quantity: String(f.compositeAlarms), unitPrice: `${usd(p.compositeAlarmPerMonth)} a month`, source: source('CloudWatch'), dollars: f.compositeAlarms * p.compositeAlarmPerMonth },
    { item: 'CloudWatch dashboards', quantity: String(f.dashboards), unitPrice: `${usd(p.dashboardPerMonth)} a month`, source: source('CloudWatch'), dollars: f.dashboards * p.dashboardPerMonth },
    {
      item: 'CloudWatch custom metrics (metric filters, EMF)',
      quantity: String(f.customMetrics.length),
      unitPrice: `${usd(p.customMetricPerMonth)} a month`,
      source: source('CloudWatch'),
      dollars: f.customMetrics.length * p.customMetricPerMonth,
    },
    { item: 'KMS customer-managed keys', quantity: String(f.kmsKeys), unitPrice: `${usd(p.kmsKeyPerMonth)} a month`, source: source('KMS'), dollars: f.kmsKeys * p.kmsKeyPerMonth },
    { item: 'Secrets Manager secrets', quantity: String(f.secrets), unitPrice: `${usd(p.secretPerMonth)} a month`, source: source('Secrets Manager'), dollars: f.secrets * p.secretPerMonth },
  ];
  const fixedMonthly = fixed.reduce((s, l) => s + l.dollars, 0);
  const perRequestItems = perRequest.reduce((s, l) => s + l.dollars, 0);
  const volumes = BILL_VOLUMES.map((requestsPerMonth): BillVolume => {
    const traces = tracesRecorded(requestsPerMonth, b.sampling);
    const millions = requestsPerMonth / perMillion;
    const xray = ((traces / perMillion) * p.xrayTracesRecordedPerMillion) / millions;
    const fixedShare = fixedMonthly / millions;
    const total = computeAndData + perRequestItems + xray + fixedShare;
    return { requestsPerMonth, traces, computeAndData, perRequestItems, xray, fixed: fixedShare, perMillion: total, monthly: total * millions };
  });
  return { input: b, perRequest, fixed, fixedMonthly, volumes, whole: volumes.find((v) => v.requestsPerMonth === WHOLE_BILL_VOLUME)!.perMillion };
}
