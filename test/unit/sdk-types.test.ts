/**
 * The SDK's types: sdk/src/openapi-types.ts is generated from docs/openapi.json before each
 * compile (sdk/scripts/types.ts), and the SDK's bodies, parameters and results follow it. The
 * type checks below are compiled by the project's `tsc` (`npm test` runs it first): each
 * `@ts-expect-error` fails the compile if the line it marks ever compiles. Every operation of the
 * document has its SDK method, and every method its operation; the package's version is the
 * document's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_PATH } from '../../sdk/scripts/types.ts';
import { Timebill } from '../../sdk/src/index.ts';
import { API_PREFIX, ROUTES } from '../../shared/api/routes.ts';

const root = resolve(import.meta.dirname, '../..');
const readJson = (path: string) => JSON.parse(readFileSync(resolve(root, path), 'utf8'));
const document = readJson('docs/openapi.json') as { info: { version: string }; paths: Record<string, Record<string, { operationId?: string }>> };
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => (operation.operationId ? [{ id: operation.operationId, method: method.toUpperCase(), path }] : [])),
);

/** The SDK calls that follow no collection's convention, by operation. */
const SDK_CALL_OF: Record<string, string> = { getOpenApiDocument: 'openapi.retrieve' };
const ACTION_OF = { 'GET /': 'list', 'POST /': 'create', 'GET /{id}': 'retrieve', 'PATCH /{id}': 'update', 'DELETE /{id}': 'del' } as Record<string, string>;
/** An object's lifecycle steps (`POST /invoices/{id}/finalize`): the method is the step's name. */
const STEPS = ['finalize', 'pay', 'void'] as const;
const METHODS = ['list', 'retrieve', 'create', 'update', 'del', ...STEPS] as const;

/** `clients.list` for GET /api/v1/clients, `invoices.pay` for POST /api/v1/invoices/{id}/pay: the collection in camelCase, its action by method and path. */
function sdkCallOf(operation: { id: string; method: string; path: string }): string {
  const named = SDK_CALL_OF[operation.id];
  if (named) return named;
  const [, collection, item, step] = new RegExp(`^${API_PREFIX}/([a-z_]+)(/\\{id\\})?(?:/([a-z]+))?$`).exec(operation.path) ?? [];
  const action = step ? (item && operation.method === 'POST' && (STEPS as readonly string[]).includes(step) ? step : undefined) : ACTION_OF[`${operation.method} /${item ? '{id}' : ''}`];
  if (!collection || !action) throw new Error(`${operation.id} (${operation.method} ${operation.path}) follows no convention: name its SDK call in SDK_CALL_OF`);
  return `${collection.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())}.${action}`;
}

/** A Timebill whose fetch records each request and answers an empty page (a valid body for every call). */
function recordingSdk() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    requests.push(`${init?.method} ${new URL(String(input)).pathname}`);
    return new Response(JSON.stringify({ object: 'list', data: [], has_more: false, next_cursor: null }), { status: 200 });
  };
  return { tb: new Timebill('token', { baseUrl: `https://api.timebill.test${API_PREFIX}`, fetch, maxRetries: 0 }), requests };
}

describe('the SDK\'s methods', () => {
  it('are read from every operation of docs/openapi.json, which holds every route of shared/api/routes.ts', () => {
    expect(operations.map((o) => o.id).sort()).toEqual(ROUTES.map((r) => r.operation).sort());
  });

  it.each(operations)('$id ($method $path) has its SDK method, which sends that request', async (operation) => {
    const call = sdkCallOf(operation);
    const [resource, method] = call.split('.') as [string, string];
    const { tb, requests } = recordingSdk();
    const target = (tb as unknown as Record<string, Record<string, ((...args: unknown[]) => unknown) | undefined> | undefined>)[resource];
    const fn = target?.[method];
    expect(fn, `tb.${call} is missing: the SDK has no method for ${operation.id}`).toBeTypeOf('function');
    const args = [...(operation.path.includes('{id}') ? ['x_1'] : []), ...(method === 'retrieve' || method === 'del' ? [] : [{}])];
    const result = fn!.apply(target, args);
    await (method === 'list' ? (result as { toArray(): Promise<unknown> }).toArray() : result);
    expect(requests).toEqual([`${operation.method} ${operation.path.replace('{id}', 'x_1')}`]);
  });

  it.each(STEPS)('invoices.%s sends no body (nor Content-Type) when given none, and the body and If-Match when given', async (step) => {
    const sent: { body: unknown; headers: Record<string, string> }[] = [];
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      sent.push({ body: init?.body, headers: init?.headers as Record<string, string> });
      return new Response(JSON.stringify({ object: 'invoice', id: 'inv_1' }), { status: 200 });
    };
    const tb = new Timebill('token', { baseUrl: 'https://api.timebill.test', fetch, maxRetries: 0 });
    await tb.invoices[step]('inv_1');
    await tb.invoices[step]('inv_1', {}, { ifMatch: '"4"', idempotencyKey: 'k' });
    expect(sent[0]!.body).toBeUndefined();
    expect(sent[0]!.headers).not.toHaveProperty('Content-Type');
    expect(sent[0]!.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toEqual({ body: '{}', headers: expect.objectContaining({ 'Content-Type': 'application/json', 'If-Match': '"4"', 'Idempotency-Key': 'k' }) });
  });

  it('answer no operation the document lacks', () => {
    const { tb } = recordingSdk();
    const methods = Object.entries(tb).flatMap(([resource, value]) => METHODS.filter((m) => typeof (value as Record<string, unknown>)[m] === 'function').map((m) => `${resource}.${m}`));
    expect(methods.sort()).toEqual(operations.map(sdkCallOf).sort());
  });

  it('are a package whose version is the API document\'s (sdk/package.json)', () => {
    expect(readJson('sdk/package.json').version).toBe(document.info.version);
  });
});

