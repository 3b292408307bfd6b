/**
 * The local billing queue (infra/local/billing-queue.ts), the SQS stand-in of the local stack:
 * a failed message comes back after `retryMs` until its last receive, then goes to the
 * dead-letter consumer; no more than `concurrency` run at once; a stop keeps what is left in the
 * state file, and the next start over it takes the work up again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalBillingQueue } from '../../infra/local/billing-queue.ts';
import type { BillingMessage } from '../../shared/domain/billing-runs.ts';

const dir = mkdtempSync(join(tmpdir(), 'billing-queue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const client = (id: string): BillingMessage => ({ kind: 'client', workspace_id: 'ws', run_id: 'brun_1', client_id: id });

describe('the local billing queue', () => {
  it('hands a failed message back until its last receive, then to the dead-letter consumer; the others once each', async () => {
    const attempts: string[] = [];
    const given: string[] = [];
    let running = 0;
    let most = 0;
    const queue = startLocalBillingQueue({
      work: async (message, attemptId) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        if (message.kind !== 'client') return;
        attempts.push(`${message.client_id}@${attemptId.split(':')[1]}`);
        if (message.client_id === 'bad') throw new Error('fails every time');
      },
      giveUp: async (message) => void given.push(message.kind === 'client' ? message.client_id : message.kind),
      maxReceives: 3,
      retryMs: 5,
      concurrency: 2,
    });
    await queue.send(['a', 'bad', 'b', 'c'].map(client));
    await queue.idle();
    expect(attempts.filter((a) => a.startsWith('bad'))).toEqual(['bad@1', 'bad@2', 'bad@3']);
    expect(attempts.filter((a) => !a.startsWith('bad')).sort()).toEqual(['a@1', 'b@1', 'c@1']);
    expect(given).toEqual(['bad']);
    expect(most).toBe(2);
    expect(queue.pending()).toBe(0);
    await queue.stop();
  });

  it('keeps what a stop leaves (waiting, retried or in flight) and takes it up at the next start', async () => {
    const stateFile = join(dir, 'billing-queue.json');
    let release: () => void = () => undefined;
    const first = startLocalBillingQueue({
      work: (message) => (message.kind === 'client' && message.client_id === 'slow' ? new Promise<void>((resolve) => (release = resolve)) : Promise.reject(new Error('later'))),
      giveUp: async () => undefined,
      maxReceives: 5,
      retryMs: 60_000,
      concurrency: 1,
      stateFile,
    });
    await first.send([client('slow'), client('waiting')]);
    await first.stop({ waitMs: 10 });
    await first.send([client('sent-while-stopping')]);
    release();
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { message: { client_id: string } }[];
    expect(saved.map((entry) => entry.message.client_id).sort()).toEqual(['sent-while-stopping', 'slow', 'waiting']);

    const done: string[] = [];
    const second = startLocalBillingQueue({ work: async (message) => void done.push(message.kind === 'client' ? message.client_id : ''), giveUp: async () => undefined, maxReceives: 5, retryMs: 5, stateFile });
    await new Promise((resolve) => setTimeout(resolve, 0));
    await second.idle();
    expect(done.sort()).toEqual(['sent-while-stopping', 'slow', 'waiting']);
    await second.stop();
  });

  it('refuses a state file that is not its own, saying how to start without it', () => {
    const stateFile = join(dir, 'foreign.json');
    writeFileSync(stateFile, JSON.stringify([{ message: { kind: 'other' }, receives: 0 }]));
    expect(() => startLocalBillingQueue({ work: async () => undefined, giveUp: async () => undefined, maxReceives: 5, retryMs: 5, stateFile })).toThrow(/move it away/);
  });
});
