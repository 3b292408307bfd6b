/**
 * Builds every function's bundle exactly as the CDK stack does (same esbuild options, from
 * infra/bundling.ts) and reports its minified and gzipped size.
 *
 *   npm run bundle-sizes                  # table of all bundles
 *   npm run bundle-sizes -- --details     # also the biggest packages inside each bundle
 *   npm run bundle-sizes -- --max-kb 400  # exit 1 when a bundle is bigger (default 500; a document's 2,048)
 *   npm run bundle-sizes -- --json <file> # also write every bundle, its bytes in base64, as JSON
 *
 * Nothing else is written to disk. The infra tests' global setup (test/infra/support/assembly.ts)
 * runs this command once per run (with --json and a limit every bundle exceeds):
 * test/infra/bundle-sizes.test.ts checks its output, exit status and the sizes, and
 * test/infra/stack.test.ts that the bundles are byte-identical to the stack's assets.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { AUTHORIZER_ENTRY, ROUTES } from '../shared/api/routes.ts';
import { FUNCTION_ENTRIES } from '../shared/api/background.ts';
import { PROJECT_ROOT, esbuildOptions } from '../infra/bundling.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';

/** The size limit the tests enforce on every bundle (minified, before compression)... */
export const MAX_BUNDLE_BYTES = 500 * 1024;
/** ...but a document's: its PDF library and font engine are 1.1 MB of it (docs/decisions/0034-invoice-document.md). */
export const MAX_DOCUMENT_BUNDLE_BYTES = 2048 * 1024;
const DOCUMENT_FUNCTIONS: ReadonlySet<string> = new Set(ROUTES.filter((route) => route.action === 'document').map((route) => route.operation));
/** The limit of the bundle of function `name`. */
export const bundleLimitOf = (name: string) => (DOCUMENT_FUNCTIONS.has(name) ? MAX_DOCUMENT_BUNDLE_BYTES : MAX_BUNDLE_BYTES);

export interface BundleTarget {
  /** Operation name of the route or background function, or `authorizer`. */
  name: string;
  /** Entry file, relative to the repository root. */
  entry: string;
}

export interface BundleSize extends BundleTarget {
  minifiedBytes: number;
  gzipBytes: number;
  /** The bundle itself (index.mjs), for comparison with what the stack deploys. */
  contents: Uint8Array;
  /** Bytes contributed by each package (`(project)` for this repository's own code). */
  packages: Record<string, number>;
  /** Every input file in the bundle, relative to the repository root. */
  inputs: string[];
}

export const BUNDLE_TARGETS: readonly BundleTarget[] = [
  ...FUNCTION_ENTRIES,
  { name: 'authorizer', entry: AUTHORIZER_ENTRY },
];

/** The npm package an esbuild input belongs to (`(project)` for this repository's own code). */
export function packageOf(inputPath: string): string {
  const at = inputPath.lastIndexOf('node_modules/');
  if (at === -1) return '(project)';
  const parts = inputPath.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/**
 * Every target's bundle from one esbuild build with an entry point per target: without code
 * splitting each output is the bundle of its entry alone, byte for byte what a build of that entry
 * gives (stack.test.ts compares them with the stack's assets), and the modules the functions share
 * (the AWS SDK above all) are parsed once instead of once per function.
 */
export async function measureBundles(targets: readonly BundleTarget[] = BUNDLE_TARGETS): Promise<BundleSize[]> {
  if (targets.length === 0) return [];
  const { outfile, entryPoints: _entry, ...options } = esbuildOptions(targets[0]!.entry);
  const outdir = path.dirname(outfile!);
  const result = await esbuild.build({
    ...options,
    entryPoints: targets.map((target) => ({ in: path.resolve(PROJECT_ROOT, target.entry), out: target.name })),
    outdir,
    outExtension: { '.js': path.extname(outfile!) },
    write: false,
    metafile: true,
  });
  return targets.map((target) => {
    const file = path.join(outdir, `${target.name}${path.extname(outfile!)}`);
    const output = result.outputFiles.find((f) => f.path === file);
    const meta = result.metafile.outputs[path.relative(PROJECT_ROOT, file)];
    if (!output || !meta) throw new Error(`No bundle produced for ${target.entry}`);
    const packages: Record<string, number> = {};
    const inputs: string[] = [];
    for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
      const name = packageOf(input);
      packages[name] = (packages[name] ?? 0) + bytesInOutput;
      inputs.push(input);
    }
    return {
      ...target,
      minifiedBytes: output.contents.byteLength,
      gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength,
      contents: output.contents,
      packages,
      inputs,
    };
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const USAGE = 'Usage: npm run bundle-sizes -- [--details] [--max-kb <KB per bundle>] [--json <file>]';

runWhenMain(import.meta.url, async () => {
  const { values } = parseCommandLine({ options: { details: { type: 'boolean', default: false }, 'max-kb': { type: 'string' }, json: { type: 'string' } } }, USAGE);
  const given = values['max-kb'] === undefined ? undefined : Number(values['max-kb']) * 1024;
  if (given !== undefined && (!Number.isFinite(given) || given <= 0)) throw new UsageError('--max-kb must be a positive number');
  const limitOf = (name: string) => given ?? bundleLimitOf(name);

  const sizes = await measureBundles();
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(sizes.map((s) => ({ ...s, contents: Buffer.from(s.contents).toString('base64') }))));
  const width = Math.max(...sizes.map((s) => s.name.length));
  console.log(`${'function'.padEnd(width)}  ${'minified'.padStart(10)}  ${'gzipped'.padStart(10)}`);
  for (const s of sizes) {
    const flag = s.minifiedBytes > limitOf(s.name) ? '  OVER LIMIT' : '';
    console.log(`${s.name.padEnd(width)}  ${kb(s.minifiedBytes).padStart(10)}  ${kb(s.gzipBytes).padStart(10)}${flag}`);
    if (values.details) {
      const top = Object.entries(s.packages)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8);
      for (const [name, bytes] of top) console.log(`${''.padEnd(width)}    ${kb(bytes).padStart(10)}  ${name}`);
    }
  }
  const total = sizes.reduce((sum, s) => sum + s.minifiedBytes, 0);
  const limits = given === undefined ? `${kb(MAX_BUNDLE_BYTES)} per bundle, ${kb(MAX_DOCUMENT_BUNDLE_BYTES)} a document's` : `${kb(given)} per bundle`;
  console.log(`${sizes.length} bundles, ${kb(total)} minified in total; limit ${limits}`);
  if (sizes.some((s) => s.minifiedBytes > limitOf(s.name))) process.exitCode = 1;
});
