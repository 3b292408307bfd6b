/**
 * Watches DynamoDB Local under the local stack. When it exits or stops answering, the stack
 * must not limp on (every request a 503, for good) nor restart it silently (in-memory data is
 * gone): it says so on stderr, with DynamoDB Local's last stderr lines, and stops. Requests in
 * between are answered 503 by the handlers (connection refused is a dependency failure).
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_AWS_ENV, type DynamoDbLocal } from './dynamodb.ts';

export interface SupervisorOptions {
  /** Where its data lives (DATA_DIR), or undefined when in memory. */
  dataDir: string | undefined;
  /** Declared dead after this long without an answer (while its process still runs). */
  silenceLimitMs?: number;
  checkIntervalMs?: number;
}

export interface Supervisor {
  stop(): void;
}

const DEFAULTS = { silenceLimitMs: 4000, checkIntervalMs: 1000 };

/** Calls `onDeath` once, with the message to print, when DynamoDB Local dies or goes silent. */
export function superviseDynamoDbLocal(dynamo: DynamoDbLocal, options: SupervisorOptions, onDeath: (message: string) => void): Supervisor {
  const { silenceLimitMs, checkIntervalMs } = { ...DEFAULTS, ...options };
  let done = false;
  const die = (what: string) => {
    if (done) return;
    done = true;
    clearInterval(timer);
    client.destroy();
    onDeath(deathMessage(what, dynamo, options.dataDir));
  };

  void dynamo.exited.then(({ code, signal }) => die(`exited (${describeExit(code, signal)})`));

  // Exit is seen at once above; a process that runs but no longer answers is seen here.
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: checkIntervalMs, requestTimeout: silenceLimitMs, throwOnRequestTimeout: true },
  });
  let lastAnswer = Date.now();
  let checking = false;
  const timer = setInterval(() => {
    if (checking || done) return;
    checking = true;
    client
      .send(new ListTablesCommand({ Limit: 1 }))
      .then(() => (lastAnswer = Date.now()))
      .catch(() => undefined)
      .finally(() => {
        checking = false;
        if (Date.now() - lastAnswer >= silenceLimitMs) die(`stopped answering (no answer for ${Math.round((Date.now() - lastAnswer) / 1000)} s)`);
      });
  }, checkIntervalMs);
  timer.unref();

  return {
    stop: () => {
      done = true;
      clearInterval(timer);
      client.destroy();
    },
  };
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `signal ${signal}`;
  // The guard shell reports a child killed by signal n as 128 + n.
  if (code !== null && code > 128) return `exit status ${code}: killed by signal ${code - 128}`;
  return `exit status ${code}`;
}

export function deathMessage(what: string, dynamo: Pick<DynamoDbLocal, 'endpoint' | 'stderrTail'>, dataDir: string | undefined): string {
  const tail = dynamo.stderrTail();
  return [
    `DynamoDB Local (${dynamo.endpoint}) ${what}. The local stack stops now.`,
    tail.length > 0 ? `Its last stderr lines:\n${tail.map((line) => `  | ${line}`).join('\n')}` : 'It wrote nothing on stderr.',
    dataDir
      ? `Its data is on disk in DATA_DIR=${dataDir}: run npm start again (with the same DATA_DIR) to continue with it.`
      : 'Its data was in memory and is lost. Run npm start again; set DATA_DIR to keep data across restarts.',
  ].join('\n');
}
