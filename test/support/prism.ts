/**
 * Stoplight Prism's validating proxy (`prism proxy`, a devDependency) in front of a local stack,
 * and a walkthrough that drives the API's operations through it: what an integrator's test
 * traffic looks like to the tool. Prism logs each request it receives, then every violation of
 * the OpenAPI document it finds in the request and in the response; the walkthrough sends one
 * request at a time, so the n-th "Request received" is its n-th request, and each violation is
 * that request's. A response violation fails the check, and so does a request violation on a
 * request the walkthrough does not send wrong on purpose (the document would refuse what the
 * API takes).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SCOPES } from '../../shared/api/routes.ts';

export const DOCUMENT = resolve(import.meta.dirname, '../../docs/openapi.json');

export interface Prism {
  /** Where the proxy listens: use it as the API's base URL. */
  url: string;
  /** What Prism logged of each request received, in order: its line and its violations. */
  requests(): { request: string; violations: string[] }[];
  stop(): Promise<void>;
}

/** Starts `prism proxy` over `upstream` on `port`; resolves once it listens. */
export async function startPrism(upstream: string, port: number): Promise<Prism> {
  const bin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const child = spawn(process.execPath, [bin, 'proxy', DOCUMENT, upstream, '--port', String(port), '--host', '127.0.0.1', '--errors', 'false', '--cors', 'false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (const started = Date.now(); !log.includes('Prism is listening'); await sleep(50)) {
    if (child.exitCode !== null || Date.now() - started > 60_000) {
      child.kill();
      throw new Error(`prism proxy did not start:\n${log}`);
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => {
      const out: { request: string; violations: string[] }[] = [];
      for (const line of log.split('\n')) {
        if (line.includes('Request received')) out.push({ request: line.replace(/^.*\[HTTP SERVER\]\s*/, '').replace(/\s+\S+\s+info\s+Request received.*$/, ''), violations: [] });
        const violation = /Violation: (.*)$/.exec(line);
        if (violation) out.at(-1)?.violations.push(violation[1]!);
      }
      return out;
    },
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

interface Sent {
  what: string;
  /** Sent wrong on purpose: Prism may flag the request (never the response). */
  wrong: boolean;
}

/** What a walkthrough sends: through the proxy, one request at a time, each noted. */
export class Traffic {
  readonly sent: Sent[] = [];
  readonly proxy: string;
  /** How many requests Prism had received before this traffic's first. */
  readonly before: number;
  constructor(
    prism: Prism,
    readonly stack: string,
  ) {
    this.proxy = prism.url;
    this.before = prism.requests().length;
  }

  /** A token of the local stack's issuer (its token endpoint is no operation: asked of the stack itself). */
  async token(workspace: string, scopes: readonly string[] = SCOPES): Promise<string> {
    const response = await fetch(`${this.stack}/_local/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ workspace, scopes }),
    });
    if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  async send(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; wrong?: boolean; status: number },
  ): Promise<{ status: number; headers: Headers; body: any }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    this.sent.push({ what: `${method} ${path}`, wrong: options.wrong ?? false });
    const response = await fetch(`${this.proxy}/api/v1${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    if (response.status !== options.status) throw new Error(`${method} ${path}: expected ${options.status}, got ${response.status} ${text.slice(0, 300)}`);
    // An invoice's PDF is bytes, not JSON.
    const json = /json/.test(response.headers.get('content-type') ?? '');
    return { status: response.status, headers: response.headers, body: text && json ? JSON.parse(text) : undefined };
  }
}

/**
 * What Prism found wrong in the traffic: every response violation, and every request violation
 * of a request not sent wrong on purpose. With `othersAfter`, requests Prism received after the
 * walkthrough's (another program's, such as the SDK's quickstart) count too, all as sent right.
 */
export async function violationsOf(prism: Prism, traffic: Traffic, othersAfter = false): Promise<string[]> {
  // The log arrives through a pipe: wait for the last request's lines, then for the log to settle.
  const ours = () => prism.requests().slice(traffic.before);
  for (const started = Date.now(); ours().length < traffic.sent.length && Date.now() - started < 10_000; ) await sleep(50);
  await sleep(300);
  const received = ours();
  if (received.length < traffic.sent.length || (!othersAfter && received.length > traffic.sent.length)) {
    return [`prism received ${received.length} requests; the walkthrough sent ${traffic.sent.length}`];
  }
  return received.flatMap(({ request, violations }, i) => {
    const sent = traffic.sent[i];
    return violations.filter((v) => v.startsWith('response') || !sent?.wrong).map((v) => `${sent?.what ?? request}: ${v}`);
  });
}

/**
 * Every operation through the proxy, its success and the errors a client meets, with the values
 * validators got wrong (money with 2 and 4 decimal places, the webhook secret of a replayed
 * create); `full` adds the rest of the errors and the events feed (which waits for the stream
 * poller).
 */
export async function walkthrough(t: Traffic, full: boolean): Promise<void> {
  const token = await t.token(`contract-${randomUUID().slice(0, 8)}`);
  await t.send('GET', '/openapi.json', { status: 200 });
  await t.send('GET', '/openapi.json?foo=1', { status: 400, wrong: true });

  const client = (await t.send('POST', '/clients', { token, status: 201, body: { company_name: 'Contract Co', company_email: 'ap@contract.test', website: 'https://contract.test', language: 'FRENCH' } })).body;
  const current = await t.send('GET', `/clients/${client.id}`, { token, status: 200 });
  await t.send('GET', '/clients?limit=1&status=LEAD&search=contract', { token, status: 200 });
  await t.send('PATCH', `/clients/${client.id}`, { token, status: 200, body: { status: 'ACTIVE', tps_number: '123456789 RT0001' }, headers: { 'If-Match': current.headers.get('etag')! } });
  const project = (
    await t.send('POST', '/projects', { token, status: 201, body: { name: 'Site', client_id: client.id, billing_type: 'Retainer', hourly_rate: 12.34, fixed_price: 19.99, amount: 0.0003 } })
  ).body;
  await t.send('PATCH', `/projects/${project.id}`, { token, status: 200, body: { amount: 99.9999, interval_count: 2, interval_unit: 'Week' } });
  await t.send('GET', `/projects/${project.id}`, { token, status: 200 });
  await t.send('GET', `/projects?client_id=${client.id}`, { token, status: 200 });
  const entry = (await t.send('POST', '/time_entries', { token, status: 201, body: { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 90 } })).body;
  await t.send('GET', `/time_entries/${entry.id}`, { token, status: 200 });
  await t.send('GET', `/time_entries?project_id=${project.id}&started_from=2026-11-01T00:00:00Z`, { token, status: 200 });
  // Time summaries: rows with and without a project and a period, amounts in the client's currency.
  await t.send('GET', `/time_summaries?from=2026-11-01&to=2026-12-01&timezone=Asia/Kathmandu&group_by=project&period=week&client_id=${client.id}`, { token, status: 200 });
  await t.send('GET', '/time_summaries?from=2026-11-01&to=2026-12-01&limit=1', { token, status: 200 });
  await t.send('PATCH', `/time_entries/${entry.id}`, { token, status: 200, body: { project_id: null, description: 'Moved to the client' } });
  // Bulk import: entries on the client (the project is deleted last), and one refused by index.
  const batch = [{ client_id: client.id, started_at: '2026-11-22T09:00:00Z', duration_minutes: 60 }, { client_id: client.id, started_at: '2026-11-23T09:00:00Z', duration_minutes: 15, billable: false }];
  await t.send('POST', '/time_entries/batch', { token, status: 201, body: { entries: batch } });
  await t.send('POST', '/time_entries/batch', { token, status: 400, wrong: true, body: { entries: [...batch, { client_id: client.id, duration_minutes: 0 }] } });

  // A webhook endpoint's create, replayed after the endpoint is deleted: the 201 without its secret.
  const key = randomUUID();
  const endpointBody = { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'], status: 'disabled' };
  const endpoint = (await t.send('POST', '/webhook_endpoints', { token, status: 201, body: endpointBody, headers: { 'Idempotency-Key': key } })).body;
  await t.send('GET', `/webhook_endpoints/${endpoint.id}`, { token, status: 200 });
  await t.send('GET', '/webhook_endpoints', { token, status: 200 });
  await t.send('PATCH', `/webhook_endpoints/${endpoint.id}`, { token, status: 200, body: { description: 'CRM' } });
  await t.send('DELETE', `/webhook_endpoints/${endpoint.id}`, { token, status: 200 });
  const replay = await t.send('POST', '/webhook_endpoints', { token, status: 201, body: endpointBody, headers: { 'Idempotency-Key': key } });
  if ('secret' in replay.body) throw new Error('the replay after the delete answered the secret');

  // The business profile, an invoice of items with its default taxes, and its payments.
  await t.send('GET', '/business_profile', { token, status: 200 });
  await t.send('PATCH', '/business_profile', { token, status: 200, body: { company_name: 'Studio Contract', default_taxes: [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }] } });
  await t.send('PATCH', '/business_profile', { token, status: 400, wrong: true, body: { bilingual_invoices: null } });
  const invoice = (await t.send('POST', '/invoices', { token, status: 201, body: { client_id: client.id, items: [{ description: 'Setup', quantity: 1, unit_price: 100 }] } })).body;
  await t.send('POST', `/invoices/${invoice.id}/finalize`, { token, status: 200, body: {} });
  const pdf = await t.send('GET', `/invoices/${invoice.id}/document`, { token, status: 200 });
  await t.send('GET', `/invoices/${invoice.id}/document`, { token, status: 304, headers: { 'If-None-Match': pdf.headers.get('etag')! } });
  await t.send('GET', `/invoices/${invoice.id}/document`, { token, status: 406, headers: { Accept: 'application/json' } });
  await t.send('GET', `/invoices/${invoice.id}`, { token, status: 200, headers: { Accept: 'application/json;q=0.5, application/pdf' } });
  const payment = (await t.send('POST', `/invoices/${invoice.id}/payments`, { token, status: 201, body: { amount: '50', method: 'cheque', reference: 'Cheque 12' } })).body;
  await t.send('POST', `/invoices/${invoice.id}/payments`, { token, status: 400, wrong: true, body: { amount: 50 } });
  await t.send('GET', `/invoices/${invoice.id}/payments`, { token, status: 200 });
  await t.send('GET', `/invoices/${invoice.id}/payments/${payment.id}`, { token, status: 200 });
  await t.send('DELETE', `/invoices/${invoice.id}/payments/${payment.id}`, { token, status: 200 });
  await t.send('POST', `/invoices/${invoice.id}/pay`, { token, status: 200, body: { method: 'bank_transfer' } });
  await t.send('GET', `/invoices/${invoice.id}/payments/pay_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { token, status: 404 });
  // A billing run of the client (its month has nothing left to invoice), and its outcomes.
  const run = (await t.send('POST', '/billing_runs', { token, status: 202, body: { from: '2026-11-01', to: '2026-12-01', client_ids: [client.id] } })).body;
  await t.send('POST', '/billing_runs', { token, status: 400, wrong: true, body: { from: '2026-11-01', to: '2026-12-01', billing_types: [] } });
  await t.send('GET', `/billing_runs/${run.id}`, { token, status: 200 });
  await t.send('GET', '/billing_runs', { token, status: 200 });
  await t.send('GET', `/billing_runs/${run.id}/results`, { token, status: 200 });
  await t.send('GET', '/clients/cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', { token, status: 404 });
  await t.send('POST', '/clients', { token, status: 400, wrong: true, body: { company_email: 'nope' } });
  if (!full) return;

  // The errors a client meets on each kind of operation.
  await t.send('GET', '/clients', { status: 401, wrong: true });
  await t.send('GET', '/clients', { token: 'not-a-token', status: 401 });
  const readOnly = await t.token(`contract-ro-${randomUUID().slice(0, 8)}`, ['clients:read']);
  await t.send('POST', '/clients', { token: readOnly, status: 403, body: { company_name: 'X', company_email: 'x@x.test' } });
  await t.send('GET', '/clients?limit=0', { token, status: 400, wrong: true });
  await t.send('POST', '/clients', { token, status: 415, wrong: true, rawBody: 'x', headers: { 'Content-Type': 'text/plain' } });
  await t.send('POST', '/clients', { token, status: 413, wrong: true, body: { company_name: 'x'.repeat(70_000), company_email: 'a@b.test' } });
  await t.send('PATCH', `/clients/${client.id}`, { token, status: 412, body: { status: 'LOST' }, headers: { 'If-Match': '"999"' } });
  await t.send('DELETE', `/clients/${client.id}`, { token, status: 409 });
  const reused = randomUUID();
  await t.send('POST', '/clients', { token, status: 201, body: { company_name: 'K', company_email: 'k@k.test' }, headers: { 'Idempotency-Key': reused } });
  await t.send('POST', '/clients', { token, status: 201, body: { company_name: 'K', company_email: 'k@k.test' }, headers: { 'Idempotency-Key': reused } });
  await t.send('POST', '/clients', { token, status: 422, body: { company_name: 'L', company_email: 'k@k.test' }, headers: { 'Idempotency-Key': reused } });
  await t.send('POST', '/time_entries', { token, status: 201, body: { client_id: client.id, started_at: '2026-11-21T09:00:00Z', duration_minutes: 5 } });

  // The events feed, once the stream poller has made the events of the changes above.
  let events: { id: string }[] = [];
  for (const started = Date.now(); events.length < 5; await sleep(250)) {
    if (Date.now() - started > 60_000) throw new Error('the events of the walkthrough did not appear');
    events = (await t.send('GET', '/events?limit=20', { token, status: 200 })).body.data;
  }
  await t.send('GET', `/events/${events[0]!.id}`, { token, status: 200 });
  await t.send('GET', `/events?after=${events.at(-1)!.id}&type=client.created`, { token, status: 200 });
  await t.send('GET', '/events/evt_0000000001AAAAAAAAAAAAAAAA', { token, status: 404 });
  await t.send('GET', '/events?after=evt_0000000001AAAAAAAAAAAAAAAA', { token, status: 400 });

  // Deletes, last: the guards let them through once nothing refers to what they delete.
  await t.send('DELETE', `/time_entries/${entry.id}`, { token, status: 200 });
  await t.send('DELETE', `/projects/${project.id}`, { token, status: 200 });
}
