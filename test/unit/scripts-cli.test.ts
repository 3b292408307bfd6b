/**
 * Every `npm run` script that takes options reads them through scripts/cli.ts: an unknown option
 * is named beside the usage (exit 2, no stack trace), `--help` prints the usage and exits 0,
 * and a negative number may follow its option after a space. Each script exits before doing work.
 *
 * Each script is run in this worker as its npm script runs it (process.argv naming the file, so
 * runWhenMain calls its main; process.exit and the output captured): a child process costs a
 * whole TypeScript loader and script import, about a second of CPU each. One script runs as a
 * real child process, for what the worker cannot show: `node --import tsx` finds the main
 * module, and the exit status and standard error are the process's.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { joinNegativeValues } from '../../scripts/cli.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}
/** `node --import tsx <file> <args>` as a child process. */
async function script(file: string, args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', file, ...args], { cwd: repoRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

class Exited extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}
/**
 * `file` run with `args` in this worker, up to its process.exit: what the process would have
 * printed and its exit status. The file is imported afresh (every module of the repository
 * evaluated again), so runWhenMain of a script that another one imports runs too.
 */
async function inProcess(file: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const written = { stdout: '', stderr: '' };
  let outcome: Outcome | undefined;
  const exit = (code: number) => {
    outcome ??= { code, ...written };
    throw new Exited(code);
  };
  const { argv, exitCode } = process;
  process.argv = [process.execPath, join(repoRoot, file), ...args];
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const capture = (stream: 'stdout' | 'stderr') => (chunk: unknown) => ((written[stream] += String(chunk)), true);
  const spies = [
    vi.spyOn(process, 'exit').mockImplementation((code) => exit(Number(code ?? 0))),
    vi.spyOn(process.stdout, 'write').mockImplementation(capture('stdout')),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture('stderr')),
    vi.spyOn(console, 'log').mockImplementation((...data: unknown[]) => capture('stdout')(`${format(...data)}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...data: unknown[]) => capture('stderr')(`${format(...data)}\n`)),
  ];
  try {
    vi.resetModules();
    await import(pathToFileURL(join(repoRoot, file)).href).catch((error: unknown) => {
      if (!(error instanceof Exited)) throw error;
    });
    // runWhenMain's main is async: give it a moment to exit (it parses before its first await).
    for (let turn = 0; turn < 100 && !outcome; turn++) await new Promise((done) => setTimeout(done, 10));
    // After the exit a process would be gone; here runWhenMain reports the Exited thrown.
    await new Promise((done) => setImmediate(done));
  } finally {
    for (const spy of spies) spy.mockRestore();
    vi.unstubAllEnvs();
    process.argv = argv;
    process.exitCode = exitCode;
  }
  if (!outcome) throw new Error(`${file} ${args.join(' ')}: no process.exit within a second (stdout ${JSON.stringify(written.stdout)}, stderr ${JSON.stringify(written.stderr)})`);
  return outcome;
}

const packageScripts = Object.entries((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const source = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
/** npm script name → the .ts file it runs, for the scripts that read options. */
const WITH_OPTIONS = packageScripts.flatMap(([name, command]) => {
  const file = /(\S+\.ts)\b/.exec(command)?.[1];
  return file && source(file).includes('parseCommandLine(') ? [{ name, file }] : [];
});

/** What an unknown option does to the npm script `name`. */
function expectUsageError(name: string, unknown: Outcome) {
  expect(unknown.code, `${name} --no-such-option`).toBe(2);
  expect(unknown.stderr, name).toContain("Unknown option '--no-such-option'");
  expect(unknown.stderr, name).toContain(`Usage: npm run ${name} --`);
  expect(unknown.stderr, name).not.toMatch(/\n\s+at /);
}

// The child process: generous, so a loaded machine never fails it (the default 5 s would).
describe('the scripts\' command lines', { timeout: 300_000 }, () => {
  it('every script that reads options does so through scripts/cli.ts', () => {
    expect(WITH_OPTIONS.map((s) => s.name).sort()).toEqual(
      ['backfill:totals', 'bench', 'billing-schedule', 'bundle-sizes', 'check:contract', 'integration:create', 'integration:plan', 'integration:revoke', 'mutation', 'openapi', 'restore-drill', 'rotate-client-secret', 'soak', 'token', 'usage'].sort(),
    );
    const files = [
      ...readdirSync(join(repoRoot, 'scripts')).map((f) => `scripts/${f}`),
      ...['test/bench/run.ts', 'test/soak/run.ts', 'test/contract/check.ts'],
    ].filter((f) => f.endsWith('.ts') && f !== 'scripts/cli.ts');
    const direct = files.filter((f) => /\bparseArgs\b/.test(source(f)));
    expect(direct, 'parse options with parseCommandLine of scripts/cli.ts').toEqual([]);
  });

  it('an unknown option is named beside the usage and exits 2, without a stack trace; --help prints the usage and exits 0', async () => {
    // Every script with a wrong option (it prints its usage, so its usage names its npm script),
    // in this worker one after the other (process.argv is the worker's).
    for (const { name, file } of WITH_OPTIONS) expectUsageError(name, await inProcess(file, ['--no-such-option']));
    // --help once: it is the same parseCommandLine.
    const help = await inProcess('scripts/token.ts', ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run token --/);
  });

  it('run as its npm script runs it, a script with an unknown option exits 2 with the mistake and its usage on standard error', async () => {
    // A script whose main runWhenMain calls (it finds the main module in process.argv), and the
    // cheapest of them to import.
    const file = packageScripts.find(([name]) => name === 'bundle-sizes')![1].split(' ').at(-1)!;
    expect(source(file)).toContain('runWhenMain(import.meta.url');
    expectUsageError('bundle-sizes', await script(file, ['--no-such-option']));
  });

  it('npm run token takes --expires-in -10 as --expires-in=-10', async () => {
    expect(joinNegativeValues(['--expires-in', '-10', '--workspace', 'a'], { 'expires-in': { type: 'string' }, workspace: { type: 'string' } })).toEqual([
      '--expires-in=-10',
      '--workspace',
      'a',
    ]);
    // A boolean option never takes the next argument; a dash that is not a number stays an option.
    expect(joinNegativeValues(['--json', '-1', '--at', '-x'], { json: { type: 'boolean' }, at: { type: 'string' } })).toEqual(['--json', '-1', '--at', '-x']);
    // An option named after an Object.prototype property is no option of the script's.
    const inherited = Object.assign(Object.create({ toString: { type: 'string' } }) as object, { at: { type: 'string' } }) as Parameters<typeof joinNegativeValues>[1];
    expect(joinNegativeValues(['--toString', '-1', '--constructor', '-2', '--__proto__', '-3'], inherited)).toEqual(['--toString', '-1', '--constructor', '-2', '--__proto__', '-3']);
    // Past parsing, the script looks for a stack: on a port where none answers it says so.
    const spaced = await inProcess('scripts/token.ts', ['--workspace', 'acme', '--scopes', 'clients:read', '--expires-in', '-10'], { PORT: '9' });
    expect(spaced.code, spaced.stderr).toBe(1);
    expect(spaced.stderr).toContain('No local stack answers on port 9');
  });
});
