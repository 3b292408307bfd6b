/**
 * The HTTP side of the SDK: one request with its retries, the collections, and lazy pagination.
 * Uses only the global `fetch` (Node 20+, browsers, Deno, Bun) and `crypto.randomUUID`.
 */
import { BillingRunTimeoutError, TimebillError } from './errors.ts';
import type { BillingRun, BodyOf, ItemOf, ListParamsOf, ResultOf, TimeEntry, operations } from './types.ts';

export interface TimebillOptions {
  /**
   * The API's base URL: as the OpenAPI document's `servers` gives it (`https://abc123.execute-api.us-east-1.amazonaws.com/prod`,
   * `http://127.0.0.1:3000`), or with `/api/v1` after it; either way the SDK calls `<base>/api/v1/…`.
   */
  baseUrl: string;
  /** Retries after a 429 (`rate_limited`), a 503, a 409 `idempotency_key_in_use` or a network failure. Default 2. */
  maxRetries?: number;
  /** Longest wait a `Retry-After` may ask for before the SDK gives up instead of waiting (ms). Default 60,000. */
  maxRetryDelayMs?: number;
  /** Per attempt: a request without an answer by then is a network failure (ms). Default 60,000. */
  timeoutMs?: number;
  /** Defaults to the global fetch; inject one to test, trace or proxy. */
  fetch?: typeof fetch;
  /** How the SDK waits between attempts and polls (may end early once `signal` aborts); inject one in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of a create. */
export interface CreateOptions {
  /** Sent as `Idempotency-Key` on every attempt; the SDK generates one per call when absent. */
  idempotencyKey?: string;
}

/** Options of an update or a delete. */
export interface WriteOptions extends CreateOptions {
  /**
   * Change only this version: an ETag string (`'"3"'`, `'*'`), or a resource this SDK returned
   * (from create, retrieve or update), whose ETag it sends. A stale one fails with 412
   * `precondition_failed`.
   */
  ifMatch?: string | object;
}

/** Options of `invoices.retrievePdf`. */
export interface PdfOptions {
  /** An ETag, or a PDF this SDK returned: answered null (304) while the document is unchanged. */
  ifNoneMatch?: string | object;
}

/** Options of a list: `format: 'csv'` asks for its pages as CSV (`Accept: text/csv`) instead of JSON items. */
export interface ListOptions<F extends 'json' | 'csv' = 'json' | 'csv'> {
  /** `'json'` (the default): the items, typed. `'csv'`: each page's CSV text, as the API writes it. */
  format?: F;
}

/** What the API answered beside a result's body. */
export interface ResponseInfo {
  status: number;
  /** The resource's version, for `ifMatch` (create, retrieve and update results). */
  etag: string | null;
  requestId: string | null;
  /** The stored response of an earlier request with the same `Idempotency-Key`. */
  idempotentReplayed: boolean;
}

const responses = new WeakMap<object, ResponseInfo>();

/** Where the operations' paths start, below a server URL. */
const API_PREFIX = '/api/v1';

/** The response a result of this SDK came with (undefined for list items and other objects). */
export const responseOf = (result: object): ResponseInfo | undefined => responses.get(result);

/** The ETag of a resource returned by create, retrieve or update (null for a list item: retrieve it). */
export const etagOf = (resource: object): string | null => responses.get(resource)?.etag ?? null;

interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, unknown>;
  /** An absolute URL on the base URL's origin (a CSV page's next), instead of `path` and `query`. */
  url?: string;
  body?: unknown;
  idempotencyKey?: string;
  ifMatch?: string | object;
  ifNoneMatch?: string | object;
  /** Cancels the call (its attempt in flight, and any further one): it rejects with the signal's reason. */
  signal?: AbortSignal;
}

const RETRYABLE = (status: number, type: string | undefined) =>
  status === 503 || (status === 429 && type !== 'quota_exceeded') || (status === 409 && type === 'idempotency_key_in_use');

