/**
 * The local stack under faults, each on its own `npm start` (never the shared test stack):
 * DynamoDB Local killed under load, DynamoDB Local that stops answering, SIGINT / SIGTERM
 * sent to the npm process alone (as a script or a supervisor does, not a terminal's Ctrl-C),
 * and SIGKILL of npm and node at once. However it ends, Java's temporary directory goes with it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { cleanUpStarted, dirs, lastLine, npmRunToken, npmStart, sleep, type Running } from '../support/npm-start.ts';

afterAll(cleanUpStarted);

const THROTTLING_OFF = { THROTTLE_RATE: '100000', THROTTLE_BURST: '100000', CLIENT_RATE_LIMIT: '100000', CLIENT_BURST_LIMIT: '100000' };

interface Proc {
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
function tree(root: number): Proc[] {
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

async function allGone(procs: Proc[], ms: number): Promise<Proc[]> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (stillRunning(procs).length === 0) return [];
    await sleep(50);
  }
  return stillRunning(procs);
}

const exitOf = (s: Running) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) resolve({ code: s.child.exitCode, signal: s.child.signalCode, at: Date.now() });
    s.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });

const javaOf = (procs: Proc[]) => {
  const java = procs.find((p) => p.comm === 'java');
  if (!java) throw new Error(`no java in ${JSON.stringify(procs)}`);
  return java;
};

/** Java's temporary directory (java.io.tmpdir, infra/local/dynamodb.ts), read from its command line. */
const javaTempDirOf = (java: Proc) => {
  const option = readFileSync(`/proc/${java.pid}/cmdline`, 'utf8').split('\0').find((arg) => arg.startsWith('-Djava.io.tmpdir='));
  if (!option) throw new Error(`java ${java.pid} has no -Djava.io.tmpdir`);
  const dir = option.slice('-Djava.io.tmpdir='.length);
  if (!existsSync(dir)) throw new Error(`${dir} is missing while Java runs`);
  return dir;
};

