/** Child processes of the benchmark: each is awaited, and killed if it outlives its time or us. */
import { spawn, type ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

export function runChild(command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string }): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** Kills every child still running (on an early exit path). */
export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}
