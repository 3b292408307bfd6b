/**
 * Every function's bundle, built once per infra run by the global setup (assembly.ts) with
 * scripts/bundle-sizes.ts's measureBundles(), for the files that read them (bundle-sizes.test.ts,
 * stack.test.ts): written beside the cloud assembly as JSON, the bundles' bytes in base64.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../../../infra/bundling.ts';
import type { BundleSize } from '../../../scripts/bundle-sizes.ts';

/** The file the bundles are written to, in the directory the global setup provides. */
const FILE = 'bundles.json';

export interface BuiltBundles {
  readonly sizes: BundleSize[];
  /** sourceFingerprint() just before the bundles were built. */
  readonly fingerprint: string;
}

/** Fingerprint of everything that goes into a bundle: functions/, shared/ and the lockfile. */
export function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(full).update(readFileSync(full));
    }
  };
  walk(path.join(PROJECT_ROOT, 'functions'));
  walk(path.join(PROJECT_ROOT, 'shared'));
  hash.update(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json')));
  return hash.digest('hex');
}

export function writeBundles(directory: string, bundles: BuiltBundles): void {
  const sizes = bundles.sizes.map((b) => ({ ...b, contents: Buffer.from(b.contents).toString('base64') }));
  writeFileSync(path.join(directory, FILE), JSON.stringify({ fingerprint: bundles.fingerprint, sizes }));
}

/** The bundles the global setup built for this run, from the directory it provides (`inject('infraAssembly')`). */
export function readBundles(directory: string): BuiltBundles {
  const read = JSON.parse(readFileSync(path.join(directory, FILE), 'utf8')) as { fingerprint: string; sizes: (Omit<BundleSize, 'contents'> & { contents: string })[] };
  return { fingerprint: read.fingerprint, sizes: read.sizes.map((b) => ({ ...b, contents: new Uint8Array(Buffer.from(b.contents, 'base64')) })) };
}
