/**
 * The shared local stack in a process of its own (global-setup.ts forks it): its handlers, stream
 * poller and deliveries run on their own event loop, not on the test runner's main thread, which
 * serves the workers and would otherwise take turns with every request. Over the run's DynamoDB
 * Local (shared-setup.ts), which the runner started and stops: given as its endpoint and port.
 * Answers `{ baseUrl, tableName, env }` once serving; stops on 'stop', or when the runner goes.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort, type DynamoDbLocal } from '../../infra/local/dynamodb.ts';
import { startLocalStack } from '../../infra/local/stack.ts';
import { redirectLogs } from '../../shared/core/log.ts';
import { WEBHOOK_RETRY_BASE_MS } from './events.ts';
import { stackLogFiles } from './stack-log.ts';

export interface StackProcessInput {
  stateDir: string;
  dynamo: Pick<DynamoDbLocal, 'endpoint' | 'port'>;
}
export interface StackProcessReady {
  baseUrl: string;
  tableName: string;
  /** What the stack set in its environment (the table, the issuer, the cursor key): the runner sets it too, for the tests that run handlers or a gateway of their own. */
  env: Record<string, string>;
}

const { stateDir, dynamo } = JSON.parse(process.argv[2]!) as StackProcessInput;
const envBefore = { ...process.env };
const { log } = stackLogFiles(stateDir);
redirectLogs((_level, line) => appendFileSync(log, line));
const stack = await startLocalStack({
  repoRoot: resolve(import.meta.dirname, '../..'),
  // The runner's: it watches and stops it (none of this stack's business).
  dynamoDbLocal: { ...dynamo, pid: 0, exited: new Promise(() => undefined), stderrTail: () => [], tempDir: '', stop: async () => undefined },
  port: await freePort(),
  stateDir,
  // The tests create data quickly; throttling has a test of its own on a separate gateway.
  throttling: { rateLimit: 100_000, burstLimit: 100_000 },
  // So are the per-client limits (test/integration/client-limits.test.ts).
  clientLimits: {
    override: { rateLimit: 100_000, burstLimit: 100_000 },
    invalidToken: { rateLimit: 100_000, burstLimit: 100_000, monthlyQuota: undefined },
  },
  // Webhook retries on a test's time scale: 200 ms, 400 ms, 800 ms…
  webhookRetryBaseMs: WEBHOOK_RETRY_BASE_MS,
});
const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && envBefore[entry[0]] !== entry[1]));
process.send!({ baseUrl: stack.baseUrl, tableName: stack.tableName, env } satisfies StackProcessReady);
const stop = () => void stack.stop().finally(() => process.exit(0));
process.on('message', (message) => message === 'stop' && stop());
// The runner gone (killed): nothing else would stop this process.
process.on('disconnect', stop);
