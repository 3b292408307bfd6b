/**
 * `npm run build` in sdk/, which `npm pack` runs (prepack): the generated types written
 * (scripts/types.ts), then src/ compiled into dist/, the files of the package
 * (docs/decisions/0020-sdk-package.md).
 * - dist/cjs: CommonJS JavaScript and declarations (tsc with tsconfig.build.json), marked
 *   CommonJS by a package.json of its own (the package is `"type": "module"`).
 * - dist/esm: the ES module entry, re-exporting the CommonJS build's exports, so that `import`
 *   and `require` share one implementation: one `TimebillError` class, one map of ETags.
 * Declarations name their imports `.js` (the sources name `.ts`), are indented by two spaces (the
 * generated openapi-types are most of the package), and modules of types only get no JavaScript.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { writeSdkTypes } from './types.ts';

const sdk = resolve(import.meta.dirname, '..');
const dist = resolve(sdk, 'dist');

/** What tsc emits, as the package ships it (undefined: not shipped). */
function shipped(fileName: string, text: string): string | undefined {
  if (fileName.endsWith('.d.ts')) {
    return text.replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2').replace(/^((?: {4})+)/gm, (indent) => ' '.repeat(indent.length / 2));
  }
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/^"use strict";$/m, '')
    .replace('Object.defineProperty(exports, "__esModule", { value: true });', '');
  return code.trim() === '' ? undefined : text;
}

function compile(): void {
  const config = ts.getParsedCommandLineOfConfigFile(resolve(sdk, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('sdk/tsconfig.build.json: unreadable');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit(undefined, (fileName, text) => {
    const content = shipped(fileName, text);
    if (content === undefined) return;
    mkdirSync(dirname(fileName), { recursive: true });
    writeFileSync(fileName, content);
  });
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => sdk, getNewLine: () => '\n' };
    throw new Error(`The SDK does not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
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
