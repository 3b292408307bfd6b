/**
 * Section 7's whole bill: the log bytes of each operation of the mix, measured in process on the
 * bench's DynamoDB Local (the handler's reply, duration and application records, rendered into
 * the stack's access-log line and Lambda's records: log-bytes.ts), the delivery function's lines,
 * and the fixed items counted from prod's synthesized templates (fixed-items.ts).
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ENVIRONMENTS } from '../../infra/config/environments.ts';
import { DEFAULT_TRACE_SAMPLING, FUNCTION_LOGGING, type LogLevel } from '../../infra/logging.ts';
import { routeByOperation } from '../../shared/api/routes.ts';
import { redirectLogs } from '../../shared/core/log.ts';
import { BILL_PRICES, MIX, QUEUE_BATCH, WHOLE_BILL_VOLUME, changeKindOf, tracesRecorded, type BillInput, type CostAssumptions, type CostChoice, type EventsCostInput } from './cost.ts';
import { fixedItemsOf } from './fixed-items.ts';
import { handlerOf, lambdaContext, pathOf, proxyEvent } from './lib/invoke.ts';
import {
  billedBytes,
  deliveryMetricNames,
  renderAccessLog,
  renderDeliveryBatch,
  REQUEST_ID,
  renderPlatformRecords,
  requestLogBytes,
  type LogBytes,
  type RequestSample,
} from './log-bytes.ts';
import { SCENARIOS, type Fixture } from './scenarios.ts';

export interface LogSampleRow extends RequestSample {
  share: number;
  bytes: LogBytes;
}

/** The committed evidence of the log bytes: what test/unit/log-bytes.test.ts renders again. */
export interface LogEvidence {
  memoryMb: number;
  samples: LogSampleRow[];
  /** One delivery invocation of `batch` successful attempts: its lines' bytes at the deployed levels. */
  deliveryBatch: { batch: number; bytes: number };
  /** One authorizer invocation (a cache miss), platform records at the deployed system level. */
  authorizerBytes: number;
}

/** One request of the scenario, in process: its reply, duration and application records. */
async function sampleOf(fx: Fixture, scenario: string): Promise<RequestSample> {
  const s = SCENARIOS.find((x) => x.key === scenario);
  if (!s) throw new Error(`bill: no scenario ${scenario}`);
  const request = await s.prepare(fx);
  const route = routeByOperation(request.operation);
  const handler = await handlerOf(fx.repoRoot, route);
  const application: { level: LogLevel; line: string }[] = [];
  redirectLogs((level, line) => application.push({ level, line }));
  let result;
  const started = performance.now();
  try {
    result = await handler(proxyEvent(fx.caller, request), lambdaContext(route.operation));
  } finally {
    redirectLogs(undefined);
  }
  const ms = Math.ceil(performance.now() - started);
  if (result.statusCode >= 300) throw new Error(`bill: ${scenario} answered ${result.statusCode}`);
  return {
    scenario,
    method: route.method,
    resourcePath: route.path,
    path: pathOf(route, request.id, request.childId),
    status: result.statusCode,
    responseLength: Buffer.byteLength(result.body ?? '', 'utf8'),
    latencyMs: ms,
    application,
  };
}

export async function measureBillInput(
  fx: Fixture,
  memoryMb: number,
  a: CostAssumptions,
  events: EventsCostInput,
): Promise<{ input: BillInput; evidence: LogEvidence }> {
  const samples: LogSampleRow[] = [];
  for (const { scenario, share } of MIX) {
    const sample = await sampleOf(fx, scenario);
    samples.push({ ...sample, share, bytes: requestLogBytes(sample, memoryMb) });
  }
  const authorizerBytes = billedBytes(renderPlatformRecords(5, memoryMb), FUNCTION_LOGGING.systemLevel).bytes;
  const batchLines = renderDeliveryBatch(QUEUE_BATCH);
  const deliveryBatch = {
    batch: QUEUE_BATCH,
    bytes: billedBytes(batchLines, FUNCTION_LOGGING.applicationLevel).bytes + billedBytes(renderPlatformRecords(900, memoryMb), FUNCTION_LOGGING.systemLevel).bytes,
  };
  const consumerBytes = billedBytes(renderPlatformRecords(50, memoryMb), FUNCTION_LOGGING.systemLevel).bytes;

  const mixOf = (f: (s: LogSampleRow) => number) => samples.reduce((sum, s) => sum + s.share * f(s), 0);
  const changes = MIX.filter((m) => changeKindOf(m.scenario)).reduce((sum, m) => sum + m.share, 0);
  const deliveries = changes * events.deliveriesPerChange;
  const logBytes = {
    access: mixOf((s) => s.bytes.access),
    functions: mixOf((s) => s.bytes.platform + s.bytes.application) + (1 - a.authorizerCacheHitRate) * authorizerBytes,
    events: (deliveries / deliveryBatch.batch) * deliveryBatch.bytes + (changes / events.changesPerBatch) * consumerBytes,
  };
  // Storage is billed on compressed bytes: gzip of the mix's lines (a hundred requests, by share) measures the ratio.
  const corpus = samples
    .flatMap((s) => Array.from({ length: Math.round(s.share * 100) }, () => renderAccessLog(s).replace(REQUEST_ID, randomUUID())))
    .join('\n');
  const ratio = gzipSync(corpus, { level: 6 }).length / Buffer.byteLength(corpus);
  const total = logBytes.access + logBytes.functions + logBytes.events;
  const prod = ENVIRONMENTS.prod;
  const input: BillInput = {
    fixed: await fixedItemsOf(fx.repoRoot, 'prod', deliveryMetricNames()),
    logBytes,
    compressedBytes: total * ratio,
    retentionMonths: Math.round((prod.logRetentionDays ?? 365) / 30.4),
    sampling: prod.tracing ?? DEFAULT_TRACE_SAMPLING,
  };
  return { input, evidence: { memoryMb, samples, deliveryBatch, authorizerBytes } };
}

