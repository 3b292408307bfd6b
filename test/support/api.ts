/** A small HTTP client for the tests: they call the local stack as an integrator would. */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { inject } from 'vitest';
import { SCOPES } from '../../shared/api/routes.ts';
import { assertDeclaredStatus } from './declared-statuses.ts';

export const baseUrl = () => inject('baseUrl');

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The body's bytes (a PDF's): from `call`. */
  bytes?: Buffer;
}

/**
 * Kept-alive connections to the local stack, each closed after 30 s unused: well before the
 * gateway closes an idle one (KEEP_ALIVE_TIMEOUT_MS, 65 s), so a request never goes out on a
 * connection the gateway is closing.
 */
const agent = new Agent({ keepAlive: true, timeout: 30_000 });

/**
 * One HTTP exchange over node:http rather than fetch: undici's fetch costs the test workers about
 * four times the CPU per request (measured warm: 460 against 120 µs), over the tens of thousands
 * the suite sends; the tests read only the status, the headers and the text. The headers come back
 * as fetch's `Headers`.
 */
function exchange(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; headers: Headers; text: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const received = new Headers();
        const raw = response.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) received.append(raw[i]!, raw[i + 1]!);
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: received, text: bytes.toString('utf8'), bytes });
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

export async function call<T = any>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await exchange(method, `${baseUrl()}${path}`, headers, body);
  assertDeclaredStatus(method, path, response.status);
  const text = response.text;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: the tests assert on that */
  }
  return { status: response.status, headers: response.headers, body: parsed as T, bytes: response.bytes };
}

/** A token from the token endpoint (what `npm run token` calls) of the local stack at `stackUrl`. */
export async function tokenFrom(stackUrl: string, workspace: string, scopes: readonly string[], expiresIn?: number): Promise<string> {
  const body = JSON.stringify({ workspace, scopes, ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) });
  const response = await exchange('POST', `${stackUrl}/_local/token`, { 'Content-Type': 'application/json' }, body);
  if (response.status < 200 || response.status > 299) throw new Error(`token: ${response.status} ${response.text}`);
  return (JSON.parse(response.text) as { access_token: string }).access_token;
}

/** A token from the shared test stack. */
export const token = (workspace: string, scopes: readonly string[] = SCOPES, expiresIn?: number): Promise<string> =>
  tokenFrom(baseUrl(), workspace, scopes, expiresIn);

/** A fresh workspace with an all-scopes token, so tests never see each other's data. */
export async function workspace(prefix = 'ws'): Promise<{ id: string; token: string; api: Api }> {
  const id = `${prefix}-${randomUUID().slice(0, 8)}`;
  const t = await token(id);
  return { id, token: t, api: apiFor(t) };
}

export type Api = ReturnType<typeof apiFor>;

export function apiFor(t: string) {
  return {
    get: <T = any>(path: string) => call<T>('GET', `/api/v1${path}`, { token: t }),
    post: <T = any>(path: string, body: unknown) => call<T>('POST', `/api/v1${path}`, { token: t, body }),
    patch: <T = any>(path: string, body: unknown) => call<T>('PATCH', `/api/v1${path}`, { token: t, body }),
    delete: <T = any>(path: string) => call<T>('DELETE', `/api/v1${path}`, { token: t }),
  };
}

export const validClient = (overrides: Record<string, unknown> = {}) => ({
  company_name: 'Acme Inc',
  company_email: 'billing@acme.test',
  ...overrides,
});

export async function createClient(api: Api, overrides: Record<string, unknown> = {}) {
  const response = await api.post('/clients', validClient(overrides));
  if (response.status !== 201) throw new Error(`createClient: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function createProject(api: Api, clientId: string, overrides: Record<string, unknown> = {}) {
  const response = await api.post('/projects', { name: 'Website', client_id: clientId, billing_type: 'Monthly', ...overrides });
  if (response.status !== 201) throw new Error(`createProject: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function logTime(api: Api, body: Record<string, unknown>) {
  const response = await api.post('/time_entries', { started_at: '2026-11-20T09:00:00Z', duration_minutes: 30, ...body });
  if (response.status !== 201) throw new Error(`logTime: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Logs up to 100 entries in one request (the bulk import's), each with logTime's defaults; answers them in the order given. */
export async function logTimes(api: Api, bodies: Record<string, unknown>[]): Promise<Record<string, any>[]> {
  const response = await api.post('/time_entries/batch', { entries: bodies.map((body) => ({ started_at: '2026-11-20T09:00:00Z', duration_minutes: 30, ...body })) });
  if (response.status !== 201) throw new Error(`logTimes: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** Asserts the contract's error shape and returns the error object. */
export function expectError(response: ApiResponse, status: number, type: string) {
  if (response.status !== status || response.body?.error?.type !== type) {
    throw new Error(`expected ${status} ${type}, got ${response.status} ${JSON.stringify(response.body)}`);
  }
  const requestId = response.headers.get('x-request-id');
  if (!requestId || response.body.error.request_id !== requestId) {
    throw new Error(`error.request_id (${response.body.error.request_id}) must equal X-Request-Id (${requestId})`);
  }
  return response.body.error as { type: string; message: string; param?: string; errors?: { param: string; message: string }[]; request_id: string };
}
