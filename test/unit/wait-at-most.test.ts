/**
 * Waiting at most so long (infra/local/wait.ts), as DynamoDB Local's stop waits for Java, whose
 * child handles are unreferenced: the wait itself must keep a script alive, and must not keep it
 * once the child is gone. Tried in a child Node process, as a script that awaits a stop at top
 * level (npm run bench, check:contract) runs; a sleeping process stands in for Java.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const SCRIPT = `
import { spawn } from 'node:child_process';
const { waitAtMost } = await import('./infra/local/wait.ts');
const child = spawn('sleep', ['0.2'], { stdio: 'ignore' });
child.unref();
const exited = new Promise((resolve) => child.once('exit', resolve));
await waitAtMost(exited, 600_000);
console.log('after the wait');
`;

describe('waitAtMost', () => {
  it('keeps a script alive until the child has exited, and not after: it ends with code 0', async () => {
    // The ceiling fails a wait that held on to its timer (600 s); it is no speed target.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: ROOT, timeout: 60_000 });
    expect(stdout).toBe('after the wait\n');
  });
});
