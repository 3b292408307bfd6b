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
import { Timebill, type BillingRun, type BillingRunResult, type BodyOf, type BusinessProfile, type Payment, type TimeEntry } from '../../sdk/src/index.ts';
import { API_PREFIX, ROUTES } from '../../shared/api/routes.ts';
import { RESOURCE_LIST } from '../../shared/model/resources.ts';

const root = resolve(import.meta.dirname, '../..');
const readJson = (path: string) => JSON.parse(readFileSync(resolve(root, path), 'utf8'));
const document = readJson('docs/openapi.json') as { info: { version: string }; paths: Record<string, Record<string, { operationId?: string }>> };
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => (operation.operationId ? [{ id: operation.operationId, method: method.toUpperCase(), path }] : [])),
);

/** The SDK calls that follow no collection's convention, by operation (a billing run is started, as the contract names it, not created; an invoice's document is its PDF). */
const SDK_CALL_OF: Record<string, string> = {
  getOpenApiDocument: 'openapi.retrieve',
  logTimeEntryBatch: 'timeEntries.createMany',
  startBillingRun: 'billingRuns.start',
  retrieveInvoiceDocument: 'invoices.retrievePdf',
};
const ACTION_OF = { 'GET /': 'list', 'POST /': 'create', 'GET /{id}': 'retrieve', 'PATCH /{id}': 'update', 'DELETE /{id}': 'del' } as Record<string, string>;
/** The one-per-workspace objects (the business profile): at their collection's path, no `{id}`, retrieved and updated. */
const SINGLETONS = RESOURCE_LIST.filter((r) => r.singleton).map((r) => r.collection);
const SINGLETON_ACTION_OF = { GET: 'retrieve', PATCH: 'update' } as Record<string, string>;
/** An object's lifecycle steps (`POST /invoices/{id}/finalize`): the method is the step's name. */
const STEPS = ['finalize', 'pay', 'void'] as const;
const METHODS = ['list', 'retrieve', 'retrievePdf', 'create', 'createMany', 'start', 'update', 'del', ...STEPS] as const;

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * `clients.list` for GET /api/v1/clients, `businessProfile.update` for PATCH /api/v1/business_profile (a singleton), `invoices.pay` for POST /api/v1/invoices/{id}/pay,
 * `invoices.payments.del` for DELETE /api/v1/invoices/{id}/payments/{payment_id}: the collection
 * in camelCase (a nested one under its parent's), its action by method and path.
 */
function sdkCallOf(operation: { id: string; method: string; path: string }): string {
  const named = SDK_CALL_OF[operation.id];
  if (named) return named;
  const [, collection, item, sub, subItem] = new RegExp(`^${API_PREFIX}/([a-z_]+)(/\\{id\\})?(?:/([a-z_]+)(/\\{[a-z_]+\\})?)?$`).exec(operation.path) ?? [];
  // A singleton (`GET /api/v1/business_profile`): `businessProfile.retrieve`, never a list.
  if (collection && SINGLETONS.includes(collection) && !item && !sub) {
    const action = SINGLETON_ACTION_OF[operation.method];
    if (!action) throw new Error(`${operation.id} (${operation.method} ${operation.path}): a singleton is only retrieved and updated`);
    return `${camel(collection)}.${action}`;
  }
  const isStep = item && sub && !subItem && operation.method === 'POST' && (STEPS as readonly string[]).includes(sub);
  const action = isStep ? sub : ACTION_OF[`${operation.method} /${(sub ? subItem : item) ? '{id}' : ''}`];
  // A nested collection lies under an item of its parent (`/invoices/{id}/payments`).
  if (!collection || !action || (sub && !isStep && !item)) throw new Error(`${operation.id} (${operation.method} ${operation.path}) follows no convention: name its SDK call in SDK_CALL_OF`);
  return sub && !isStep ? `${camel(collection)}.${camel(sub)}.${action}` : `${camel(collection)}.${action}`;
}

/** The SDK methods of `METHODS` reachable from `object`, by their dotted path (`invoices.payments.list`), nested collections included. */
function sdkMethodsOf(object: object, prefix = ''): string[] {
  return Object.entries(object).flatMap(([name, value]) =>
    typeof value === 'object' && value !== null
      ? [...METHODS.filter((m) => typeof (value as Record<string, unknown>)[m] === 'function').map((m) => `${prefix}${name}.${m}`), ...sdkMethodsOf(value, `${prefix}${name}.`)]
      : [],
  );
}

/** A Timebill whose fetch records each request and answers an empty page (a valid body for every call), or a PDF to `Accept: application/pdf`. */
function recordingSdk() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    requests.push(`${init?.method} ${new URL(String(input)).pathname}`);
    if ((init?.headers as Record<string, string>).Accept === 'application/pdf') return new Response('%PDF-1.7', { headers: { 'Content-Type': 'application/pdf' } });
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
    const path = call.split('.');
    const method = path.pop()!;
    const { tb, requests } = recordingSdk();
    const target = path.reduce<Record<string, unknown> | undefined>((object, name) => object?.[name] as Record<string, unknown> | undefined, tb as unknown as Record<string, unknown>);
    const fn = target?.[method] as ((...args: unknown[]) => unknown) | undefined;
    expect(fn, `tb.${call} is missing: the SDK has no method for ${operation.id}`).toBeTypeOf('function');
    // An id for each of the path's parameters, in order (`{id}`, then a nested object's own), then the body or the list's params.
    const ids = [...operation.path.matchAll(/\{\w+\}/g)].map((_, i) => `x_${i + 1}`);
    const args = [...ids, ...(method === 'retrieve' || method === 'del' ? [] : [{}])];
    const result = fn!.apply(target, args);
    await (method === 'list' ? (result as { toArray(): Promise<unknown> }).toArray() : result);
    let i = 0;
    expect(requests).toEqual([`${operation.method} ${operation.path.replace(/\{\w+\}/g, () => ids[i++]!)}`]);
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

  it('invoices.payments names the invoice, then the payment, encoded, and sends a create\'s body and key, a delete\'s If-Match', async () => {
    const sent: { url: string; method?: string; body: unknown; headers: Record<string, string> }[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push({ url: String(input), method: init?.method, body: init?.body, headers: init?.headers as Record<string, string> });
      return new Response(JSON.stringify({ object: 'payment', id: 'pay_1' }), { status: 200, headers: { ETag: '"1"' } });
    };
    const tb = new Timebill('token', { baseUrl: 'https://api.timebill.test', fetch, maxRetries: 0 });
    const payment = await tb.invoices.payments.create('inv_1', { amount: '50.00', method: 'card' }, { idempotencyKey: 'k' });
    await tb.invoices.payments.retrieve('inv_1', 'pay/1');
    await tb.invoices.payments.del('inv 1', 'pay_1', { ifMatch: payment });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST https://api.timebill.test/api/v1/invoices/inv_1/payments',
      'GET https://api.timebill.test/api/v1/invoices/inv_1/payments/pay%2F1',
      'DELETE https://api.timebill.test/api/v1/invoices/inv%201/payments/pay_1',
    ]);
    expect(sent[0]).toMatchObject({ body: '{"amount":"50.00","method":"card"}', headers: expect.objectContaining({ 'Idempotency-Key': 'k' }) });
    expect(sent[2]!.headers).toMatchObject({ 'If-Match': '"1"', 'Idempotency-Key': expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('businessProfile retrieves and updates at the collection\'s path, no id, the update with its body, If-Match and key', async () => {
    const sent: { url: string; method?: string; body: unknown; headers: Record<string, string> }[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push({ url: String(input), method: init?.method, body: init?.body, headers: init?.headers as Record<string, string> });
      return new Response(JSON.stringify({ object: 'business_profile', id: 'bp_1' }), { status: 200, headers: { ETag: '"2"' } });
    };
    const tb = new Timebill('token', { baseUrl: 'https://api.timebill.test', fetch, maxRetries: 0 });
    const profile = await tb.businessProfile.retrieve();
    await tb.businessProfile.update({ phone: null, default_taxes: [{ name: 'TPS', rate: 5 }] }, { ifMatch: profile, idempotencyKey: 'k' });
    await tb.businessProfile.update({});
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET https://api.timebill.test/api/v1/business_profile',
      'PATCH https://api.timebill.test/api/v1/business_profile',
      'PATCH https://api.timebill.test/api/v1/business_profile',
    ]);
    expect(sent[1]).toMatchObject({ body: '{"phone":null,"default_taxes":[{"name":"TPS","rate":5}]}', headers: expect.objectContaining({ 'If-Match': '"2"', 'Idempotency-Key': 'k' }) });
    expect(sent[2]!.headers).not.toHaveProperty('If-Match');
    expect(sent[2]!.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answer no operation the document lacks', () => {
    const { tb } = recordingSdk();
    expect(sdkMethodsOf(tb).sort()).toEqual(operations.map(sdkCallOf).sort());
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
  // A batch: each entry as create takes it; the entries made, typed.
  const batch: TimeEntry[] = await tb.timeEntries.createMany([{ project_id: 'prj_x', started_at: '2026-11-24T08:00:00Z', duration_minutes: 30 }, { client_id: 'cli_x', started_at: '2026-11-24T09:00:00Z', duration_minutes: 15, billable: false }], { idempotencyKey: 'k' });
  // createMany takes create's body (the batch's generated item type is looser): the API must take it as a batch's entry.
  const asBatchEntry: BodyOf<'logTimeEntryBatch'>['entries'][number] = {} as BodyOf<'logTimeEntry'>;
  void [batch, asBatchEntry];
  // @ts-expect-error started_at is required, in a batch's entry too
  await tb.timeEntries.createMany([{ project_id: 'prj_x', duration_minutes: 30 }]);
  // @ts-expect-error the entries themselves, not the request's envelope
  await tb.timeEntries.createMany({ entries: [] });
  // @ts-expect-error only time entries are created in a batch
  void tb.clients.createMany;
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
  // Instalments: an amount as a decimal string, the method one of five; pay records the balance.
  const payment: Payment = await tb.invoices.payments.create(open.id, { amount: '50.00', paid_at: '2026-12-01T10:00:00Z', method: 'cheque', reference: 'Cheque 1042' }, { idempotencyKey: 'k' });
  const paymentAmount: string = payment.amount;
  const paymentReference: string | null = payment.reference;
  // @ts-expect-error an amount is a decimal string, never a number
  await tb.invoices.payments.create(open.id, { amount: 50 });
  // @ts-expect-error amount is required
  await tb.invoices.payments.create(open.id, { method: 'card' });
  // @ts-expect-error method is one of bank_transfer, card, cheque, cash, other
  await tb.invoices.payments.create(open.id, { amount: '1', method: 'paypal' });
  // @ts-expect-error a payment is never updated
  void tb.invoices.payments.update;
  for await (const p of tb.invoices.payments.list(open.id, { limit: 10 })) void p.paid_at;
  // @ts-expect-error the SDK follows the cursor itself
  tb.invoices.payments.list(open.id, { cursor: 'c' });
  await tb.invoices.payments.retrieve(open.id, payment.id);
  const paymentDeleted: true = (await tb.invoices.payments.del(open.id, payment.id, { ifMatch: payment })).deleted;
  const paidInFull = await tb.invoices.pay(open.id, { paid_at: '2026-12-02T10:00:00Z', method: 'bank_transfer', reference: 'WIRE-1' }, { ifMatch: open });
  const amounts: [string, string] = [paidInFull.amount_paid, paidInFull.amount_due];
  // @ts-expect-error pay records the whole balance: it takes no amount
  await tb.invoices.pay(open.id, { amount: '10.00' });
  void [paymentAmount, paymentReference, paymentDeleted, amounts];
  // @ts-expect-error a void takes no field
  await tb.invoices.void(open.id, { reason: 'typo' });
  for await (const invoice of tb.invoices.list({ client_id: 'cli_x', status: 'open' })) void invoice.number;
  // @ts-expect-error status is one of draft, open, paid, void
  tb.invoices.list({ status: 'closed' });
  void [total, lineAmount, number];
  // The PDF: bytes; with ifNoneMatch (an ETag, or an earlier PDF), null when unchanged.
  const pdf: Uint8Array = await tb.invoices.retrievePdf(open.id);
  const unchanged: Uint8Array | null = await tb.invoices.retrievePdf(open.id, { ifNoneMatch: pdf });
  // @ts-expect-error with ifNoneMatch, the answer may be null (304)
  const alwaysPdf: Uint8Array = await tb.invoices.retrievePdf(open.id, { ifNoneMatch: '"x"' });
  void [unchanged, alwaysPdf];
  // The business profile: one per workspace, no id; null clears a field, but bilingual_invoices is a boolean.
  const profile: BusinessProfile = await tb.businessProfile.retrieve();
  const updatedAt: string | null = profile.updated_at;
  const defaultTaxes: { name: string; rate: number }[] = profile.default_taxes;
  await tb.businessProfile.update({ company_name: 'Studio Érable inc.', phone: null, default_taxes: [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }] }, { ifMatch: profile, idempotencyKey: 'k' });
  // @ts-expect-error bilingual_invoices is true or false, never null
  await tb.businessProfile.update({ bilingual_invoices: null });
  // Scheduled billing runs (a PATCH naming either needs invoices:write too).
  await tb.businessProfile.update({ auto_billing: true, billing_timezone: 'America/Toronto' });
  // @ts-expect-error auto_billing is true or false
  await tb.businessProfile.update({ auto_billing: 'yes' });
  // @ts-expect-error no such field
  await tb.businessProfile.update({ auto_invoicing: true });
  // @ts-expect-error the profile has no id to name
  await tb.businessProfile.retrieve('bp_x');
  // @ts-expect-error the profile is never created, listed or deleted
  void tb.businessProfile.list;
  void [updatedAt, defaultTaxes];
  // @ts-expect-error events are read-only
  void tb.events.create;
  // Billing runs: started (202, the run), retrieved, listed, waited for; their results listed under the run.
  const started: BillingRun = await tb.billingRuns.start({ from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris', billing_types: ['Monthly', 'Retainer'], client_ids: ['cli_x'] }, { idempotencyKey: 'k' });
  const status: 'queued' | 'running' | 'completed' = started.status;
  await tb.billingRuns.start({ from: '2026-11-01', to: '2026-12-01', timezone: 'UTC', billing_types: null, client_ids: null });
  // @ts-expect-error billing_types are project billing types
  await tb.billingRuns.start({ from: '2026-11-01', to: '2026-12-01', timezone: 'UTC', billing_types: ['Hourly'] });
  // @ts-expect-error from is required
  await tb.billingRuns.start({ to: '2026-12-01', timezone: 'UTC' });
  // @ts-expect-error a run is started, not created
  void tb.billingRuns.create;
  // @ts-expect-error a run is never updated or deleted
  void tb.billingRuns.del;
  const done: BillingRun = await tb.billingRuns.waitForCompletion(started.id, { intervalMs: 2_000, timeoutMs: 60_000, signal: AbortSignal.timeout(90_000) });
  const counts: [number, number, number] = [done.clients_total, done.clients_done, done.invoices_created];
  const completedAt: string | null = (await tb.billingRuns.retrieve(started.id)).completed_at;
  for await (const run of tb.billingRuns.list({ limit: 10 })) void run.clients_total;
  for await (const result of tb.billingRuns.results.list(started.id, { limit: 100 })) {
    const row: BillingRunResult = result;
    const outcome: 'invoiced' | 'nothing_to_invoice' | 'failed' = row.outcome;
    const invoiceId: string | null = row.invoice_id;
    const errorType: string | undefined = row.error?.type;
    void [outcome, invoiceId, errorType];
  }
  // @ts-expect-error the SDK follows the cursor itself
  tb.billingRuns.results.list(started.id, { cursor: 'c' });
  // @ts-expect-error results are only listed
  void tb.billingRuns.results.retrieve;
  void [status, counts, completedAt];
  void minutes;
  void deleted;
}