/** The access-log format before issue 33 (every field API Gateway offered that looked useful): the baseline of its saving. */
export const ACCESS_LOG_FORMAT_BEFORE =
  '{"status":$context.status,' +
  JSON.stringify({
    requestId: '$context.requestId',
    extendedRequestId: '$context.extendedRequestId',
    requestTime: '$context.requestTimeEpoch',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    path: '$context.path',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationStatus: '$context.integrationStatus',
    integrationLatency: '$context.integrationLatency',
    errorType: '$context.error.responseType',
    errorMessage: '$context.error.message',
    authorizerStatus: '$context.authorizer.status',
    authorizerLatency: '$context.authorizer.latency',
    principalId: '$context.authorizer.principalId',
  }).slice(1);

/** X-Ray's default sampling rule: the first request each second, then 5 %. */
export const XRAY_DEFAULT_SAMPLING = { reservoirPerSecond: 1, fixedRate: 0.05 } as const;

/** Each choice of docs/deploy.md's "Costs", priced from the same measurements at WHOLE_BILL_VOLUME. */
export function costChoices(input: BillInput, evidence: LogEvidence, a: CostAssumptions, events: EventsCostInput): CostChoice[] {
  const perGb = (bytes: number, price: number) => (bytes * 1e6 * price) / 1e9;
  const mixOf = (f: (s: LogSampleRow) => number) => evidence.samples.reduce((sum, s) => sum + s.share * f(s), 0);
  const accessBefore = mixOf((s) => Buffer.byteLength(renderAccessLog(s, ACCESS_LOG_FORMAT_BEFORE)) + 26);
  // Invocations per API request: the function, the authorizer's misses, the pipeline's batches.
  const changes = MIX.filter((m) => changeKindOf(m.scenario)).reduce((sum, m) => sum + m.share, 0);
  const invocations = 1 + (1 - a.authorizerCacheHitRate) + changes / events.changesPerBatch + (changes * events.deliveriesPerChange) / QUEUE_BATCH;
  const platformAtInfo = mixOf((s) => billedBytes(renderPlatformRecords(s.latencyMs, evidence.memoryMb), 'INFO').bytes);
  const millions = WHOLE_BILL_VOLUME / 1e6;
  const xray = (sampling: BillInput['sampling']) => (tracesRecorded(WHOLE_BILL_VOLUME, sampling) / 1e6) * BILL_PRICES.xrayTracesRecordedPerMillion / millions;
  const p = BILL_PRICES;
  return [
    {
      choice: 'access-log fields that no alarm or runbook row reads dropped',
      before: `${Math.round(accessBefore)} B a request (18 fields)`,
      now: `${Math.round(input.logBytes.access)} B a request (9 fields)`,
      savingPerMillion: perGb(accessBefore - input.logBytes.access, p.logsIngestionPerGb),
      taken: true,
      why: 'the metric filters read status and errorType; the runbook reads principalId, integrationStatus and the request id (infra/logging.ts lists each field\'s reader)',
    },
    {
      choice: 'Lambda platform records (platform.start, platform.report) dropped by the WARN system level',
      before: `${Math.round(platformAtInfo * invocations)} B a request at INFO (Lambda's default)`,
      now: `${Math.round(input.logBytes.functions)} B a request (every function's records)`,
      savingPerMillion: perGb(platformAtInfo * invocations, p.logsIngestionPerGb),
      taken: true,
      why: 'no alarm reads them (Duration, Errors and Throttles are Lambda metrics); the runbook reads application records, which stay at INFO',
    },
    {
      choice: 'X-Ray sampling a documented parameter (infra/logging.ts, `tracing` of each environment)',
      before: `X-Ray's default rule (${XRAY_DEFAULT_SAMPLING.reservoirPerSecond} a second, then ${XRAY_DEFAULT_SAMPLING.fixedRate * 100} %)`,
      now: `${input.sampling.reservoirPerSecond} a second, then ${input.sampling.fixedRate * 100} %`,
      savingPerMillion: xray(XRAY_DEFAULT_SAMPLING) - xray(input.sampling),
      taken: true,
      why: 'traces are for looking into one slow request, not for alarms; the reservoir keeps a trace a second however quiet the environment',
    },
    {
      choice: 'Infrequent Access class for the log groups that no metric filter reads',
      before: 'Standard',
      now: 'Standard',
      savingPerMillion: perGb(input.logBytes.functions, p.logsIngestionPerGb - p.logsInfrequentIngestionPerGb),
      taken: false,
      why: 'not taken: the only group with bytes on every request is the access log, which the metric filters read, and the deliveries\' group carries EMF metrics, which the class does not extract; the other groups log almost nothing, and the class of a group cannot change without a new group (the runbook\'s queries would span two)',
    },
    {
      choice: 'one WAF rule fewer',
      before: `${input.fixed.wafRules} rules`,
      now: `${input.fixed.wafRules} rules`,
      savingPerMillion: p.wafRulePerMonth / millions,
      taken: false,
      why: 'not taken: each rule answers with its own contract error (429 rate_limited, 401, 403 forbidden) or is a managed group; one rule is $1 a month',
    },
  ];
}
