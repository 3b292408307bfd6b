/**
 * Every function's bundle, built once per infra run by the global setup (assembly.ts) with the
 * command scripts/bundle-sizes.ts (`npm run bundle-sizes`), for the files that read them
 * (bundle-sizes.test.ts, stack.test.ts): written beside the cloud assembly as JSON, the bundles'
 * bytes in base64, with what the command printed and its exit status.
 */
import { execFile } from 'node:child_process';
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
  /** The command that built them: `--max-kb` it ran with, its exit status and what it printed. */
  readonly command: BundleCommand;
}

export interface BundleCommand {
  readonly maxKb: number;
  readonly status: number;
  readonly stdout: string;
}

/** A bundle as JSON holds it: its bytes in base64. */
type EncodedBundle = Omit<BundleSize, 'contents'> & { contents: string };
const decoded = (bundle: EncodedBundle): BundleSize => ({ ...bundle, contents: new Uint8Array(Buffer.from(bundle.contents, 'base64')) });

/** A limit every bundle exceeds: the command's run shows its failure too (bundle-sizes.test.ts). */
export const COMMAND_MAX_KB = 1;

/**
 * Runs `npm run bundle-sizes -- --max-kb 1 --json <file>` (through tsx, in its own process, which
 * runs esbuild in another) and reads the bundles it wrote. The command fails (status 1), as every
 * bundle exceeds 1 KB; without the bundles it wrote, this throws.
 */
export function runBundleCommand(jsonFile: string): Promise<{ sizes: BundleSize[]; command: BundleCommand }> {
  const script = path.join(PROJECT_ROOT, 'scripts/bundle-sizes.ts');
  const tsx = path.join(PROJECT_ROOT, 'node_modules/.bin/tsx');
  return new Promise((resolve, reject) => {
    execFile(tsx, [script, '--max-kb', String(COMMAND_MAX_KB), '--json', jsonFile], { cwd: PROJECT_ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      try {
        const sizes = (JSON.parse(readFileSync(jsonFile, 'utf8')) as EncodedBundle[]).map(decoded);
        resolve({ sizes, command: { maxKb: COMMAND_MAX_KB, status, stdout } });
      } catch (cause) {
        reject(new Error(`npm run bundle-sizes wrote no bundles (status ${status}): ${stderr}`, { cause }));
      }
    });
  });
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
  writeFileSync(path.join(directory, FILE), JSON.stringify({ fingerprint: bundles.fingerprint, command: bundles.command, sizes }));
}

/** The bundles the global setup built for this run, from the directory it provides (`inject('infraAssembly')`). */
export function readBundles(directory: string): BuiltBundles {
  const read = JSON.parse(readFileSync(path.join(directory, FILE), 'utf8')) as { fingerprint: string; command: BundleCommand; sizes: EncodedBundle[] };
  return { fingerprint: read.fingerprint, command: read.command, sizes: read.sizes.map(decoded) };
}
