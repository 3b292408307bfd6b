/**
 * The local stack's secrets are made once per state folder, also when stacks start at once.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOrCreateOnce } from '../../infra/local/state-file.ts';
import { removeTempDirs, tempDir } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

/**
 * The module as JavaScript, so that each racer is a plain `node` (tsx's loader would cost each
 * about half a core-second to start).
 */
let MODULE: string;
beforeAll(async () => {
  const source = readFileSync(resolve(import.meta.dirname, '../../infra/local/state-file.ts'), 'utf8');
  const compiled = join(tempDir('state-file-module-'), 'state-file.mjs');
  writeFileSync(compiled, (await transform(source, { loader: 'ts', format: 'esm' })).code);
  MODULE = pathToFileURL(compiled).href;
});

/** A process that makes the file with a value of its own (a pause inside make widens the race) and prints what it read. */
function racer(path: string, value: string): Promise<string> {
  const script = `import { readOrCreateOnce } from ${JSON.stringify(MODULE)};
const make = () => { const until = Date.now() + 50; while (Date.now() < until); return ${JSON.stringify(value)}; };
process.stdout.write(readOrCreateOnce(${JSON.stringify(path)}, make).toString());`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`racer exited ${code}: ${err}`))));
  });
}

describe('readOrCreateOnce', () => {
  it('reads a file that exists, and never calls make', () => {
    const dir = tempDir('state-file-');
    writeFileSync(join(dir, 'key'), 'kept');
    expect(readOrCreateOnce(join(dir, 'key'), () => { throw new Error('made again'); }).toString()).toBe('kept');
  });

  it('makes a missing file (and its folder) once, private to its owner', () => {
    const path = join(tempDir('state-file-'), 'nested', 'key');
    let calls = 0;
    const first = readOrCreateOnce(path, () => `value-${++calls}`).toString();
    expect([first, readOrCreateOnce(path, () => `value-${++calls}`).toString(), calls]).toEqual(['value-1', 'value-1', 1]);
    expect(readdirSync(join(path, '..'))).toEqual(['key']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('gives stacks that start at once over one folder the same value, whole, and leaves no file aside', async () => {
    const dir = tempDir('state-file-');
    const path = join(dir, 'key');
    const read = await Promise.all(Array.from({ length: 6 }, (_, i) => racer(path, `value-of-racer-${i}`)));
    expect(new Set(read).size).toBe(1);
    expect(read[0]).toMatch(/^value-of-racer-\d$/);
    expect(readFileSync(path, 'utf8')).toBe(read[0]);
    expect(readdirSync(dir)).toEqual(['key']);
  }, 120_000);
});
