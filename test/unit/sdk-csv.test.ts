/**
 * Lists as CSV through the SDK (contract, "CSV and bulk import"): `list(params, { format: 'csv' })`
 * sends `Accept: text/csv` to the list's path with its filters, answers each page's text unparsed
 * and follows the `Link` header's `rel="next"` to the next page; every list the document offers as
 * CSV has it, the nested payments and billing run results, time summaries and events included.
 * The requests are recorded by an injected fetch.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvPaginator, Timebill, TimebillError, responseOf } from '../../sdk/src/index.ts';

const BASE = 'https://api.timebill.test/prod';
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

interface Sent {
  url: string;
  method?: string;
  headers: Record<string, string>;
}

/** A Timebill whose fetch records each request and answers the next of `replies` (text, headers). */
function recording(replies: { body: string; headers?: Record<string, string>; status?: number }[]) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({ url: String(input), method: init?.method, headers: init?.headers as Record<string, string> });
    const reply = replies.shift() ?? { body: 'id\r\n' };
    return new Response(reply.body, { status: reply.status ?? 200, headers: { 'Content-Type': CSV_TYPE, ...reply.headers } });
  };
  return { tb: new Timebill('token', { baseUrl: BASE, fetch, maxRetries: 0 }), sent };
}

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
};
/** The operations whose page the document offers as CSV. */
const csvOperations = Object.values(document.paths)
  .flatMap((item) => Object.values(item))
  .filter((operation) => Object.keys(operation.responses['200']?.content ?? {}).some((type) => type.startsWith('text/csv')))
  .map((operation) => operation.operationId);

