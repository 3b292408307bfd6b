/**
 * `npm start` and `npm run token` as a developer runs them, in separate processes on real ports,
 * for the tests of the local stack itself (each starts its own stacks, not the shared one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { freePort } from '../../infra/local/dynamodb.ts';
import { tokenFrom } from './api.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

export const started: ChildProcess[] = [];
/** Folders to remove at the end (DATA_DIRs). */
export const dirs: string[] = [];

/** Kills a started stack's whole process group (npm, the stack, its Java) unless it is gone. */
function cleanUp(child: ChildProcess) {
  try {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

export function cleanUpStarted() {
  for (const child of started) cleanUp(child);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

export interface Running {
  child: ChildProcess;
  port: number;
  dynamoPort: number;
  output: () => string;
}

/**
 * A port that freePort() found free can be taken before the stack binds it: by another stack
 * starting beside it (this file's tests run side by side), whose API or DynamoDB Local asked the
 * system for a free port in between. Such a start is tried again on new ports; any other failure
 * is the test's.
 */
const PORT_TAKEN = /EADDRINUSE|Address already in use/;
const START_ATTEMPTS = 3;

export async function npmStart(env: Record<string, string> = {}): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await npmStartOnce(env);
    } catch (error) {
      if (attempt === START_ATTEMPTS || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function npmStartOnce(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  // As `npm start` does, through npm itself: a kill of npm must also end the stack.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, as in a terminal, so ctrlC() can signal the group
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 150_000; // a ceiling for a failing start only: a loaded machine starts Java slowly
  while (!/API on /.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const failed = `npm start failed: ${output}`;
      cleanUp(child);
      throw PORT_TAKEN.test(output) ? new PortTaken(failed) : new Error(failed);
    }
    await sleep(100);
  }
  const dynamoPort = Number(/DynamoDB Local on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
  return { child, port, dynamoPort, output: () => output };
}

/**
 * `npm start` that is expected to refuse its environment: its exit code and output once it has
 * exited. A stack that starts anyway is stopped and reported as code null.
 */
export async function npmStartUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env: { ...process.env, PORT: String(await freePort()), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (/API on /.test(output)) process.kill(-child.pid!, 'SIGKILL');
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close' comes after the output streams have ended: all of it is read.
  const code = await new Promise<number | null>((resolvePromise) => child.on('close', (exitCode) => resolvePromise(exitCode)));
  return { code, output };
}

/**
 * A token from a stack's token endpoint, which `npm run token` calls: for tests that need a token
 * rather than the command, without the start of npm and tsx (about 1.3 core-seconds each, measured).
 */
export const localToken = (port: number, workspace: string, scopes: string): Promise<string> =>
  tokenFrom(`http://127.0.0.1:${port}`, workspace, scopes.split(','));

export function npmRunToken(port: number, workspace: string, scopes: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn('npm', ['run', '--silent', 'token', '--', '--workspace', workspace, '--scopes', scopes], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** What Ctrl-C in a terminal does: SIGINT to the whole foreground process group. */
export const ctrlC = (child: ChildProcess) => process.kill(-child.pid!, 'SIGINT');

export const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

export function accepts(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolvePromise(true)));
    socket.once('error', () => resolvePromise(false));
  });
}

export async function waitUntilClosed(port: number, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await accepts(port))) return true;
    await sleep(200);
  }
  return false;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A process as /proc shows it. */
export interface Proc {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push({ pid: Number(entry), ppid: Number(ppid), state: state!, comm });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** The process and all its descendants (npm, node, the guard shell, java, esbuild, ...). */
export function tree(root: number): Proc[] {
  const all = processes();
  const pids = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!pids.has(p.pid) && pids.has(p.ppid)) (pids.add(p.pid), (grew = true));
  }
  return all.filter((p) => pids.has(p.pid));
}

/** Those of `procs` still running (a zombie is dead, waiting only to be reaped by init). */
function stillRunning(procs: Proc[]): Proc[] {
  const now = new Map(processes().map((p) => [p.pid, p]));
  return procs.filter((p) => {
    const current = now.get(p.pid);
    return current !== undefined && current.comm === p.comm && current.state !== 'Z';
  });
}

/** Those of `procs` still running after `ms` (none: returns as soon as all are gone). */
export async function allGone(procs: Proc[], ms: number): Promise<Proc[]> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (stillRunning(procs).length === 0) return [];
    await sleep(50);
  }
  return stillRunning(procs);
}

export function javaOf(procs: Proc[]): Proc {
  const java = procs.find((p) => p.comm === 'java');
  if (!java) throw new Error(`no java in ${JSON.stringify(procs)}`);
  return java;
}

/** Java's temporary directory (java.io.tmpdir, infra/local/dynamodb.ts), read from its command line. */
export function javaTempDirOf(java: Proc): string {
  const option = readFileSync(`/proc/${java.pid}/cmdline`, 'utf8').split('\0').find((arg) => arg.startsWith('-Djava.io.tmpdir='));
  if (!option) throw new Error(`java ${java.pid} has no -Djava.io.tmpdir`);
  const dir = option.slice('-Djava.io.tmpdir='.length);
  if (!existsSync(dir)) throw new Error(`${dir} is missing while Java runs`);
  return dir;
}