/** Seconds from `Retry-After` (delay-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

export class Http {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #maxRetries: number;
  readonly #maxRetryDelayMs: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(token: string, options: TimebillOptions) {
    if (!token) throw new TypeError('Timebill: an access token is required');
    if (!options?.baseUrl) throw new TypeError("Timebill: options.baseUrl is required (the OpenAPI document's server URL, with or without /api/v1)");
    this.#token = token;
    const base = options.baseUrl.replace(/\/+$/, '');
    this.#baseUrl = base.endsWith(API_PREFIX) ? base : `${base}${API_PREFIX}`;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this.#sleep = options.sleep ?? pause;
  }

  /** Waits `ms` as the SDK waits between attempts (the `sleep` option), less once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#sleep(ms, signal);
  }

  /** One call: its attempts share one Idempotency-Key (a write); answers the parsed body and remembers its response. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const { response, bytes } = await this.#exchange(spec, 'application/json');
    return remembered(response, parseSuccess<T>(response, utf8(bytes), response.headers.get('X-Request-Id')));
  }

  /** A list's page as CSV (`Accept: text/csv`): its text unparsed, and the next page's URL from `Link` (null on the last page). */
  async csvPage(spec: RequestSpec): Promise<CsvPage> {
    const { url, response, bytes } = await this.#exchange(spec, 'text/csv');
    expectType(response, 'text/csv', bytes);
    return remembered(response, { csv: utf8(bytes), next: nextPageOf(response.headers.get('Link'), url) });
  }

  /** A document's bytes (`Accept: application/pdf`), remembered as a result is; null for a 304 to `ifNoneMatch`. */
  async pdf(spec: RequestSpec): Promise<Uint8Array | null> {
    const { response, bytes } = await this.#exchange(spec, 'application/pdf');
    if (response.status === 304) return null;
    expectType(response, 'application/pdf', bytes);
    return remembered(response, bytes);
  }

  /** The attempts of one call, until a success (answered with its body) or an error that is not retried (thrown). */
  async #exchange(spec: RequestSpec, accept: string): Promise<{ url: string; response: Response; bytes: Uint8Array }> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#token}`, Accept: accept };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    if (spec.method !== 'GET') headers['Idempotency-Key'] = spec.idempotencyKey ?? crypto.randomUUID();
    if (spec.ifMatch !== undefined) headers['If-Match'] = etagHeader(spec.ifMatch, 'ifMatch');
    if (spec.ifNoneMatch !== undefined) headers['If-None-Match'] = etagHeader(spec.ifNoneMatch, 'ifNoneMatch');
    const url = spec.url ?? this.#baseUrl + spec.path + queryString(spec.query);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);

    const { signal } = spec;
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.#maxRetries;
      let response: Response;
      let bytes: Uint8Array;
      try {
        signal?.throwIfAborted();
        const timeout = AbortSignal.timeout(this.#timeoutMs);
        response = await this.#fetch(url, { method: spec.method, headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        if (retriesLeft) {
          await this.#sleep(backoff(attempt), signal);
          continue;
        }
        const message = `Could not reach the Timebill API (${spec.method} ${url}): ${cause instanceof Error ? cause.message : String(cause)}`;
        throw new TimebillError({ status: 0, type: 'connection_error', message, cause });
      }
      if (response.ok || (response.status === 304 && spec.ifNoneMatch !== undefined)) return { url, response, bytes };
      const error = errorOf(response, utf8(bytes), response.headers.get('X-Request-Id'));
      if (retriesLeft && RETRYABLE(error.status, error.type)) {
        if (error.retryAfter === null) {
          await this.#sleep(backoff(attempt), signal);
          continue;
        }
        if (error.retryAfter * 1000 <= this.#maxRetryDelayMs) {
          // Retry-After is the least to wait; a run of them backs off as docs/api.md advises.
          await this.#sleep(Math.max(error.retryAfter * 1000, backoff(attempt)), signal);
          continue;
        }
      }
      throw error;
    }
  }
}

/** `result`, its response remembered (for `responseOf`, `etagOf` and `ifMatch`) when it is an object. */
function remembered<T>(response: Response, result: T): T {
  if (typeof result === 'object' && result !== null) {
    responses.set(result, {
      status: response.status,
      etag: response.headers.get('ETag'),
      requestId: response.headers.get('X-Request-Id'),
      idempotentReplayed: response.headers.get('Idempotent-Replayed') === 'true',
    });
  }
  return result;
}

