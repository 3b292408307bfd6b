/**
 * How every Lambda function is bundled: one definition, read by the CDK stack (NodejsFunction
 * runs the esbuild CLI with these options) and by scripts/bundle-sizes.ts (which runs esbuild's
 * JS API with the same options), so the reported sizes are the sizes of what is deployed.
 * test/infra/stack.test.ts proves the two produce byte-identical bundles.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogLevel, OutputFormat, type BundlingOptions, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** The repository root: entries in shared/api/routes.ts are relative to it. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** esbuild target matching the Lambda runtime (Runtime.NODEJS_24_X in infra/stack.ts). */
export const NODE_TARGET = 'node24';

/**
 * ESM output has no `require`; some CommonJS dependencies (bundled in, e.g. parts of the AWS SDK's
 * dependency tree) call it for Node built-ins. The banner defines it for them.
 */
export const ESM_REQUIRE_BANNER =
  "import{createRequire as __timebillCreateRequire}from'node:module';const require=__timebillCreateRequire(import.meta.url);";

/**
 * The bundling settings, as plain data:
 * - ESM output (`index.mjs`), for top-level await and the runtime's faster ESM loader;
 * - everything bundled, the AWS SDK included (`externalModules: []`): the SDK version is the one
 *   pinned in package-lock.json, not whatever the runtime ships, and tree-shaking keeps only what
 *   the handler uses;
 * - minified and tree-shaken; no source maps (smaller bundles, faster cold starts; stack traces
 *   are not returned to callers anyway, and the minified names are mapped by re-bundling locally);
 * - `module` before `main` so that dependencies' ESM builds are picked (better tree-shaking);
 * - regular expressions with Unicode property escapes (`/\p{L}/u`) kept as literals: esbuild
 *   otherwise writes them as `new RegExp(…)` calls for a `node24` target, which the bundler cannot
 *   drop when nothing reads them (valibot's EMOJI_REGEX, in every function that validates input).
 *   Node 24 compiles them natively; the expressions are the same.
 */
export const BUNDLING = {
  format: 'esm',
  platform: 'node',
  target: NODE_TARGET,
  minify: true,
  treeShaking: true,
  sourceMap: false,
  externalModules: [] as string[],
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  supported: { 'regexp-unicode-property-escapes': true },
  outFile: 'index.mjs',
} as const;

/**
 * Files of packages a function reads at run time (a document's font), copied beside its bundle
 * where Node's resolution finds them from index.mjs (`node_modules/<package>/<path>`), after esbuild.
 */
function copyingHooks(files: readonly string[]): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) =>
      files.flatMap((file) => {
        const target = path.posix.join(outputDir, 'node_modules', file);
        return [`mkdir -p "${path.posix.dirname(target)}"`, `cp "${path.posix.join(inputDir, 'node_modules', file)}" "${target}"`];
      }),
  };
}

/** The options handed to NodejsFunction's `bundling`, with the package files the function reads copied beside its bundle. */
export function cdkBundlingOptions(files: readonly string[] = []): BundlingOptions {
  return {
    ...(files.length > 0 ? { commandHooks: copyingHooks(files) } : {}),
    format: OutputFormat.ESM,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourceMap: BUNDLING.sourceMap,
    externalModules: [...BUNDLING.externalModules],
    mainFields: [...BUNDLING.mainFields],
    banner: BUNDLING.banner,
    // `--bundle` already tree-shakes; stated explicitly so that nothing can turn it off.
    esbuildArgs: {
      '--tree-shaking': String(BUNDLING.treeShaking),
      ...Object.fromEntries(Object.entries(BUNDLING.supported).map(([feature, on]) => [`--supported:${feature}`, String(on)])),
    },
    logLevel: LogLevel.WARNING,
  };
}

/**
 * The same build through esbuild's JS API: the arguments NodejsFunction passes to the esbuild CLI
 * (`--bundle <entry> --target --platform=node --format=esm --outfile=<dir>/index.mjs --minify
 * --main-fields --banner:js --tree-shaking --supported:…`), for the entry file of one function.
 */
export function esbuildOptions(entry: string, outdir = path.join(PROJECT_ROOT, 'cdk.out', 'bundle-sizes')): BuildOptions {
  return {
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [path.resolve(PROJECT_ROOT, entry)],
    bundle: true,
    platform: BUNDLING.platform,
    format: BUNDLING.format,
    target: BUNDLING.target,
    outfile: path.join(outdir, BUNDLING.outFile),
    minify: BUNDLING.minify,
    treeShaking: BUNDLING.treeShaking,
    sourcemap: BUNDLING.sourceMap,
    external: [...BUNDLING.externalModules],
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    supported: { ...BUNDLING.supported },
    logLevel: 'warning',
  };
}
