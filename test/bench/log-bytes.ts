/**
 * The CloudWatch Logs bytes of a request, rendered as the stacks configure them (infra/logging.ts):
 * the stage's access-log line, the functions' platform records (JSON format, dropped below the
 * system level) and application records (dropped below the application level), and for the
 * events pipeline the delivery function's attempt lines and its Powertools metrics line (EMF).
 * CloudWatch Logs bills each event's UTF-8 bytes plus 26 bytes of metadata.
 *
 * The bench (run.ts, section 7) measures a sample of each operation of the mix in process (its
 * reply, its latency, the application records it wrote) and commits the samples beside their
 * bytes; test/unit/log-bytes.test.ts renders the committed samples again and fails when a format
 * or level change makes the bytes drift from what the bench committed.
 */
import { ACCESS_LOG_FORMAT, FUNCTION_LOGGING, logged, type LogLevel } from '../../infra/logging.ts';
import { metrics, recordAttempt, type AttemptRecord } from '../../shared/webhooks/attempt.ts';
import { EVENT_FEED } from '../../shared/model/event-types.ts';
import { sortableId } from '../../shared/core/ids.ts';
import { redirectLogs } from '../../shared/core/log.ts';
import { webhookEndpoint } from '../../shared/model/resources.ts';

/** What CloudWatch Logs adds to each event's bytes when it bills ingestion. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

/** One request of an operation, as the bench measured it in process. */
export interface RequestSample {
  scenario: string;
  method: string;
  /** The route's path with `{id}`. */
  resourcePath: string;
  /** The request's path, ids filled in (stage name excluded). */
  path: string;
  status: number;
  /** Bytes of the response body. */
  responseLength: number;
  /** The invocation's duration, rounded up to the millisecond. */
  latencyMs: number;
  /** What the handler logged (every level: the deployed level filters them here). */
  application: { level: LogLevel; line: string }[];
}

export interface LogBytes {
  access: number;
  platform: number;
  application: number;
  /** Log events, each billed LOG_EVENT_OVERHEAD_BYTES more (included in the figures above). */
  events: number;
}

/** Ids of the right lengths: a UUID request id, a Cognito app client id (26), an X-Ray trace (35) and span (16). */
export const REQUEST_ID = '4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e';
const APP_CLIENT_ID = '3q2w1e4r5t6y7u8i9o0p1a2s3d';
const TRACE_ID = '1-67a8f0c2-0a1b2c3d4e5f60718293a4b5';
const SPAN_ID = '6f5a4b3c2d1e0f9a';
const TIME = '2026-11-26T12:00:00.000Z';

/** The access-log line API Gateway writes for the request, in `format`. */
export function renderAccessLog(s: RequestSample, format: string = ACCESS_LOG_FORMAT, stage = 'prod'): string {
  const values: Record<string, string> = {
    status: String(s.status),
    requestId: REQUEST_ID,
    extendedRequestId: 'Kx3vQGf0IAMEb0w=',
    requestTimeEpoch: '1795694400123',
    'identity.sourceIp': '203.0.113.195',
    'identity.userAgent': 'timebill-sdk/0.1.0 (node 24)',
    httpMethod: s.method,
    resourcePath: s.resourcePath,
    path: `/${stage}${s.path}`,
    protocol: 'HTTP/1.1',
    responseLength: String(s.responseLength),
    responseLatency: String(s.latencyMs + 5),
    integrationStatus: String(s.status),
    integrationLatency: String(s.latencyMs),
    'error.responseType': '-',
    'error.message': '-',
    'authorizer.status': '200',
    'authorizer.latency': '-',
    'authorizer.principalId': APP_CLIENT_ID,
  };
  return format.replace(/\$context\.([\w.]+)/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`log-bytes: no sample value for ${whole}: add one`);
    return value;
  });
}

/** Lambda's platform records of one invocation in the JSON log format, with their levels. */
export function renderPlatformRecords(durationMs: number, memoryMb: number): { level: LogLevel; line: string }[] {
  const tracing = { spanId: SPAN_ID, type: 'X-Amzn-Trace-Id', value: `Root=${TRACE_ID};Parent=${SPAN_ID};Sampled=1` };
  return [
    { level: 'INFO', line: JSON.stringify({ time: TIME, type: 'platform.start', record: { requestId: REQUEST_ID, version: '12', tracing } }) },
    {
      level: 'INFO',
      line: JSON.stringify({
        time: TIME,
        type: 'platform.report',
        record: {
          requestId: REQUEST_ID,
          metrics: { durationMs: durationMs + 0.37, billedDurationMs: Math.ceil(durationMs), memorySizeMB: memoryMb, maxMemoryUsedMB: 98 },
          tracing,
          status: 'success',
        },
      }),
    },
  ];
}

