/**
 * `npm run check:contract`: the local stack behind Stoplight Prism's validating proxy, every
 * operation driven through it (test/support/prism.ts's walkthrough, then the SDK's quickstart,
 * sdk/examples/quickstart.ts, with the proxy as its base URL), and a failure on any response
 * Prism finds outside the OpenAPI document (or a request the walkthrough sent right that the
 * document refuses). What it reports is what an integrator's validating proxy would log.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseCommandLine, runWhenMain } from '../../scripts/cli.ts';
import { freePort } from '../../infra/local/dynamodb.ts';
import { startLocalStack } from '../../infra/local/stack.ts';
import { redirectLogs } from '../../shared/core/log.ts';
import { Traffic, startPrism, violationsOf, walkthrough } from '../support/prism.ts';

const USAGE = `Usage: npm run check:contract -- [--help]

Starts the local stack and Prism's validating proxy (prism proxy docs/openapi.json) in front of
it, drives every operation through the proxy, and exits 1 if Prism found a response (or a
request sent as valid) that the OpenAPI document does not allow; 0 otherwise.`;

const repoRoot = resolve(import.meta.dirname, '../..');

async function main() {
  parseCommandLine({ options: {} }, USAGE);
  const stateDir = mkdtempSync(join(tmpdir(), 'timebill-contract-'));
  const logs: string[] = [];
  redirectLogs((_level, line) => void logs.push(line)); // the stack's own records: shown only on a failure
  const stack = await startLocalStack({
    repoRoot,
    port: await freePort(),
    stateDir,
    throttling: { rateLimit: 100_000, burstLimit: 100_000 },
    clientLimits: { override: { rateLimit: 100_000, burstLimit: 100_000 }, invalidToken: { rateLimit: 100_000, burstLimit: 100_000, monthlyQuota: undefined } },
  });
  const prism = await startPrism(stack.baseUrl, await freePort());
  let failures: string[];
  try {
    const traffic = new Traffic(prism, stack.baseUrl);
    await walkthrough(traffic, true);
    // The SDK's own walkthrough, given the server URL as the document's `servers` names it.
    const token = await traffic.token('contract-sdk');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'sdk/examples/quickstart.ts'], { cwd: repoRoot, env: { ...process.env, TOKEN: token, API: prism.url } });
    failures = await violationsOf(prism, traffic, true);
    console.log(`prism proxy: ${prism.requests().length} requests (${traffic.sent.length} of the walkthrough, the rest the SDK quickstart's), ${failures.length} violations`);
  } finally {
    await prism.stop();
    await stack.stop();
    redirectLogs(undefined);
    rmSync(stateDir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    for (const failure of failures.slice(0, 40)) console.error(failure);
    if (failures.length > 40) console.error(`… and ${failures.length - 40} more`);
    if (logs.length > 0) console.error(`The stack logged:\n${logs.join('')}`);
    process.exitCode = 1;
  }
}

runWhenMain(import.meta.url, main, 'check:contract');
