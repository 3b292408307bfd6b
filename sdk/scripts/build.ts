/**
 * `npm run build` in sdk/, which `npm pack` runs (prepack): the generated types written
 * (scripts/types.ts), then src/ compiled into dist/, the files of the package
 * (docs/decisions/0020-sdk-package.md).
 * - dist/cjs: CommonJS JavaScript and declarations (the repository's tsc, TypeScript 7, with
 *   tsconfig.build.json), marked CommonJS by a package.json of its own (the package is
 *   `"type": "module"`).
 * - dist/esm: the ES module entry, re-exporting the CommonJS build's exports, so that `import`
 *   and `require` share one implementation: one `TimebillError` class, one map of ETags.
 * Declarations name their imports `.js` (the sources name `.ts`), are indented by two spaces (the
 * generated openapi-types are most of the package), and modules of types only get no JavaScript.
 * Each comment ships once: in the declarations, where an editor shows it (the JavaScript is
 * compiled without comments), and a shared parameter's description on its definition only.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TSC } from '../../scripts/tsc.ts';
import { writeSdkTypes } from './types.ts';

const sdk = resolve(import.meta.dirname, '..');
const dist = resolve(sdk, 'dist');

/** What tsc emits, as the package ships it (undefined: not shipped). */
function shipped(fileName: string, text: string): string | undefined {
  if (fileName.endsWith('.d.ts')) {
    return withoutRepeatedDescriptions(
      text.replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2').replace(/^((?: {4})+)/gm, (indent) => ' '.repeat(indent.length / 2)),
    );
  }
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/^"use strict";$/m, '')
    .replace('Object.defineProperty(exports, "__esModule", { value: true });', '');
  return code.trim() === '' ? undefined : text;
}

/**
 * openapi-typescript writes the description of a shared parameter (`Idempotency-Key`: 400
 * characters) on its definition in `components` and again on each use (`"Idempotency-Key"?:
 * components["parameters"]["IdempotencyKey"]`, once per write operation). A use keeps no copy of
 * its definition's: an editor shows that one on the referenced type.
 */
function withoutRepeatedDescriptions(declarations: string): string {
  const definitions = new Map<string, string>();
  for (const [, kind, members] of declarations.matchAll(/^ {2}(parameters|headers): \{\n([\s\S]*?)^ {2}\};$/gm)) {
    for (const [, comment, name] of members!.matchAll(/^ {4}(\/\*\*.*\*\/)\n {4}"?([^":?]+)"?\??:/gm)) definitions.set(`${kind}.${name}`, comment!);
  }
  return declarations.replace(/^ *(\/\*\*.*\*\/)\n(?=.*: components\["(parameters|headers)"\]\["([^"]+)"\];$)/gm, (line, comment: string, kind: string, name: string) =>
    definitions.get(`${kind}.${name}`) === comment ? '' : line,
  );
}

/** The repository's tsc (TypeScript 7) with the build's tsconfig and `flags`. */
function tsc(flags: string[]): void {
  try {
    execFileSync(process.execPath, [TSC, '-p', resolve(sdk, 'tsconfig.build.json'), '--pretty', 'false', ...flags], { cwd: sdk, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`The SDK does not compile:\n${stdout}${stderr}`);
  }
}

/**
 * The repository's tsc (TypeScript 7) writes to a temporary directory, the declarations (with the
 * sources' comments) and the JavaScript (without) apart; what the package ships of it goes to dist/cjs.
 */
function compile(): void {
  const emitted = mkdtempSync(join(tmpdir(), 'timebill-sdk-build-'));
  try {
    tsc(['--emitDeclarationOnly', '--outDir', emitted]);
    // Type checked once, above; this pass only writes the JavaScript.
    tsc(['--declaration', 'false', '--removeComments', '--noCheck', '--outDir', emitted]);
    for (const file of readdirSync(emitted, { recursive: true, encoding: 'utf8' })) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const content = shipped(file, readFileSync(join(emitted, file), 'utf8'));
      if (content === undefined) continue;
      const target = resolve(dist, 'cjs', file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  } finally {
    rmSync(emitted, { recursive: true, force: true });
  }
}

/** The ES module entry: the CommonJS build's exports, by name. */
function esmEntry(): void {
  const names = Object.keys(createRequire(import.meta.url)(resolve(dist, 'cjs/index.js')) as object).sort();
  mkdirSync(resolve(dist, 'esm'), { recursive: true });
  const header = '// The ES module entry of @timebill/sdk: the CommonJS build, so that import and require share one implementation.\n';
  writeFileSync(resolve(dist, 'esm/index.js'), `${header}import sdk from '../cjs/index.js';\n\nexport const { ${names.join(', ')} } = sdk;\n`);
  writeFileSync(resolve(dist, 'esm/index.d.ts'), `${header}export * from '../cjs/index.js';\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  rmSync(dist, { recursive: true, force: true });
  await writeSdkTypes();
  compile();
  writeFileSync(resolve(dist, 'cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  esmEntry();
}
