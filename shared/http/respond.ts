/** The one mapping from results and errors to HTTP responses. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../core/errors.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A body serialized already, sent byte for byte (an idempotent replay repeats the first bytes; a list's CSV page). */
export class BodyText {
  declare readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Bytes (a document), sent as API Gateway returns binary: base64, flagged (every type is binary to it, infra/names.ts BINARY_MEDIA_TYPES). */
export class BodyBytes {
  declare readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}

/** A document's answer; a 304 has its validators and none of its body or content headers (RFC 9110, 15.4.5). */
export function bytesResponse(statusCode: 200 | 304, body: BodyBytes, requestId: string, headers: Record<string, string>): APIGatewayProxyResult {
  const { 'Content-Type': _type, 'Content-Disposition': _disposition, ...validators } = headers;
  return statusCode === 304
    ? { statusCode, headers: { ...SECURITY_HEADERS, 'X-Request-Id': requestId, ...validators }, body: '' }
    : { statusCode, headers: { ...SECURITY_HEADERS, 'X-Request-Id': requestId, ...headers }, body: Buffer.from(body.bytes).toString('base64'), isBase64Encoded: true };
}

export function jsonResponse(statusCode: number, body: unknown, requestId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': 'no-store', ...SECURITY_HEADERS, 'X-Request-Id': requestId, ...headers },
    body: body instanceof BodyText ? body.text : JSON.stringify(body),
  };
}

/**
 * Errors below 500, and 503 (a dependency failed: the caller should retry), are exposed as they
 * are; anything else is a bug, answered with a generic 500 and the request id.
 */
export function errorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof ApiError && (error.status < 500 || error.type === 'service_unavailable')) {
    return jsonResponse(
      error.status,
      {
        error: {
          type: error.type,
          message: error.message,
          ...(error.param !== undefined ? { param: error.param } : {}),
          ...(error.errors !== undefined ? { errors: error.errors } : {}),
          request_id: requestId,
        },
      },
      requestId,
      error.headers,
    );
  }
  return jsonResponse(
    500,
    { error: { type: 'internal_error', message: `An unexpected error occurred. Quote request_id ${requestId} when reporting it`, request_id: requestId } },
    requestId,
  );
}
