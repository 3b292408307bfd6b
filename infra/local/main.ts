/**
 * `npm start`: the whole API on http://127.0.0.1:$PORT (default 3000) over an embedded
 * DynamoDB Local, in memory, or on disk under $DATA_DIR.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { STAGE_THROTTLING } from '../names.ts';
import type { LocalStack } from './stack.ts';
import { clientLimitsFromEnv, stageLimitsFromEnv, type BucketLimits } from './client-limits.ts';
import { retryBaseMsFromEnv } from './deliveries.ts';
import { alive, onOrphaned } from './lifeline.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number, not '${process.env.PORT}'`);
  process.exit(2);
}
// A port in use says so at once, before DynamoDB Local starts (its own port is free: it asks the OS for one).
const taken = await new Promise<boolean>((done) => {
  const probe = createServer().once('error', () => done(true));
  probe.listen(port, '127.0.0.1', () => probe.close(() => done(false)));
});
if (taken) {
  console.error(`Port ${port} is in use (another npm start?): set PORT to a free one, e.g. PORT=${port === 65535 ? 3001 : port + 1} npm start`);
  process.exit(2);
}
const dataDir = process.env.DATA_DIR ? resolve(process.env.DATA_DIR) : undefined;
if (dataDir) holdDataDir(dataDir);

/**
 * One stack per DATA_DIR: two DynamoDB Locals on one database file would corrupt it. The holder's
 * pid, in a file created exclusively; one whose process is gone (a SIGKILL) is taken over.
 */
function holdDataDir(dir: string): void {
  const lock = resolve(dir, 'npm-start.pid');
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      process.on('exit', () => rmSync(lock, { force: true }));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        console.error(`DATA_DIR ${dir} is in use by another npm start (pid ${holder}): stop it, or give this one another DATA_DIR`);
        process.exit(2);
      }
      rmSync(lock, { force: true });
    }
  }
  throw new Error(`DATA_DIR ${dir}: could not take ${lock}`);
}

/** Everything stops within this long of a signal or of DynamoDB Local's death (contract: 5 s). */
const STOP_DEADLINE_MS = 4000;

// The stage's bucket (STAGE_THROTTLING unless set), and each API client's: its plan's limits
// (shared/core/plan-limits.ts) unless these override them. A value that is no limit stops the start.
let throttling: BucketLimits;
let clientOverride: Partial<BucketLimits>;
try {
  throttling = { ...STAGE_THROTTLING, ...stageLimitsFromEnv(process.env) };
  clientOverride = clientLimitsFromEnv(process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}

let webhookRetryBaseMs: number;
try {
  webhookRetryBaseMs = retryBaseMsFromEnv(process.env.WEBHOOK_RETRY_BASE_MS);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}

/** Requests under way get this long to be answered (a 503, when DynamoDB Local died) before the stop. */
const GRACE_MS = 1000;
/** How long the stack keeps answering (503) after DynamoDB Local died, before it stops: its exit stays within STOP_DEADLINE_MS + this, under 5 s. */
const DEATH_DRAIN_MS = 500;

let stopping = false;
let stack: LocalStack | undefined;
const shutdown = (code: number) => {
  if (stopping) return;
  stopping = true;
  // Whatever hangs, we exit in time; the 'exit' hook of dynamodb.ts kills java on the way out.
  setTimeout(() => process.exit(code), STOP_DEADLINE_MS).unref();
  void (stack?.stop({ graceMs: GRACE_MS }) ?? Promise.resolve()).finally(() => process.exit(code));
};
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
process.on('SIGHUP', () => shutdown(0));
onOrphaned(() => shutdown(0));
process.on('uncaughtException', (error) => {
  console.error(error);
  shutdown(1);
});

// Loaded once the settings are checked: a refused start answers before the handlers' modules load.
const { startLocalStack } = await import('./stack.ts');
stack = await startLocalStack({
  repoRoot,
  port,
  stateDir: resolve(repoRoot, '.local'),
  throttling,
  clientLimits: { override: clientOverride },
  webhookRetryBaseMs,
  ...(dataDir ? { dataDir } : {}),
  onDynamoDbDeath: (message) => {
    console.error(message);
    // The requests of the next moments are answered 503 (the handlers' dependency failure) rather
    // than cut off: a client retrying gets the truth before the connection goes.
    setTimeout(() => shutdown(1), DEATH_DRAIN_MS).unref();
  },
}).catch((error: unknown) => {
  console.error(`Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
if (stopping) {
  // A signal came during the start: stop what started.
  await stack.stop();
  process.exit(0);
}
console.log(`DynamoDB Local on ${stack.dynamo.endpoint} (${dataDir ? `data in ${dataDir}` : 'in memory'})`);
// `npm run token` finds the stack through PORT: the hint names it whenever it is not the default.
const tokenCommand = process.env.PORT ? `PORT=${port} npm run token` : 'npm run token';
console.log(`API on ${stack.baseUrl}/api/v1 — get a token with: ${tokenCommand} -- --workspace acme --scopes clients:read,clients:write`);
