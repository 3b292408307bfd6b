/**
 * The SDK's billing runs against a fake fetch (contract, "Billing runs"): `start` posts the body
 * with an Idempotency-Key and answers the 202's run; `waitForCompletion` retrieves the run until it
 * is `completed`, waiting longer each time (never a hot loop), and rejects on its timeout
 * (`BillingRunTimeoutError`, the last run seen) or its signal (the signal's reason, the retrieve in
 * flight aborted too). Time is vitest's fake clock where the default timers are under test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BillingRunTimeoutError, Timebill, TimebillError, responseOf, type BillingRun } from '../../sdk/src/index.ts';

const ID = 'brun_01JD0000000000000000000000';
const runIn = (status: BillingRun['status'], done = 0): BillingRun => ({
  object: 'billing_run',
  id: ID,
  status,
  from: '2026-11-01',
  to: '2026-12-01',
  timezone: 'Europe/Paris',
  billing_types: null,
  client_ids: null,
  clients_total: 3,
  clients_done: done,
  invoices_created: done,
  created_at: '2026-12-01T05:00:00.000Z',
  completed_at: status === 'completed' ? '2026-12-01T05:00:09.000Z' : null,
  workspace_id: 'ws_1',
});
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/**
 * A Timebill whose fetch answers each request with the next of `answers` (the last one again once
 * they run out), or hangs until its signal aborts when the answer is 'hang'. With `sleeps`, waits
 * are recorded and take no time; without, the SDK's own timers run (on the fake clock).
 */