/** Each of them through the SDK, with filters: the call, and the request's path and query. */
const LISTS: { id: string; call: (tb: Timebill) => CsvPaginator; path: string; query: string }[] = [
  { id: 'listClients', call: (tb) => tb.clients.list({ status: 'ACTIVE', limit: 2 }, { format: 'csv' }), path: '/clients', query: '?status=ACTIVE&limit=2' },
  { id: 'listProjects', call: (tb) => tb.projects.list({ client_id: 'cli_1' }, { format: 'csv' }), path: '/projects', query: '?client_id=cli_1' },
  { id: 'listTimeEntries', call: (tb) => tb.timeEntries.list({ project_id: 'prj_1', started_from: '2026-11-01T00:00:00Z' }, { format: 'csv' }), path: '/time_entries', query: '?project_id=prj_1&started_from=2026-11-01T00%3A00%3A00Z' },
  { id: 'listInvoices', call: (tb) => tb.invoices.list({ status: 'open' }, { format: 'csv' }), path: '/invoices', query: '?status=open' },
  { id: 'listPayments', call: (tb) => tb.invoices.payments.list('inv 1', { limit: 5 }, { format: 'csv' }), path: '/invoices/inv%201/payments', query: '?limit=5' },
  {
    id: 'listTimeSummaries',
    call: (tb) => tb.timeSummaries.list({ from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris', group_by: 'client' }, { format: 'csv' }),
    path: '/time_summaries',
    query: '?from=2026-11-01&to=2026-12-01&timezone=Europe%2FParis&group_by=client',
  },
  { id: 'listEvents', call: (tb) => tb.events.list({ after: 'evt_1', type: 'client.created' }, { format: 'csv' }), path: '/events', query: '?after=evt_1&type=client.created' },
  { id: 'listWebhookEndpoints', call: (tb) => tb.webhookEndpoints.list(undefined, { format: 'csv' }), path: '/webhook_endpoints', query: '' },
  { id: 'listBillingRuns', call: (tb) => tb.billingRuns.list({ limit: 3 }, { format: 'csv' }), path: '/billing_runs', query: '?limit=3' },
  { id: 'listBillingRunResults', call: (tb) => tb.billingRuns.results.list('brun 1', { limit: 100 }, { format: 'csv' }), path: '/billing_runs/brun%201/results', query: '?limit=100' },
];

describe('list(params, { format: \'csv\' })', () => {
  it('is offered for every list the document answers as CSV', () => {
    expect(LISTS.map((l) => l.id).sort()).toEqual([...csvOperations].sort());
  });

  it.each(LISTS)('$id: sends Accept text/csv to its path with its filters, answers each page\'s text and follows Link to the next', async ({ call, path, query }) => {
    const first = 'id,name\r\nx_1,"A, B"\r\n';
    const second = 'id,name\r\nx_2,C\r\n';
    const next = `${BASE}/api/v1${path}?limit=1&cursor=c%2B1`;
    const { tb, sent } = recording([{ body: first, headers: { Link: `<${next}>; rel="next"` } }, { body: second }]);
    const pages: string[] = [];
    for await (const page of call(tb)) pages.push(page);
    expect(pages).toEqual([first, second]);
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([`GET ${BASE}/api/v1${path}${query}`, `GET ${next}`]);
    for (const s of sent) expect(s.headers).toEqual({ Authorization: 'Bearer token', Accept: 'text/csv' });
  });

  it('fetches lazily; pages() gives each page with its next URL (null on the last), remembered for responseOf; text() joins them, the header row once', async () => {
    const next = `${BASE}/api/v1/clients?cursor=c1`;
    const replies = () => [{ body: 'id\r\na\r\n', headers: { Link: `<${next}>; rel="next"`, 'X-Request-Id': 'req_1' } }, { body: 'id\r\nb\r\n' }];
    const { tb, sent } = recording(replies());
    const iterator = tb.clients.list({}, { format: 'csv' }).pages()[Symbol.asyncIterator]();
    const page = (await iterator.next()).value!;
    expect(page).toEqual({ csv: 'id\r\na\r\n', next });
    expect(responseOf(page)).toMatchObject({ status: 200, requestId: 'req_1' });
    expect(sent).toHaveLength(1);
    expect((await iterator.next()).value).toEqual({ csv: 'id\r\nb\r\n', next: null });
    expect((await iterator.next()).done).toBe(true);
    expect(await recording(replies()).tb.clients.list({}, { format: 'csv' }).text()).toBe('id\r\na\r\nb\r\n');
  });

  it('resolves a relative Link against the page\'s URL, finds rel="next" among other links, and sends the token to the base URL\'s origin only', async () => {
    const { tb, sent } = recording([
      { body: 'id\r\n', headers: { Link: '</prod/api/v1/clients?cursor=c1>; rel="next"' } },
      { body: 'id\r\n', headers: { Link: '<https://api.timebill.test/prod/api/v1/clients?cursor=c0>; rel=prev, <https://other.test/api/v1/clients?limit=1&cursor=c2>; rel="next"' } },
      { body: 'id\r\n' },
    ]);
    await tb.clients.list({ limit: 1 }, { format: 'csv' }).text();
    expect(sent.map((s) => s.url)).toEqual([
      `${BASE}/api/v1/clients?limit=1`,
      `${BASE}/api/v1/clients?cursor=c1`,
      `${BASE}/api/v1/clients?limit=1&cursor=c2`, // the same list here, with the foreign link's query
    ]);
  });

  it('leaves JSON the default (no options, or format json), and throws invalid_response for a success that is not CSV, and the API\'s JSON error as TimebillError', async () => {
    const json = JSON.stringify({ object: 'list', data: [{ id: 'cli_1' }], has_more: false, next_cursor: null });
    const sent: Sent[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push({ url: String(input), method: init?.method, headers: init?.headers as Record<string, string> });
      return new Response(json, { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    };
    const tb = new Timebill('token', { baseUrl: BASE, fetch, maxRetries: 0 });
    expect(await tb.clients.list().toArray()).toEqual([{ id: 'cli_1' }]);
    expect(await tb.clients.list({}, { format: 'json' }).toArray()).toEqual([{ id: 'cli_1' }]);
    expect(sent.map((s) => s.headers.Accept)).toEqual(['application/json', 'application/json']);
    const notCsv = await tb.clients.list({}, { format: 'csv' }).text().catch((e: unknown) => e);
    expect(notCsv).toBeInstanceOf(TimebillError);
    expect(notCsv).toMatchObject({ status: 200, type: 'invalid_response' });

    const error = { error: { type: 'invalid_request', message: 'limit is 1 to 100', param: 'limit', request_id: 'req_2' } };
    const failing = recording([{ body: JSON.stringify(error), status: 400, headers: { 'Content-Type': 'application/json' } }]);
    const thrown = await failing.tb.projects.list({ limit: 500 }, { format: 'csv' }).text().catch((e: unknown) => e);
    expect(thrown).toMatchObject({ name: 'TimebillError', status: 400, type: 'invalid_request', param: 'limit', requestId: 'req_2' });
  });
});

/** The overloads' types (compiled by `tsc`, never run). */
export async function csvTypeChecks(tb: Timebill) {
  const pages: CsvPaginator = tb.clients.list({ status: 'ACTIVE' }, { format: 'csv' });
  for await (const page of pages) {
    const text: string = page;
    void text;
  }
  for await (const client of tb.clients.list({}, { format: 'json' })) void client.company_name;
  for await (const page of tb.invoices.payments.list('inv_1', undefined, { format: 'csv' })) {
    // @ts-expect-error a CSV page is its text, not an item
    void page.amount;
  }
  // @ts-expect-error the format is json or csv
  tb.clients.list({}, { format: 'xlsx' });
  // @ts-expect-error the SDK follows Link itself: no cursor
  tb.events.list({ cursor: 'c' }, { format: 'csv' });
  for await (const page of tb.billingRuns.results.list('brun_1', undefined, { format: 'csv' })) {
    // @ts-expect-error a CSV page is its text, not a result row
    void page.outcome;
  }
  // @ts-expect-error a time summary's list needs its params
  tb.timeSummaries.list(undefined, { format: 'csv' });
  const next: string | null = (await tb.timeEntries.list({}, { format: 'csv' }).pages().next()).value?.next ?? null;
  void next;
}