// Each test runs a stack of its own (its own ports, processes and DATA_DIR): they run side by side.
describe('the local stack when DynamoDB Local dies', { timeout: 180_000, concurrent: true }, () => {
  it('killed under load: requests in between get 503 (never 500), stderr names it, exit non-zero within 5 s, nothing left', async ({ expect }) => {
    const s = await npmStart(THROTTLING_OFF);
    const exited = exitOf(s);
    const token = lastLine((await npmRunToken(s.port, 'doomed', 'clients:read,clients:write')).stdout);
    const procs = tree(s.child.pid!);
    const java = javaOf(procs);
    const javaTempDir = javaTempDirOf(java);

    const counts = new Map<string, number>();
    const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
    const bad: string[] = [];
    let killedAt = Infinity;
    let running = true;
    const worker = async (i: number) => {
      for (let n = 0; running; n++) {
        const write = (i + n) % 3 === 0;
        try {
          const response = await fetch(`http://127.0.0.1:${s.port}/api/v1/clients`, {
            method: write ? 'POST' : 'GET',
            headers: { Authorization: `Bearer ${token}`, ...(write ? { 'Content-Type': 'application/json' } : {}) },
            ...(write ? { body: JSON.stringify({ company_name: `Load ${i}-${n}`, company_email: 'load@x.test' }) } : {}),
          });
          const body = (await response.json()) as { error?: { type: string } };
          count(String(response.status));
          if (response.status === 503 && (response.headers.get('retry-after') === null || body.error?.type !== 'service_unavailable')) {
            bad.push(`503 without Retry-After or body: ${JSON.stringify(body)}`);
          }
          if (response.status >= 500 && response.status !== 503) bad.push(`${response.status} ${JSON.stringify(body)}`);
          if (Date.now() < killedAt && response.status >= 400) bad.push(`before the kill: ${response.status} ${JSON.stringify(body)}`);
        } catch {
          count('no connection'); // the stack has stopped listening
          await sleep(20);
        }
      }
    };
    const workers = Array.from({ length: 12 }, (_, i) => worker(i));
    const ok = () => (counts.get('200') ?? 0) + (counts.get('201') ?? 0);
    // Under load: every worker has been answered a few times (the handlers are loaded and warm).
    for (const until = Date.now() + 90_000; ok() < 40 && Date.now() < until; ) await sleep(100);
    const okBefore = ok();
    killedAt = Date.now();
    process.kill(java.pid, 'SIGKILL');
    const exit = await Promise.race([exited, sleep(10_000).then(() => undefined)]);
    running = false;
    await Promise.all(workers);

    expect(okBefore).toBeGreaterThan(10);
    expect(exit, 'the stack did not exit').toBeDefined();
    expect(exit!.at - killedAt).toBeLessThan(5000);
    expect(exit!.code).not.toBe(0);
    expect(exit!.code).not.toBeNull();
    expect(bad).toEqual([]);
    expect(counts.get('503') ?? 0, JSON.stringify([...counts])).toBeGreaterThan(0);
    expect(counts.get('500')).toBeUndefined();
    const output = s.output();
    expect(output).toMatch(/DynamoDB Local \(http:\/\/127\.0\.0\.1:\d+\) exited \(exit status 137: killed by signal 9\)\. The local stack stops now\./);
    expect(output).toMatch(/Its last stderr lines:|It wrote nothing on stderr\./);
    expect(output).toMatch(/in memory and is lost/);
    // One line per failed request at most (no stack-trace floods).
    expect(output.split('\n').filter((line) => /^\s+at /.test(line))).toEqual([]);
    expect(await allGone(procs, 2000)).toEqual([]);
    expect(existsSync(javaTempDir)).toBe(false);
  });

  it('stopped (it no longer answers): the stack says so, names DATA_DIR, exits non-zero, and kills it', async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'timebill-data-'));
    dirs.push(dataDir);
    const s = await npmStart({ DATA_DIR: dataDir });
    const exited = exitOf(s);
    const procs = tree(s.child.pid!);
    const javaTempDir = javaTempDirOf(javaOf(procs));
    const stoppedAt = Date.now();
    process.kill(javaOf(procs).pid, 'SIGSTOP');
    const exit = await Promise.race([exited, sleep(20_000).then(() => undefined)]);

    expect(exit, 'the stack did not exit').toBeDefined();
    // Declared dead after 4 s of silence (checked each second), then stopped within 5 s.
    expect(exit!.at - stoppedAt).toBeLessThan(10_000);
    expect(exit!.code).not.toBe(0);
    expect(s.output()).toMatch(/DynamoDB Local \(http:\/\/127\.0\.0\.1:\d+\) stopped answering/);
    expect(s.output()).toContain(`Its data is on disk in DATA_DIR=${dataDir}: run npm start again`);
    expect(await allGone(procs, 2000)).toEqual([]);
    expect(existsSync(javaTempDir)).toBe(false);
  });
});

describe('signals to the npm start process', { timeout: 180_000, concurrent: true }, () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to npm alone stops the whole stack within 5 s`, async ({ expect }) => {
      const s = await npmStart();
      const procs = tree(s.child.pid!);
      expect(procs.map((p) => p.comm)).toEqual(expect.arrayContaining(['npm start', 'node', 'java']));
      const javaTempDir = javaTempDirOf(javaOf(procs));
      const sentAt = Date.now();
      process.kill(s.child.pid!, signal); // npm only, not its process group
      const left = await allGone(procs, 5000);
      expect(left).toEqual([]);
      expect(Date.now() - sentAt).toBeLessThan(5000);
      expect(existsSync(javaTempDir)).toBe(false);
      expect(s.output()).not.toMatch(/DynamoDB Local .* (exited|stopped answering)/); // a stop, not a death
    });
  }

  it('SIGKILL of npm and node at once: the guard stops Java and removes its temporary directory within 5 s', async ({ expect }) => {
    const s = await npmStart();
    const procs = tree(s.child.pid!);
    const javaTempDir = javaTempDirOf(javaOf(procs));
    process.kill(-s.child.pid!, 'SIGKILL'); // npm's process group: npm, sh and node; the guard has its own
    expect(await allGone(procs, 5000)).toEqual([]);
    expect(existsSync(javaTempDir)).toBe(false);
  });
});