/**
 * The next page's URL: the `rel="next"` target of a `Link` header (RFC 8288), resolved against
 * the URL just fetched. The token goes to the base URL's origin only: a target on another origin
 * (a proxy's Host, say) is the same list here with the target's query (its cursor).
 */
function nextPageOf(link: string | null, from: string): string | null {
  for (const [, target, params] of (link ?? '').matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params!);
    if (!(rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/).includes('next')) continue;
    const next = new URL(target!, from);
    const own = new URL(from);
    if (next.origin === own.origin) return next.href;
    own.search = next.search;
    return own.href;
  }
  return null;
}

/** The default `sleep`: a timer, cut short (resolved) when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/** `promise`, or the signal's reason as soon as it aborts (whatever the promise does meanwhile). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort);
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Up to 0.5 s, 1 s, 2 s… (8 s at most), with jitter over the upper half of each. */
const backoff = (attempt: number) => {
  const ceiling = Math.min(500 * 2 ** attempt, 8_000);
  return ceiling / 2 + Math.random() * (ceiling / 2);
};

function etagHeader(value: string | object, option: 'ifMatch' | 'ifNoneMatch'): string {
  if (typeof value === 'string') return value;
  const etag = etagOf(value);
  if (etag === null) throw new TypeError(`${option}: no ETag is known for this object (list items carry none): pass the result of create, retrieve or update, or an ETag string`);
  return etag;
}

const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Throws an invalid_response unless the success is of `type` (not a proxy's page, say); only then is the body read, its start. */
function expectType(response: Response, type: string, body: Uint8Array): void {
  const got = response.headers.get('Content-Type') ?? '';
  if (got.split(';')[0]!.trim().toLowerCase() === type) return;
  const message = `The Timebill API answered ${response.status} with ${got || 'no Content-Type'} instead of ${type.split('/')[1]!.toUpperCase()}: ${utf8(body.subarray(0, 800)).slice(0, 200)}`;
  throw new TimebillError({ status: response.status, type: 'invalid_response', message, requestId: response.headers.get('X-Request-Id') });
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseSuccess<T>(response: Response, text: string, requestId: string | null): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    const message = `The Timebill API answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`;
    throw new TimebillError({ status: response.status, type: 'invalid_response', message, requestId, cause });
  }
}

function errorOf(response: Response, text: string, headerRequestId: string | null): TimebillError {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: an invalid_response below */
  }
  const error = (parsed as { error?: Record<string, unknown> } | undefined)?.error;
  if (typeof error?.type !== 'string' || typeof error.message !== 'string') {
    const message = `The Timebill API answered ${response.status} without its JSON error: ${text.slice(0, 200)}`;
    return new TimebillError({ status: response.status, type: 'invalid_response', message, requestId: headerRequestId, retryAfter });
  }
  return new TimebillError({
    status: response.status,
    type: error.type as TimebillError['type'],
    message: error.message,
    param: typeof error.param === 'string' ? error.param : null,
    errors: Array.isArray(error.errors) ? (error.errors as { param: string; message: string }[]) : [],
    requestId: typeof error.request_id === 'string' ? error.request_id : headerRequestId,
    retryAfter,
  });
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Every item of a list, fetched a page at a time as the loop asks for more. */
export class AutoPaginator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** The pages themselves (`data`, `has_more`, `next_cursor`), lazily. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item in one array: for lists known to be small. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

/** One page of a list as CSV: the API's text (its header row, then a row per item, CRLF line ends), and the next page's URL. */
export interface CsvPage {
  csv: string;
  /** The next page's absolute URL (the `Link` header's `rel="next"`), null on the last page. */
  next: string | null;
}

/** A list as CSV: each page's text (every page with its header row), fetched a page at a time by following `Link`. */
export class CsvPaginator implements AsyncIterable<string> {
  constructor(private readonly fetchPage: (next: string | undefined) => Promise<CsvPage>) {}

