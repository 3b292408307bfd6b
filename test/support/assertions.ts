/** Request and assertion helpers shared by the resource tests. */
import { expect } from 'vitest';
import { baseUrl, expectError, type ApiResponse } from './api.ts';
import { assertDeclaredStatus } from './declared-statuses.ts';

/** A request with full control over the body bytes and the Content-Type (none when undefined). */
export async function send(
  method: string,
  path: string,
  token: string,
  body: string | Uint8Array | undefined,
  contentType: string | undefined,
  extraHeaders: Record<string, string> = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...extraHeaders };
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  // A Uint8Array body makes fetch add no Content-Type of its own (a string would get text/plain).
  const response = await fetch(`${baseUrl()}/api/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? new TextEncoder().encode(body) : body } : {}),
  });
  assertDeclaredStatus(method, `/api/v1${path}`, response.status);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export function requestIdOf(response: ApiResponse): string {
  const id = response.headers.get('x-request-id');
  expect(id, 'X-Request-Id header').toBeTruthy();
  return id!;
}

/** A 400 invalid_request naming exactly these fields (in any order); `param` is the first listed. */
export function expectInvalid(response: ApiResponse, params: string[]) {
  const error = expectError(response, 400, 'invalid_request');
  expect(error.errors, JSON.stringify(error)).toBeDefined();
  expect(error.errors!.map((e) => e.param).sort()).toEqual([...params].sort());
  expect(error.param).toBe(error.errors![0]!.param);
  expect(error.message).toBe(error.errors![0]!.message);
  for (const e of error.errors!) expect(e.message).toEqual(expect.any(String));
  return error;
}