function fake(answers: (Response | 'hang')[], { sleeps }: { sleeps?: number[] } = {}) {
  const calls: { url: string; method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal | null }[] = [];
  const tb = new Timebill('tok', {
    baseUrl: 'https://api.test',
    maxRetries: 0,
    ...(sleeps ? { sleep: async (ms: number) => void sleeps.push(ms) } : {}),
    fetch: async (url, init) => {
      calls.push({ url: String(url), method: init?.method ?? 'GET', headers: init?.headers as Record<string, string>, body: init?.body as string | undefined, signal: init?.signal });
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (answer !== 'hang') return answer.clone();
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    },
  });
  return { tb, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('billingRuns.start, retrieve, list and results', () => {
  it('start posts the body with an Idempotency-Key and answers the 202\'s run; retrieve and results name the run', async () => {
    const { tb, calls } = fake([json(202, runIn('queued'), { Location: `/api/v1/billing_runs/${ID}`, ETag: '"1"' }), json(200, runIn('running')), json(200, { object: 'list', data: [], has_more: false, next_cursor: null })]);
    const body = { from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris', billing_types: ['Monthly' as const] };
    const run = await tb.billingRuns.start(body, { idempotencyKey: 'run-2026-11' });
    expect(run).toEqual(runIn('queued'));
    expect(responseOf(run)).toMatchObject({ status: 202, etag: '"1"' });
    expect((await tb.billingRuns.retrieve(ID)).status).toBe('running');
    expect(await tb.billingRuns.results.list(ID, { limit: 50 }).toArray()).toEqual([]);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST https://api.test/api/v1/billing_runs',
      `GET https://api.test/api/v1/billing_runs/${ID}`,
      `GET https://api.test/api/v1/billing_runs/${ID}/results?limit=50`,
    ]);
    expect(calls[0]).toMatchObject({ body: JSON.stringify(body), headers: expect.objectContaining({ 'Idempotency-Key': 'run-2026-11', 'Content-Type': 'application/json' }) });
  });
});

describe('billingRuns.waitForCompletion', () => {
  it('keeps retrieving while the run is queued or running, waiting half as long again each time, and resolves with the completed run', async () => {
    const sleeps: number[] = [];
    const { tb, calls } = fake([json(200, runIn('queued')), json(200, runIn('running', 1)), json(200, runIn('running', 2)), json(200, runIn('completed', 3), { ETag: '"4"' })], { sleeps });
    const run = await tb.billingRuns.waitForCompletion(ID);
    expect(run).toEqual(runIn('completed', 3));
    expect(responseOf(run)?.etag).toBe('"4"');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(Array(4).fill(`GET https://api.test/api/v1/billing_runs/${ID}`));
    expect(sleeps).toEqual([1000, 1500, 2250]);
  });

  it('resolves at once, without waiting, when the run is already completed', async () => {
    const sleeps: number[] = [];
    const { tb, calls } = fake([json(200, runIn('completed', 3))], { sleeps });
    await expect(tb.billingRuns.waitForCompletion(ID)).resolves.toMatchObject({ status: 'completed' });
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('never spins hot: an interval of 0 waits 100 ms, and the waits grow to 10 s at most (or the interval, when longer)', async () => {
    const sleeps: number[] = [];
    const { tb } = fake([...Array.from({ length: 14 }, () => json(200, runIn('running'))), json(200, runIn('completed', 3))], { sleeps });
    await tb.billingRuns.waitForCompletion(ID, { intervalMs: 0 });
    expect(sleeps[0]).toBe(100);
    expect(sleeps.every((ms, i) => i === 0 || ms >= sleeps[i - 1]!)).toBe(true);
    expect(sleeps.at(-1)).toBe(10_000);

    const longer: number[] = [];
    await fake([json(200, runIn('running')), json(200, runIn('running')), json(200, runIn('completed', 3))], { sleeps: longer }).tb.billingRuns.waitForCompletion(ID, { intervalMs: 30_000 });
    expect(longer).toEqual([30_000, 30_000]);
  });

  it('times out with a BillingRunTimeoutError naming the run and carrying the last one seen, having polled a few times only', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { tb, calls } = fake([json(200, runIn('queued')), json(200, runIn('running', 2))]);
    const waiting = tb.billingRuns.waitForCompletion(ID, { intervalMs: 1000, timeoutMs: 5000 });
    const settled = waiting.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(4999);
    expect(calls).toHaveLength(4); // at 0, 1,000, 2,500 and 4,750 ms
    await vi.advanceTimersByTimeAsync(1);
    const error = await settled;
    expect(error).toBeInstanceOf(BillingRunTimeoutError);
    expect(error).toMatchObject({ name: 'BillingRunTimeoutError', id: ID, timeoutMs: 5000, run: runIn('running', 2) });
    expect((error as Error).message).toBe(`Billing run ${ID} did not complete within 5000 ms (last seen running, 2 of 3 clients done)`);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times out on a retrieve that does not answer in time (aborted), its run null; and on the clock when the injected sleep takes no time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { tb, calls } = fake(['hang']);
    const settled = tb.billingRuns.waitForCompletion(ID, { timeoutMs: 2000 }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(2000);
    expect(await settled).toMatchObject({ name: 'BillingRunTimeoutError', run: null });
    expect(calls[0]!.signal?.aborted).toBe(true);
    vi.useRealTimers();

    const sleeps: number[] = [];
    const instant = fake([json(200, runIn('running'))], { sleeps });
    await expect(instant.tb.billingRuns.waitForCompletion(ID, { timeoutMs: 0 })).rejects.toBeInstanceOf(BillingRunTimeoutError);
    expect(instant.calls).toHaveLength(1);
  });

  it('aborts: during a wait, and during a retrieve (its fetch aborted, not retried), with the signal\'s reason, then retrieves no more', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { tb, calls } = fake([json(200, runIn('running'))]);
    const controller = new AbortController();
    const settled = tb.billingRuns.waitForCompletion(ID, { signal: controller.signal }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1500); // retrieves at 0 and 1,000 ms, then waits 1,500
    expect(calls).toHaveLength(2);
    const reason = new Error('shutting down');
    controller.abort(reason);
    expect(await settled).toBe(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);

    const hanging = fake(['hang']);
    const stop = new AbortController();
    const inFlight = hanging.tb.billingRuns.waitForCompletion(ID, { signal: stop.signal }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    stop.abort();
    expect(await inFlight).toMatchObject({ name: 'AbortError' });
    expect(hanging.calls).toHaveLength(1);
    expect(hanging.calls[0]!.signal?.aborted).toBe(true);
  });

  it('rejects at once, retrieving nothing, when the signal is already aborted; and on an invalid interval or timeout', async () => {
    const { tb, calls } = fake([json(200, runIn('running'))]);
    await expect(tb.billingRuns.waitForCompletion(ID, { signal: AbortSignal.abort(new Error('too late')) })).rejects.toThrow('too late');
    await expect(tb.billingRuns.waitForCompletion(ID, { intervalMs: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(tb.billingRuns.waitForCompletion(ID, { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(RangeError);
    expect(calls).toEqual([]);
  });

  it('rejects with the TimebillError of a retrieve that fails (a run that does not exist), and retries what the client retries', async () => {
    const missing = fake([json(404, { error: { type: 'not_found', message: 'No such billing run', request_id: 'req_1' } })]);
    const error = await missing.tb.billingRuns.waitForCompletion('brun_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimebillError);
    expect(error).toMatchObject({ status: 404, type: 'not_found' });

    const sleeps: number[] = [];
    const calls: string[] = [];
    const answers = [json(503, { error: { type: 'service_unavailable', message: 'busy' } }, { 'Retry-After': '2' }), json(200, runIn('running')), json(200, runIn('completed', 3))];
    const tb = new Timebill('tok', { baseUrl: 'https://api.test', sleep: async (ms) => void sleeps.push(ms), fetch: async (url) => (calls.push(String(url)), answers.shift()!) });
    await expect(tb.billingRuns.waitForCompletion(ID, { intervalMs: 500 })).resolves.toMatchObject({ status: 'completed' });
    expect(calls).toHaveLength(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000); // the 503's Retry-After, then the waiter's own wait
    expect(sleeps[1]).toBe(500);
  });
});
