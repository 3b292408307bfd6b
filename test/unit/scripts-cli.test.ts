/**
 * Every `npm run` script that takes options reads them through scripts/cli.ts: an unknown option
 * is named beside the usage (exit 2, no stack trace), `--help` prints the usage and exits 0,
 * and a negative number may follow its option after a space. Each script exits before doing work.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { joinNegativeValues } from '../../scripts/cli.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}
async function script(file: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', file, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const packageScripts = Object.entries((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const source = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
/** npm script name → the .ts file it runs, for the scripts that read options. */
const WITH_OPTIONS = packageScripts.flatMap(([name, command]) => {
  const file = /(\S+\.ts)\b/.exec(command)?.[1];
  return file && source(file).includes('parseCommandLine(') ? [{ name, file }] : [];
});

// Child processes: generous, so a loaded machine never fails them (the default 5 s would).
describe('the scripts\' command lines', { timeout: 300_000 }, () => {
  it('every script that reads options does so through scripts/cli.ts', () => {
    expect(WITH_OPTIONS.map((s) => s.name).sort()).toEqual(
      ['backfill:totals', 'bench', 'bundle-sizes', 'check:contract', 'integration:create', 'integration:plan', 'integration:revoke', 'restore-drill', 'rotate-client-secret', 'soak', 'token', 'usage'].sort(),
    );
    const files = [
      ...readdirSync(join(repoRoot, 'scripts')).map((f) => `scripts/${f}`),
      ...['test/bench/run.ts', 'test/soak/run.ts', 'test/contract/check.ts'],
    ].filter((f) => f.endsWith('.ts') && f !== 'scripts/cli.ts');
    const direct = files.filter((f) => /\bparseArgs\b/.test(source(f)));
    expect(direct, 'parse options with parseCommandLine of scripts/cli.ts').toEqual([]);
  });

  it('an unknown option is named beside the usage and exits 2, without a stack trace; --help prints the usage and exits 0', async () => {
    // Every script with a wrong option (it prints its usage, so its usage names its npm script);
    // --help once: it is the same parseCommandLine, and each child costs a whole script's import.
    const outcomes = await Promise.all(WITH_OPTIONS.map(async ({ name, file }) => ({ name, unknown: await script(file, ['--no-such-option']) })));
    const help = await script('scripts/token.ts', ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run token --/);
    for (const { name, unknown } of outcomes) {
      expect(unknown.code, `${name} --no-such-option`).toBe(2);
      expect(unknown.stderr, name).toContain("Unknown option '--no-such-option'");
      expect(unknown.stderr, name).toContain(`Usage: npm run ${name} --`);
      expect(unknown.stderr, name).not.toMatch(/\n\s+at /);
    }
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
    const spaced = await script('scripts/token.ts', ['--workspace', 'acme', '--scopes', 'clients:read', '--expires-in', '-10'], { PORT: '9' });
    expect(spaced.code, spaced.stderr).toBe(1);
    expect(spaced.stderr).toContain('No local stack answers on port 9');
  });
});
