/**
 * Starts one local stack (DynamoDB Local + local gateway) for the whole integration run (both
 * integration projects), and stops it afterwards; the tests talk to it over HTTP only, as an
 * integrator would. The stack runs in a process of its own (stack-process.ts) over the run's
 * DynamoDB Local; its handlers' log records go to a file (stack-log.ts), which tests that provoke
 * warnings read; at the end, the warnings and errors no test asserted are printed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { StackProcessInput, StackProcessReady } from './stack-process.ts';
import { unassertedWarnings } from './stack-log.ts';
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
  stack: ChildProcess;
  ready: StackProcessReady;
  dynamoEndpoint: string;
  stateDir: string;
}

/** How long the stack's process has to stop before it is killed. */
const STOP_WAIT_MS = 10_000;

async function start(): Promise<Shared> {
  const stateDir = mkdtempSync(join(tmpdir(), 'timebill-test-'));
  // The infra projects' tables live beside the stack's (test/infra/support/assembly.ts): one Java for the run.
  const dynamoDbLocal = await sharedDynamoDbLocal.acquire();
  const input: StackProcessInput = { stateDir, dynamo: { endpoint: dynamoDbLocal.endpoint, port: dynamoDbLocal.port } };
  const stack = fork(join(import.meta.dirname, 'stack-process.ts'), [JSON.stringify(input)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  try {
    const [ready] = (await Promise.race([
      once(stack, 'message'),
      once(stack, 'exit').then(([code]) => Promise.reject(new Error(`the local stack's process exited (${String(code)}) before it served`))),
    ])) as [StackProcessReady];
    // As when the stack ran in this process: the workers inherit its environment.
    Object.assign(process.env, ready.env);
    return { stack, ready, dynamoEndpoint: dynamoDbLocal.endpoint, stateDir };
  } catch (error) {
    stack.kill('SIGKILL');
    await sharedDynamoDbLocal.release();
    throw error;
  }
}

async function stop({ stack, stateDir }: Shared): Promise<void> {
  if (stack.exitCode === null && stack.signalCode === null) {
    const exited = once(stack, 'exit');
    stack.send('stop');
    const timer = setTimeout(() => stack.kill('SIGKILL'), STOP_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
  await sharedDynamoDbLocal.release();
  const unexpected = unassertedWarnings(stateDir);
  if (unexpected.length > 0) {
    process.stderr.write(`The shared local stack logged ${unexpected.length} warning(s) or error(s) that no test asserted:\n`);
    for (const record of unexpected) process.stderr.write(`${JSON.stringify(record)}\n`);
  }
  rmSync(stateDir, { recursive: true, force: true });
}

const shared = shareAcrossProjects('timebill.integration-stack', start, stop);

export async function setup(project: TestProject) {
  const { ready, dynamoEndpoint, stateDir } = await shared.acquire();
  project.provide('baseUrl', ready.baseUrl);
  project.provide('dynamoEndpoint', dynamoEndpoint);
  project.provide('tableName', ready.tableName);
  project.provide('stateDir', stateDir);
}

export const teardown = () => shared.release();
