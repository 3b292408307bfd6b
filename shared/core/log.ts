/**
 * Structured logs: one JSON line per record, `level`, `message`, `timestamp` and the record's
 * fields, the shape Powertools' Logger wrote (docs/decisions/0011-logs-without-a-library.md says
 * why it is no longer in the bundles). In AWS the functions log in Lambda's JSON format, which
 * passes these lines through as they are, and set an application log level, which Lambda puts in
 * AWS_LAMBDA_LOG_LEVEL: records below it are dropped here, as the runtime drops its own. The
 * local stack, where that variable is unset unless given, logs from INFO up.
 */

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
type Level = (typeof LEVELS)[number];

function configuredLevel(value: string | undefined): Level {
  if (value === undefined || value === '') return 'INFO';
  const level = value.toUpperCase() as Level;
  if (!LEVELS.includes(level)) throw new Error(`AWS_LAMBDA_LOG_LEVEL must be one of ${LEVELS.join(', ')}; got ${JSON.stringify(value)}`);
  return level;
}

const threshold = LEVELS.indexOf(configuredLevel(process.env.AWS_LAMBDA_LOG_LEVEL));

export type LogFields = Record<string, unknown>;

/** Errors do not survive JSON.stringify (their properties are not enumerable): keep what helps. */
function serializable(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

/** Where a record's line goes: warnings and errors to stderr, the rest to stdout; Lambda keeps both in the log stream. */
export type LogSink = (level: Level, line: string) => void;
const standardStreams: LogSink = (level, line) => void (LEVELS.indexOf(level) >= LEVELS.indexOf('WARN') ? process.stderr : process.stdout).write(line);
let sink: LogSink = standardStreams;

/**
 * Sends every record of this process to `to` instead (back to stdout/stderr when undefined): for
 * a host that runs the handlers inside a process of its own, as the tests' shared local stack
 * runs them inside the test runner (test/support/global-setup.ts keeps them in a file).
 */
export function redirectLogs(to: LogSink | undefined): void {
  sink = to ?? standardStreams;
}

function method(level: Level) {
  const enabled = LEVELS.indexOf(level) >= threshold;
  return (message: string, fields: LogFields = {}): void => {
    if (enabled) sink(level, `${JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...serializable(fields) })}\n`);
  };
}

/*
 * One function a level, each its own export, read as `logger.error(…)` through a namespace import
 * (`import * as logger from './log.ts'`): a bundle holds only the levels its code logs at.
 */
export const debug = /* @__PURE__ */ method('DEBUG');
export const info = /* @__PURE__ */ method('INFO');
export const warn = /* @__PURE__ */ method('WARN');
export const error = /* @__PURE__ */ method('ERROR');
