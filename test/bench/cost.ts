/**
 * Section 7: cost per million API requests for a stated mix of operations, from the units and
 * durations this run measured and AWS's published list prices (us-east-1).
 */

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
