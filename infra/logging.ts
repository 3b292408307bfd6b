/**
 * What the stacks log and trace, as plain data (importing this module does not load aws-cdk-lib):
 * the stage's access-log format, the functions' log format and levels, and the X-Ray sampling of
 * the stage. infra/stack.ts deploys them; the bench's cost section (test/bench/log-bytes.ts)
 * renders the same records to price their bytes, so a change here changes the bill it shows.
 * Why each field and level is kept: docs/deploy.md, "Costs".
 */

/**
 * Access log: one JSON object per request, only the fields that an alarm's metric filter or a
 * runbook row of docs/deploy.md reads. `status` is unquoted (always present, a number) so that
 * the metric filters can compare it numerically; every other value is quoted, so that API
 * Gateway's `-` for an absent value still makes valid JSON.
 *
 *   status                      metric filters ThrottledRequests (429) and Unauthorized (401)
 *   requestId                   the id a caller sees (X-Request-Id), to find its function's log lines
 *   ip                          who sends a flood (beside the WAF's per-IP rule)
 *   httpMethod, resourcePath    which route
 *   responseLatency             slow requests of one route or client (alarms use API Gateway's metrics)
 *   integrationStatus           503 from API Gateway when Lambda throttled (runbook "503 or 500")
 *   errorType                   metric filter AuthorizerFailures; which gateway response answered
 *   principalId                 which integration (runbook Api401Spike)
 *
 * Dropped (docs/deploy.md, "Costs"): extendedRequestId, requestTime (the log event has its own
 * timestamp), userAgent, path (the ids are in resourcePath's place only: the function's logs and
 * the request id find an item's request), protocol, responseLength, integrationLatency and
 * authorizerLatency (API Gateway's metrics), errorMessage (fixed per errorType), authorizerStatus.
 */
export const ACCESS_LOG_FORMAT =
  '{"status":$context.status,' +
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    responseLatency: '$context.responseLatency',
    integrationStatus: '$context.integrationStatus',
    errorType: '$context.error.responseType',
    principalId: '$context.authorizer.principalId',
  }).slice(1);

/** Lambda's log levels, most detailed first (system logs use DEBUG, INFO and WARN). */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every function logs in Lambda's JSON format. Application records from INFO: the authorizer's
 * `Token refused` lines (runbook Api401Spike) and the deliveries' attempt lines (runbook
 * "Dead-lettered deliveries") are INFO. Platform records (`platform.start`, `platform.report`,
 * INFO) are dropped by the WARN system level: no alarm or runbook row reads them (durations,
 * errors and throttles come from Lambda's own metrics), and they would be most of the functions'
 * log bytes.
 */
export const FUNCTION_LOGGING = { format: 'JSON', applicationLevel: 'INFO', systemLevel: 'WARN' } as const satisfies {
  format: 'JSON' | 'Text';
  applicationLevel: LogLevel;
  systemLevel: 'DEBUG' | 'INFO' | 'WARN';
};

/** Whether a record at `level` passes a threshold. */
export const logged = (level: LogLevel, threshold: LogLevel) => LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);

/**
 * X-Ray sampling of the stage (an AWS::XRay::SamplingRule for the API's service name; Lambda
 * follows API Gateway's decision): the first request each second (`reservoirPerSecond`, so a
 * quiet environment still shows traces), then `fixedRate` of the rest. The default rule would
 * record 5 %; each trace recorded costs $5 per million. An environment overrides it with
 * `tracing` in infra/config/environments.ts.
 */
export const DEFAULT_TRACE_SAMPLING = { reservoirPerSecond: 1, fixedRate: 0.01 } as const;
export interface TraceSampling {
  /** Requests traced each second before the rate applies (X-Ray's reservoir). */
  readonly reservoirPerSecond: number;
  /** Share of the requests beyond the reservoir that are traced, 0 to 1. */
  readonly fixedRate: number;
}