/** Bytes (overhead included) of the lines at or above `threshold`. */
export function billedBytes(lines: readonly { level: LogLevel; line: string }[], threshold: LogLevel): { bytes: number; events: number } {
  const kept = lines.filter((l) => logged(l.level, threshold));
  return { bytes: kept.reduce((s, l) => s + Buffer.byteLength(l.line.replace(/\n$/, ''), 'utf8') + LOG_EVENT_OVERHEAD_BYTES, 0), events: kept.length };
}

/** What one request of the sample puts in CloudWatch Logs, as the stacks log today. */
export function requestLogBytes(
  s: RequestSample,
  memoryMb: number,
  logging: { applicationLevel: LogLevel; systemLevel: LogLevel } = FUNCTION_LOGGING,
): LogBytes {
  const access = renderAccessLog(s);
  const platform = billedBytes(renderPlatformRecords(s.latencyMs, memoryMb), logging.systemLevel);
  const application = billedBytes(s.application, logging.applicationLevel);
  return {
    access: Buffer.byteLength(access, 'utf8') + LOG_EVENT_OVERHEAD_BYTES,
    platform: platform.bytes,
    application: application.bytes,
    events: 1 + platform.events + application.events,
  };
}

/**
 * The records of one delivery invocation of `batch` successful attempts, as functions/events/deliver.ts
 * writes them: recordAttempt's line per attempt (INFO) and one Powertools metrics line (EMF) for
 * the invocation, whose metrics CloudWatch extracts from the log group (no PutMetricData).
 */
export function renderDeliveryBatch(
  batch: number,
  outcomes: readonly Pick<AttemptRecord, 'outcome' | 'next'>[] = [{ outcome: { ok: true, status: 200, durationMs: 84 }, next: { kind: 'delivered' } }],
  workspaceId = 'ws-4b3c2d1e0f9a4b8c',
): { level: LogLevel; line: string; kind: 'attempt' | 'metrics' }[] {
  const lines: { level: LogLevel; line: string; kind: 'attempt' | 'metrics' }[] = [];
  metrics.clearMetrics();
  redirectLogs((level, line) => lines.push({ level, line, kind: 'attempt' }));
  try {
    for (let i = 0; i < batch; i++) {
      recordAttempt({
        message: { workspace_id: workspaceId, endpoint_id: sortableId(webhookEndpoint.idPrefix, 1_795_694_400_000 + i), event_id: sortableId(EVENT_FEED.idPrefix, 1_000_000 + i) },
        attempt: 1,
        ...outcomes[i % outcomes.length]!,
      });
    }
  } finally {
    redirectLogs(undefined);
  }
  const emf = metrics.serializeMetrics() as { _aws: { Timestamp: number } };
  emf._aws.Timestamp = 1_795_694_400_123;
  metrics.clearMetrics();
  lines.push({ level: 'INFO', line: JSON.stringify(emf), kind: 'metrics' });
  return lines;
}

/** The metric names an EMF line defines (each name and dimension set is a custom metric). */
export function emfMetrics(line: string): { namespace: string; name: string; dimensions: string }[] {
  const emf = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } } & Record<string, unknown>;
  return emf._aws.CloudWatchMetrics.flatMap((d) =>
    d.Metrics.flatMap((m) => d.Dimensions.map((set) => ({ namespace: d.Namespace, name: m.Name, dimensions: set.map((k) => `${k}=${String(emf[k])}`).join(',') }))),
  );
}

/** Every custom metric the delivery function can write: one attempt of each outcome. */
export function deliveryMetricNames(): string[] {
  const lines = renderDeliveryBatch(3, [
    { outcome: { ok: true, status: 200, durationMs: 84 }, next: { kind: 'delivered' } },
    { outcome: { ok: false, status: 500, durationMs: 84 }, next: { kind: 'retry', delayMs: 60_000 } },
    { outcome: { ok: false, status: 500, durationMs: 84 }, next: { kind: 'dead_letter' } },
  ]);
  return [...new Set(emfMetrics(lines.at(-1)!.line).map((m) => `${m.namespace}/${m.name} (${m.dimensions})`))];
}
