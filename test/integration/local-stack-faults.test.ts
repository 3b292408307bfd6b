/**
 * The local stack under faults, each on its own `npm start` (never the shared test stack):
 * DynamoDB Local killed under load, and DynamoDB Local that stops answering; and DynamoDB Local's
 * guard when the process that started it is SIGKILLed. However it ends, Java's temporary directory
 * goes with it. SIGINT / SIGTERM sent to the npm process alone (as a script or a supervisor does,
 * not a terminal's Ctrl-C) are events-restart.test.ts's stops, on the stacks it starts anyway.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { allGone, cleanUpStarted, dirs, javaOf, javaTempDirOf, localToken, npmStart, sleep, started, tree, type Running } from '../support/npm-start.ts';

afterAll(cleanUpStarted);

const THROTTLING_OFF = { THROTTLE_RATE: '100000', THROTTLE_BURST: '100000', CLIENT_RATE_LIMIT: '100000', CLIENT_BURST_LIMIT: '100000' };

const exitOf = (s: Running) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) resolve({ code: s.child.exitCode, signal: s.child.signalCode, at: Date.now() });
    s.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });

// Each test runs a stack of its own (its own ports, processes and DATA_DIR): they run side by side.
describe('the local stack when DynamoDB Local dies', { timeout: 180_000, concurrent: true }, () => {
  it('killed under load: requests in between get 503 (never 500), stderr names it, exit non-zero within 5 s, nothing left', async ({ expect }) => {
    const s = await npmStart(THROTTLING_OFF);
    const exited = exitOf(s);
    const token = await localToken(s.port, 'doomed', 'clients:read,clients:write');
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
          // After the kill, a pause between tries: twelve workers answered 503 back to back spent
          // seconds of CPU on the same answer until the stack exited.
          if (Date.now() >= killedAt) await sleep(20);
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

describe("DynamoDB Local's guard", { timeout: 180_000 }, () => {
  it('SIGKILL of the process that started it (nothing of ours runs to clean up): the guard stops Java and removes its temporary directory within 5 s', async ({ expect }) => {
    // Only DynamoDB Local, as npm start's node starts it: its guard is what this tests, not the stack.
    const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "const { startDynamoDbLocal } = await import('./infra/local/dynamodb.ts'); await startDynamoDbLocal(); console.log('ready'); setInterval(() => {}, 1000);"], {
      cwd: join(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true, // its own process group, which cleanUpStarted kills if the test fails early
    });
    started.push(starter);
    await new Promise<void>((resolve, reject) => {
      starter.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      starter.once('exit', (code) => reject(new Error(`the starter exited (${code}) before DynamoDB Local was ready`)));
    });
    const procs = tree(starter.pid!);
    const javaTempDir = javaTempDirOf(javaOf(procs));
    starter.kill('SIGKILL');
    expect(await allGone(procs, 5000)).toEqual([]);
    expect(existsSync(javaTempDir)).toBe(false);
  });
});