  /** The pages with their next URL (`csv`, `next`), lazily. */
  async *pages(): AsyncGenerator<CsvPage, void, undefined> {
    for (let next: string | undefined; ; ) {
      const page = await this.fetchPage(next);
      yield page;
      if (page.next === null) return;
      next = page.next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string, void, undefined> {
    for await (const page of this.pages()) yield page.csv;
  }

  /** Every page in one CSV document, the header row once: for lists known to be small. */
  async text(): Promise<string> {
    let text = '';
    for await (const csv of this) text += text === '' ? csv : csv.slice(csv.indexOf('\n') + 1);
    return text;
  }
}

/** A list's pages as JSON items, or as CSV (`format: 'csv'`). */
function paginatorOf<T>(http: Http, path: string, params: unknown, options: ListOptions | undefined): AutoPaginator<T> | CsvPaginator {
  const query = params as Record<string, unknown> | undefined;
  if (options?.format === 'csv') return new CsvPaginator((url) => http.csvPage({ method: 'GET', path, query, url }));
  return new AutoPaginator((cursor) => http.request<Page<T>>({ method: 'GET', path, query: { ...query, cursor } }));
}

type Id = keyof operations;

/** A list the service computes (time summaries): iterate it, page by page. */
export class Listing<List extends Id> {
  constructor(
    protected readonly http: Http,
    protected readonly path: string,
  ) {}

  /** Every item matching `params`, in the list's order, fetched lazily page by page; with `{ format: 'csv' }`, each page's CSV text. */
  list(params: ListParamsOf<List>, options?: ListOptions<'json'>): AutoPaginator<ItemOf<List>>;
  list(params: ListParamsOf<List>, options: ListOptions<'csv'>): CsvPaginator;
  list(params: ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator;
  list(params: ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator {
    return paginatorOf<ItemOf<List>>(this.http, this.path, params, options);
  }
}

/** Read access to a collection: retrieve one, or iterate a filtered list. */
export class ReadOnlyCollection<List extends Id, Retrieve extends Id> extends Listing<List> {
  retrieve(id: string): Promise<ResultOf<Retrieve>> {
    return this.http.request({ method: 'GET', path: `${this.path}/${encodeURIComponent(id)}` });
  }

  /** Every item matching `params`, newest first (events with `after`: oldest first), fetched lazily page by page; with `{ format: 'csv' }`, each page's CSV text. */
  override list(params?: ListParamsOf<List>, options?: ListOptions<'json'>): AutoPaginator<ItemOf<List>>;
  override list(params: ListParamsOf<List> | undefined, options: ListOptions<'csv'>): CsvPaginator;
  override list(params?: ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator;
  override list(params: ListParamsOf<List> = {} as ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator {
    return super.list(params, options);
  }
}

/** A collection the caller writes: create, retrieve, update (PATCH), del, list. */
export class Collection<List extends Id, Create extends Id, Retrieve extends Id, Update extends Id, Delete extends Id> extends ReadOnlyCollection<
  List,
  Retrieve
> {
  create(body: BodyOf<Create>, options: CreateOptions = {}): Promise<ResultOf<Create>> {
    return this.http.request({ method: 'POST', path: this.path, body, ...options });
  }

  update(id: string, patch: BodyOf<Update>, options: WriteOptions = {}): Promise<ResultOf<Update>> {
    return this.http.request({ method: 'PATCH', path: `${this.path}/${encodeURIComponent(id)}`, body: patch, ...options });
  }

  del(id: string, options: WriteOptions = {}): Promise<ResultOf<Delete>> {
    return this.http.request({ method: 'DELETE', path: `${this.path}/${encodeURIComponent(id)}`, ...options });
  }
}

/**
 * A list under a parent object (`/billing_runs/{id}/results`): each call names the parent first.
 * Its rows are only listed.
 */
export class NestedListing<List extends Id> {
  constructor(
    protected readonly http: Http,
    /** The parent collection's path (`/invoices`). */
    protected readonly parentPath: string,
    /** This collection's segment under a parent (`payments`). */
    protected readonly segment: string,
  ) {}

  /** Every item of the parent's collection matching `params`, in the list's order, fetched lazily page by page; with `{ format: 'csv' }`, each page's CSV text. */
  list(parentId: string, params?: ListParamsOf<List>, options?: ListOptions<'json'>): AutoPaginator<ItemOf<List>>;
  list(parentId: string, params: ListParamsOf<List> | undefined, options: ListOptions<'csv'>): CsvPaginator;
  list(parentId: string, params?: ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator;
  list(parentId: string, params: ListParamsOf<List> = {} as ListParamsOf<List>, options?: ListOptions): AutoPaginator<ItemOf<List>> | CsvPaginator {
    return paginatorOf<ItemOf<List>>(this.http, this.pathOf(parentId), params, options);
  }

  /** `<parent path>/<parent id>/<segment>`, and `/<id>` after it when given, the ids encoded. */
  protected pathOf(parentId: string, id?: string): string {
    const collection = `${this.parentPath}/${encodeURIComponent(parentId)}/${this.segment}`;
    return id === undefined ? collection : `${collection}/${encodeURIComponent(id)}`;
  }
}

/**
 * A collection under a parent object (`/invoices/{id}/payments`): each call names the parent
 * first. Its objects are created and deleted, never updated.
 */
export class NestedCollection<List extends Id, Create extends Id, Retrieve extends Id, Delete extends Id> extends NestedListing<List> {
  retrieve(parentId: string, id: string): Promise<ResultOf<Retrieve>> {
    return this.http.request({ method: 'GET', path: this.pathOf(parentId, id) });
  }

  create(parentId: string, body: BodyOf<Create>, options: CreateOptions = {}): Promise<ResultOf<Create>> {
    return this.http.request({ method: 'POST', path: this.pathOf(parentId), body, ...options });
  }

  del(parentId: string, id: string, options: WriteOptions = {}): Promise<ResultOf<Delete>> {
    return this.http.request({ method: 'DELETE', path: this.pathOf(parentId, id), ...options });
  }
}

/**
 * An object of which a workspace has exactly one, at its collection's path with no id
 * (`/business_profile`): retrieved and updated, never created, listed or deleted.
 */
export class Singleton<Retrieve extends Id, Update extends Id> {
  constructor(
    protected readonly http: Http,
    protected readonly path: string,
  ) {}

  retrieve(): Promise<ResultOf<Retrieve>> {
    return this.http.request({ method: 'GET', path: this.path });
  }

  update(patch: BodyOf<Update>, options: WriteOptions = {}): Promise<ResultOf<Update>> {
    return this.http.request({ method: 'PATCH', path: this.path, body: patch, ...options });
  }
}

/**
 * Invoices: a draft made from a client's uninvoiced time (create), changed or deleted while a
 * draft, then `finalize` (draft → open, numbered), `pay` (open → paid: one payment of the whole
 * balance) or `void` (open → void, its time released). A step's body is optional; like an update
 * it takes `ifMatch`. An open invoice's instalments are its `payments`.
 */
export class InvoiceCollection extends Collection<'listInvoices', 'createInvoice', 'retrieveInvoice', 'updateInvoice', 'deleteInvoice'> {
  /**
   * An invoice's payments (`/invoices/{id}/payments`): `create(invoiceId, { amount, paid_at?, method?, reference? })`
   * while it is open (the one that clears `amount_due` makes it paid), `list(invoiceId)`,
   * `retrieve(invoiceId, paymentId)`, `del(invoiceId, paymentId)`.
   */
  readonly payments = new NestedCollection<'listPayments', 'createPayment', 'retrievePayment', 'deletePayment'>(this.http, this.path, 'payments');

  finalize(id: string, body?: BodyOf<'finalizeInvoice'>, options: WriteOptions = {}): Promise<ResultOf<'finalizeInvoice'>> {
    return this.#step(id, 'finalize', body, options);
  }

  pay(id: string, body?: BodyOf<'payInvoice'>, options: WriteOptions = {}): Promise<ResultOf<'payInvoice'>> {
    return this.#step(id, 'pay', body, options);
  }

  void(id: string, body?: BodyOf<'voidInvoice'>, options: WriteOptions = {}): Promise<ResultOf<'voidInvoice'>> {
    return this.#step(id, 'void', body, options);
  }

  /**
   * The invoice's PDF (`GET /invoices/{id}/document`), as its client receives it: the same bytes
   * while the invoice does not change; `etagOf(pdf)` is their hash. With `ifNoneMatch`, null when unchanged.
   */
  retrievePdf(id: string): Promise<Uint8Array>;
  retrievePdf(id: string, options: PdfOptions): Promise<Uint8Array | null>;
  retrievePdf(id: string, options: PdfOptions = {}): Promise<Uint8Array | null> {
    return this.http.pdf({ method: 'GET', path: `${this.path}/${encodeURIComponent(id)}/document`, ...options });
  }

  /** `POST /invoices/{id}/<step>`, with no body (and no Content-Type) when none is given. */
  #step<T>(id: string, step: 'finalize' | 'pay' | 'void', body: object | undefined, options: WriteOptions): Promise<T> {
    return this.http.request({ method: 'POST', path: `${this.path}/${encodeURIComponent(id)}/${step}`, body, ...options });
  }
}

/** Time entries, and `createMany`: a migration's entries in one request, all or nothing. */
export class TimeEntryCollection extends Collection<'listTimeEntries', 'logTimeEntry', 'retrieveTimeEntry', 'updateTimeEntry', 'deleteTimeEntry'> {
  /**
   * Logs 1 to 100 entries (`POST /time_entries/batch`, each as `create` takes it) and answers them
   * in the order given; or makes none and throws a 400 naming each invalid field `entries[i].field`.
   * Every attempt sends one `Idempotency-Key`, so a retry writes only what an earlier one left
   * unwritten. `responseOf(entries)` is the batch's response; the entries carry no ETag.
   */
  async createMany(entries: BodyOf<'logTimeEntry'>[], options: CreateOptions = {}): Promise<TimeEntry[]> {
    const page = await this.http.request<ResultOf<'logTimeEntryBatch'>>({ method: 'POST', path: `${this.path}/batch`, body: { entries }, ...options });
    responses.set(page.data, responses.get(page)!);
    return page.data;
  }
}

/** Options of `billingRuns.waitForCompletion`. */
export interface WaitOptions {
  /** The wait after the first retrieve (ms), each next one half as long again, up to 10 s (or this, when longer); at least 100 ms. Default 1,000. */
  intervalMs?: number;
  /** How long to wait for `completed` before rejecting with a `BillingRunTimeoutError` (ms); `Infinity`: as long as the run takes. Default 600,000. */
  timeoutMs?: number;
  /** Stops waiting, the retrieve in flight included: the promise rejects with the signal's `reason`. */
  signal?: AbortSignal;
}

/** The shortest wait between two retrieves of `waitForCompletion` (ms), and the longest its backoff grows to. */
const POLL_MS = { min: 100, max: 10_000 };
/** The longest delay `setTimeout` keeps (ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Billing runs: `start(body)` answers the run (202, `queued` or `running`), which the service takes on to `completed`. */
export class BillingRunCollection extends ReadOnlyCollection<'listBillingRuns', 'retrieveBillingRun'> {
  /** A run's outcomes (`/billing_runs/{id}/results`), a row a client: `list(runId, params?, options?)`. */
  readonly results = new NestedListing<'listBillingRunResults'>(this.http, this.path, 'results');

  start(body: BodyOf<'startBillingRun'>, options: CreateOptions = {}): Promise<BillingRun> {
    return this.http.request({ method: 'POST', path: this.path, body, ...options });
  }

  /**
   * The run once `completed`, retrieved at once and after each wait (`WaitOptions`). Rejects with
   * a `BillingRunTimeoutError`, the signal's `reason`, or a failed retrieve's `TimebillError`.
   */
  async waitForCompletion(id: string, { intervalMs = 1_000, timeoutMs = 600_000, signal }: WaitOptions = {}): Promise<BillingRun> {
    if (!(intervalMs >= 0 && timeoutMs >= 0)) throw new RangeError('waitForCompletion: intervalMs and timeoutMs are milliseconds, 0 or more');
    signal?.throwIfAborted();
    const stop = new AbortController();
    const deadline = Date.now() + timeoutMs;
    let run: BillingRun | null = null;
    const expire = () => stop.abort(new BillingRunTimeoutError(id, timeoutMs, run));
    const forward = () => stop.abort(signal!.reason);
    const timer = timeoutMs <= MAX_TIMER_MS ? setTimeout(expire, timeoutMs) : undefined;
    signal?.addEventListener('abort', forward);
    try {
      for (let wait = Math.max(intervalMs, POLL_MS.min); ; wait = Math.min(wait * 1.5, Math.max(intervalMs, POLL_MS.max))) {
        run = await abortable(this.http.request<BillingRun>({ method: 'GET', path: `${this.path}/${encodeURIComponent(id)}`, signal: stop.signal }), stop.signal);
        if (run.status === 'completed') return run;
        // The timer ends a wait; the clock ends a loop whose injected sleep takes no time.
        if (Date.now() >= deadline) expire();
        await abortable(this.http.sleep(wait, stop.signal), stop.signal);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }
}

/** The Timebill API: `new Timebill(accessToken, { baseUrl })`. */
export class Timebill {
  readonly clients: Collection<'listClients', 'createClient', 'retrieveClient', 'updateClient', 'deleteClient'>;
  readonly projects: Collection<'listProjects', 'createProject', 'retrieveProject', 'updateProject', 'deleteProject'>;
  /** As the collections, and `createMany(entries, { idempotencyKey? })`: up to 100 entries in one all-or-nothing request. */
  readonly timeEntries: TimeEntryCollection;
  readonly webhookEndpoints: Collection<
    'listWebhookEndpoints',
    'createWebhookEndpoint',
    'retrieveWebhookEndpoint',
    'updateWebhookEndpoint',
    'deleteWebhookEndpoint'
  >;
  /** Invoices from time: `create({ client_id, from, to, timezone })`, then `finalize`, `pay` or `void`; `invoices.payments` records instalments; `retrievePdf` reads the PDF. */
  readonly invoices: InvoiceCollection;
  /**
   * What the workspace's invoices say of their issuer, one per workspace: `retrieve()` (its fields
   * null until set) and `update(patch, { ifMatch?, idempotencyKey? })` (null clears a field);
   * `default_taxes` are what an invoice created without `taxes` or `tax_rate` takes.
   */
  readonly businessProfile: Singleton<'retrieveBusinessProfile', 'updateBusinessProfile'>;
  readonly events: ReadOnlyCollection<'listEvents', 'retrieveEvent'>;
  /** What to bill: `timeSummaries.list({ from, to, timezone, group_by, period })`, rows in the list's order. */
  readonly timeSummaries: Listing<'listTimeSummaries'>;
  /** Invoices for many clients at once: `start(body)`, `waitForCompletion(id)`, `results.list(id)`. */
  readonly billingRuns: BillingRunCollection;
  /** This API's description: `retrieve()` answers its OpenAPI document (`GET /openapi.json`). */
  readonly openapi: { retrieve(): Promise<ResultOf<'getOpenApiDocument'>> };

  constructor(accessToken: string, options: TimebillOptions) {
    const http = new Http(accessToken, options);
    this.clients = new Collection(http, '/clients');
    this.projects = new Collection(http, '/projects');
    this.timeEntries = new TimeEntryCollection(http, '/time_entries');
    this.webhookEndpoints = new Collection(http, '/webhook_endpoints');
    this.invoices = new InvoiceCollection(http, '/invoices');
    this.businessProfile = new Singleton(http, '/business_profile');
    this.events = new ReadOnlyCollection(http, '/events');
    this.timeSummaries = new Listing(http, '/time_summaries');
    this.billingRuns = new BillingRunCollection(http, '/billing_runs');
    this.openapi = { retrieve: () => http.request({ method: 'GET', path: '/openapi.json' }) };
  }
}

