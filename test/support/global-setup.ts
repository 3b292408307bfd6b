/**
 * Starts one local stack (DynamoDB Local + local gateway) for the whole integration run (both
 * integration projects), and
 * stops it afterwards; the tests talk to it over HTTP only, as an integrator would. The stack's
 * handlers run in this process: their log records go to a file (stack-log.ts), which tests that
 * provoke warnings read; at the end, the warnings and errors no test asserted are printed.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../infra/local/dynamodb.ts';
import type { LocalStack } from '../../infra/local/stack.ts';
import { redirectLogs } from '../../shared/core/log.ts';
import { WEBHOOK_RETRY_BASE_MS } from './events.ts';
import { stackLogFiles, unassertedWarnings } from './stack-log.ts';
import { shareAcrossProjects, sharedDynamoDbLocal } from './shared-setup.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    dynamoEndpoint: string;
    tableName: string;
    stateDir: string;
  }
}

/** One stack for both integration projects (vitest.config.ts): each project's setup and teardown come here. */
interface Shared {
  stack: LocalStack;
  stateDir: string;
}

async function start(): Promise<Shared> {
  // Loaded by the first integration project's setup only (the other loads this module afresh).
  const { startLocalStack } = await import('../../infra/local/stack.ts');
  const stateDir = mkdtempSync(join(tmpdir(), 'timebill-test-'));
  const { log } = stackLogFiles(stateDir);
  redirectLogs((_level, line) => appendFileSync(log, line));
  // The infra projects' tables live beside the stack's (test/infra/support/assembly.ts): one Java for the run.
  const dynamoDbLocal = await sharedDynamoDbLocal.acquire();
  const stack = await startLocalStack({
    repoRoot: resolve(import.meta.dirname, '../..'),
    dynamoDbLocal,
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
  }).catch(async (error: unknown) => {
    await sharedDynamoDbLocal.release();
    throw error;
  });
  return { stack, stateDir };
}

async function stop({ stack, stateDir }: Shared): Promise<void> {
  await stack.stop();
  await sharedDynamoDbLocal.release();
  redirectLogs(undefined);
  const unexpected = unassertedWarnings(stateDir);
  if (unexpected.length > 0) {
    process.stderr.write(`The shared local stack logged ${unexpected.length} warning(s) or error(s) that no test asserted:\n`);
    for (const record of unexpected) process.stderr.write(`${JSON.stringify(record)}\n`);
  }
  rmSync(stateDir, { recursive: true, force: true });
}

const shared = shareAcrossProjects('timebill.integration-stack', start, stop);

export async function setup(project: TestProject) {
  const { stack, stateDir } = await shared.acquire();
  project.provide('baseUrl', stack.baseUrl);
  project.provide('dynamoEndpoint', stack.dynamo.endpoint);
  project.provide('tableName', stack.tableName);
  project.provide('stateDir', stateDir);
}

export const teardown = () => shared.release();
