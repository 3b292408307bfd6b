/**
 * Section 1: every function's bundle, built with the CDK stack's own esbuild options
 * (infra/bundling.ts: what NodejsFunction runs; test/infra/stack.test.ts proves the two are
 * byte-identical), beside its floor: the same options on a handler that holds only the SDK client
 * and commands the function sends, and a document's PDF library and font (lib/floor.ts). Files a
 * function reads at run time (a document's font) are copied beside its bundle as the stack copies
 * them (`node_modules/<package>/<path>`), so that its cold start finds them there.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { PROJECT_ROOT, esbuildOptions } from '../../infra/bundling.ts';
import { floorFilesOf, floorSource, type FloorCommand, type FloorWork } from './lib/floor.ts';
import { packageOf } from '../../scripts/bundle-sizes.ts';

export interface BuiltBundle {
  path: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** Bytes in the output per package (`(project)` for this repository). */
  packages: Record<string, number>;
}

async function build(options: esbuild.BuildOptions, outfile: string): Promise<BuiltBundle> {
  const result = await esbuild.build({ ...options, write: false, metafile: true });
  const output = result.outputFiles.find((f) => f.path.endsWith('.mjs'));
  if (!output) throw new Error(`No bundle produced for ${outfile}`);
  const packages: Record<string, number> = {};
  for (const meta of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
      const name = packageOf(input);
      packages[name] = (packages[name] ?? 0) + bytesInOutput;
    }
  }
  writeFileSync(outfile, output.contents);
  return { path: outfile, minifiedBytes: output.contents.byteLength, gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength, packages };
}

/** Package files (`<package>/<path>`) copied from the repository's node_modules to `<outdir>/node_modules/`, as the stack's bundling does. */
function copyFiles(files: readonly string[], outdir: string): void {
  for (const file of files) {
    const target = join(outdir, 'node_modules', file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, 'node_modules', file), target);
  }
}

/** A function's bundle exactly as the stack builds it, written to `<dir>/<name>/index.mjs`, with the package files it reads beside it. */
export async function buildFunctionBundle(name: string, entry: string, dir: string, files: readonly string[] = []): Promise<BuiltBundle> {
  const outdir = join(dir, name);
  mkdirSync(outdir, { recursive: true });
  copyFiles(files, outdir);
  const options = esbuildOptions(entry, outdir);
  return build(options, options.outfile!);
}

/** The floor bundle for a set of commands (and work): the same esbuild options, entry from floorSource(). */
export async function buildFloorBundle(commands: readonly FloorCommand[], dir: string, work: readonly FloorWork[] = []): Promise<BuiltBundle> {
  const name = `floor-${[...new Set(commands)].sort().join('-')}${work.map((w) => `+${w}`).join('')}`;
  const outdir = join(dir, name);
  mkdirSync(outdir, { recursive: true });
  copyFiles(floorFilesOf(work), outdir);
  const { entryPoints: _entry, ...options } = esbuildOptions('functions/authorizer.ts', outdir);
  return build(
    { ...options, stdin: { contents: floorSource(commands, work), resolveDir: PROJECT_ROOT, sourcefile: `${name}.mjs`, loader: 'js' } },
    options.outfile!,
  );
}

/** The packages that make a bundle bigger than its floor, biggest first. */
export function excessPackages(bundle: BuiltBundle, floor: BuiltBundle): { name: string; bytes: number }[] {
  const names = new Set([...Object.keys(bundle.packages), ...Object.keys(floor.packages)]);
  return [...names]
    .map((name) => ({ name, bytes: (bundle.packages[name] ?? 0) - (floor.packages[name] ?? 0) }))
    .filter((p) => p.bytes > 512)
    .sort((a, b) => b.bytes - a.bytes);
}