describe('the SDK\'s generated types', () => {
  it('are generated before every compile, never kept in git (a copy would drift from docs/openapi.json)', () => {
    const path = relative(root, SDK_TYPES_PATH);
    expect(execFileSync('git', ['check-ignore', path], { cwd: root, encoding: 'utf8' }).trim()).toBe(path);
    expect(execFileSync('git', ['ls-files', path], { cwd: root, encoding: 'utf8' })).toBe('');
  });

  it('type the README\'s first lines, which are sdk/examples/quickstart.ts (compiled by tsc, run from the package by test/integration/sdk-package.test.ts)', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The SDK'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    const example = readFileSync(resolve(root, 'sdk/examples/quickstart.ts'), 'utf8').replace("'../src/index.ts'", "'@timebill/sdk'");
    expect(block).toBe(example);
  });

  it('are what the SDK\'s surface is typed with (compiled, never run)', () => {
    expect(typeof typeChecks).toBe('function');
  });
});

async function typeChecks(tb: Timebill) {
  await tb.clients.create({ company_name: 'Acme', company_email: 'billing@acme.test' }, { idempotencyKey: 'k' });
  // @ts-expect-error company_email is required
  await tb.clients.create({ company_name: 'Acme' });
  // @ts-expect-error no such field
  await tb.clients.update('cli_x', { nickname: 'A' });
  // @ts-expect-error a create takes no If-Match
  await tb.clients.create({ company_name: 'Acme', company_email: 'a@acme.test' }, { ifMatch: '"1"' });

  await tb.projects.create({ name: 'Site', billing_type: 'Monthly', client_id: 'cli_x' });
  // @ts-expect-error billing_type is one of the six values
  await tb.projects.create({ name: 'Site', billing_type: 'Hourly', client_id: 'cli_x' });
  // @ts-expect-error billing_type is one of the six values, in an update too
  await tb.projects.update('prj_x', { billing_type: 'Yearly' });
  // @ts-expect-error a project's client never changes
  await tb.projects.update('prj_x', { client_id: 'cli_y' });

  await tb.timeEntries.create({ project_id: 'prj_x', started_at: '2026-11-24T08:00:00Z', duration_minutes: 30 });
  await tb.timeEntries.create({ client_id: 'cli_x', started_at: '2026-11-24T08:00:00Z', duration_minutes: 30, billable: false });
  // @ts-expect-error started_at is required, with a project as with a client
  await tb.timeEntries.create({ project_id: 'prj_x', duration_minutes: 30 });
  // @ts-expect-error duration_minutes is required
  await tb.timeEntries.create({ client_id: 'cli_x', started_at: '2026-11-24T08:00:00Z' });
  // The create response alone carries the endpoint's secret (absent from a replay once the endpoint is deleted).
  const created = await tb.webhookEndpoints.create({ url: 'https://hooks.acme.test/timebill', enabled_events: ['*'] });
  const secret: string | undefined = created.secret;
  // @ts-expect-error the secret may be absent
  const alwaysSecret: string = created.secret;
  void [secret, alwaysSecret];

  for await (const client of tb.clients.list({ status: 'ACTIVE', limit: 50 })) {
    const name: string = client.company_name;
    // @ts-expect-error a client has no such field
    void client.project_id;
    void name;
  }
  // @ts-expect-error status is one of the client statuses
  tb.clients.list({ status: 'ARCHIVED' });
  // @ts-expect-error the SDK follows the cursor itself
  tb.clients.list({ cursor: 'c' });

  const entry = await tb.timeEntries.retrieve('te_x');
  const minutes: number = entry.duration_minutes;
  const deleted: true = (await tb.timeEntries.del('te_x', { ifMatch: entry })).deleted;
  for await (const event of tb.events.list({ after: 'evt_x', type: 'client.created' })) void event.data;

  const draft = await tb.invoices.create({ client_id: 'cli_x', from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris', tax_rate: 20 });
  const total: string = draft.total;
  const lineAmount: string | undefined = draft.lines[0]?.amount;
  // An invoice of items alone: no period.
  await tb.invoices.create({ client_id: 'cli_x', items: [{ description: 'Training', quantity: 1, unit_price: 800 }] });
  // @ts-expect-error an item's quantity is a number
  await tb.invoices.create({ client_id: 'cli_x', items: [{ description: 'Training', quantity: '1', unit_price: 800 }] });
  // @ts-expect-error only a draft's terms change: not its client
  await tb.invoices.update(draft.id, { client_id: 'cli_y' });
  await tb.invoices.update(draft.id, { memo: 'November', discount_rate: 5 }, { ifMatch: draft });
  const open = await tb.invoices.finalize(draft.id);
  const number: string | null = open.number;
  await tb.invoices.pay(open.id, { paid_at: '2026-12-02T10:00:00Z' }, { ifMatch: open });
  // @ts-expect-error a void takes no field
  await tb.invoices.void(open.id, { reason: 'typo' });
  for await (const invoice of tb.invoices.list({ client_id: 'cli_x', status: 'open' })) void invoice.number;
  // @ts-expect-error status is one of draft, open, paid, void
  tb.invoices.list({ status: 'closed' });
  void [total, lineAmount, number];
  // @ts-expect-error events are read-only
  void tb.events.create;
  void minutes;
  void deleted;
}
