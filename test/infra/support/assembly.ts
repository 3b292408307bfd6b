/**
 * Global setup of the infra project (vitest.config.ts): synthesizes the app once per run, every
 * environment, bundling skipped (`aws:cdk:bundling-stacks: []`), into a temporary directory, and
 * provides its path (CDK's CloudFormation validation of its templates is a test of its own,
 * cloudformation-validate.test.ts). Template tests read the stacks from that cloud assembly
 * (readAssembly below) instead of synthesizing the same environments again in each file. cdk-nag runs during this
 * synthesis as in `cdk synth` (an unacknowledged finding fails the run here, with the finding).
 * Meanwhile the command `npm run bundle-sizes` builds every function's bundle once (support/bundles.ts), in its own process,
 * and the run's DynamoDB Local (the integration stack's, support/shared-setup.ts) serves the files
 * that need a table (support/local-table.ts), provided as `dynamoEndpoint`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { DynamoDbLocal } from '../../../infra/local/dynamodb.ts';
import { PROJECT_ROOT } from '../../../infra/bundling.ts';
import { shareAcrossProjects, sharedDynamoDbLocal } from '../../support/shared-setup.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Directory of the cloud assembly of every environment (templates only) and of the bundles (support/bundles.ts). */
    infraAssembly: string;
  }
}

/** cdk.json's feature flags, with bundling skipped: what template tests synthesize with. */
export function templateContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };
}

/** What the setup makes once for the infra projects (vitest.config.ts: `infra`, `infra-isolated`, `infra-isolated-forks`). */
interface Shared {
  outdir: string;
  local: DynamoDbLocal;
}

async function start(): Promise<Shared> {
  // Loaded by the first infra project's setup only: each project loads this module afresh, and
  // the stacks' modules took each of the other two setups seconds of vitest's main thread.
  const [{ App }, { buildApp }, { runBundleCommand, sourceFingerprint, writeBundles }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../../infra/app.ts'),
    import('./bundles.ts'),
  ]);
  const outdir = mkdtempSync(path.join(tmpdir(), 'timebill-assembly-'));
  const fingerprint = sourceFingerprint();
  // Started first: the bundles are built, and the run's DynamoDB Local boots unless the
  // integration setup started it (vitest runs the projects' setups one after the other, in the
  // order their files were found), in their own processes while this one synthesizes. Java is
  // spawned once a free port is found, a few event-loop turns from now: the synthesis, which holds
  // this thread, starts 100 ms later (at once if Java already runs).
  const bundles = runBundleCommand(path.join(outdir, 'bundle-sizes.json'));
  const dynamo = sharedDynamoDbLocal.acquire();
  await Promise.race([dynamo.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 100))]);
  try {
    const app = new App({ context: templateContext(), outdir });
    buildApp(app);
    // CDK's CloudFormation validation runs in cloudformation-validate.test.ts, beside the other
    // files, not here, where every infra file waits for it.
    const validation = process.env.CDK_VALIDATION;
    process.env.CDK_VALIDATION = 'false';
    try {
      app.synth();
    } finally {
      if (validation === undefined) delete process.env.CDK_VALIDATION;
      else process.env.CDK_VALIDATION = validation;
    }
    writeBundles(outdir, { fingerprint, ...(await bundles) });
  } catch (error) {
    await dynamo.then(() => sharedDynamoDbLocal.release()); // a finding of cdk-nag, say: no Java left behind
    await bundles.catch(() => undefined);
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
  return { outdir, local: await dynamo };
}

const shared = shareAcrossProjects('timebill.infra-assembly', start, async ({ outdir }) => {
  await sharedDynamoDbLocal.release();
  rmSync(outdir, { recursive: true, force: true });
});

/**
 * Every infra project (the files that share workers and those that change process-wide state,
 * vitest.config.ts) runs this setup: the first synthesizes, all are given the same assembly and
 * DynamoDB Local, and the last teardown stops and removes them.
 */
export default async function setup(project: TestProject) {
  const { outdir, local } = await shared.acquire();
  project.provide('infraAssembly', outdir);
  project.provide('dynamoEndpoint', local.endpoint);
  return () => shared.release();
}
