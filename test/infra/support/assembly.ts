/**
 * Global setup of the infra project (vitest.config.ts): synthesizes the app once per run, every
 * environment, bundling skipped (`aws:cdk:bundling-stacks: []`), into a temporary directory, and
 * provides its path. Template tests read the stacks from that cloud assembly (readAssembly below)
 * instead of synthesizing the same environments again in each file. cdk-nag runs during this
 * synthesis as in `cdk synth` (an unacknowledged finding fails the run here, with the finding).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { TestProject } from 'vitest/node';
import { buildApp } from '../../../infra/app.ts';
import { PROJECT_ROOT } from '../../../infra/bundling.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Directory of the cloud assembly of every environment (templates only, no bundles). */
    infraAssembly: string;
  }
}

/** cdk.json's feature flags, with bundling skipped: what template tests synthesize with. */
export function templateContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };
}

export default function setup(project: TestProject) {
  const outdir = mkdtempSync(path.join(tmpdir(), 'timebill-assembly-'));
  const app = new App({ context: templateContext(), outdir });
  buildApp(app);
  app.synth();
  project.provide('infraAssembly', outdir);
  return () => rmSync(outdir, { recursive: true, force: true });
}
