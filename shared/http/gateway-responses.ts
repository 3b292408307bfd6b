/**
 * The responses API Gateway itself produces, in the contract's error body. The CDK stack
 * installs them as gateway responses; the local gateway renders the same definitions.
 * Templates allow only simple `$context` substitution (no VTL), as in API Gateway.
 */
import { RETRY_AFTER_SECONDS, WWW_AUTHENTICATE_REALM, type ErrorType } from '../core/errors.ts';
import { SECURITY_HEADERS } from './security-headers.ts';
import { QUOTA_RETRY_AFTER_SECONDS, THROTTLE_RETRY_AFTER_SECONDS } from '../core/plan-limits.ts';

export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'INVALID_API_KEY'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'REQUEST_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTEGRATION_TIMEOUT'
  | 'INTEGRATION_FAILURE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseDefinition {
  type: GatewayResponseType;
  /** Undefined keeps API Gateway's own status (the DEFAULT_4XX/5XX catch-alls). */
  statusCode: number | undefined;
  /** Header values; API Gateway wants them quoted as static values, the stack adds the quotes. */
  headers: Record<string, string>;
  /** Header values taken from the request context (API Gateway parameter mapping). */
  contextHeaders: Record<string, 'context.requestId'>;
  errorType: ErrorType;
  message: string;
}

const def = (
  type: GatewayResponseType,
  statusCode: number | undefined,
  errorType: ErrorType,
  message: string,
  headers: Record<string, string> = {},
): GatewayResponseDefinition => ({
  type,
  statusCode,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS, ...headers },
  contextHeaders: { 'X-Request-Id': 'context.requestId' },
  errorType,
  message,
});

const RETRY_AFTER = { 'Retry-After': String(RETRY_AFTER_SECONDS.unavailable) };
const UNAVAILABLE = 'The service is briefly unavailable: retry after the time in Retry-After';
const UNAVAILABLE_MAY_HAVE_APPLIED =
  'The request timed out and may or may not have taken effect: retry after the time in Retry-After, a write with the same Idempotency-Key';

export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  // API Gateway answers a missing Authorization header itself; an invalid token is answered
  // by the handler (see docs/decisions/0002-authentication-errors.md), so no error= here.
  def('UNAUTHORIZED', 401, 'authentication_required', 'An access token is required: send Authorization: Bearer <token>', {
    'WWW-Authenticate': WWW_AUTHENTICATE_REALM,
  }),
  // API Gateway caches one policy per token for every route, so the authorizer cannot name the
  // route's scope here; the method, path and the token's granted scopes are what the template has.
  def(
    'ACCESS_DENIED',
    403,
    'insufficient_scope',
    "The access token lacks the scope that $context.httpMethod $context.resourcePath requires (the API reference lists each operation's scope); the scopes it grants here: $context.authorizer.scopes",
    {
      'WWW-Authenticate': `${WWW_AUTHENTICATE_REALM}, error="insufficient_scope"`,
    },
  ),
  // The authorizer allowed a registered API client that has no API key (registered before usage
  // plans): an operator's fix (`npm run integration:plan`), not the caller's.
  def('INVALID_API_KEY', 403, 'forbidden', 'This API client is on no usage plan: ask the API operator to assign one'),
  def('MISSING_AUTHENTICATION_TOKEN', 404, 'not_found', 'No such route. See the API reference for the available methods and paths'),
  def('RESOURCE_NOT_FOUND', 404, 'not_found', 'No such route. See the API reference for the available methods and paths'),
  // THROTTLED: the API client's bucket (usage plan) or the stage's. API Gateway does not say which.
  def('THROTTLED', 429, 'rate_limited', 'Too many requests: slow down and retry after the time in Retry-After', {
    'Retry-After': String(THROTTLE_RETRY_AFTER_SECONDS),
  }),
  // Static like every gateway response: Retry-After cannot be the time until the quota resets.
  def(
    'QUOTA_EXCEEDED',
    429,
    'quota_exceeded',
    "The monthly request quota of this API client is spent; it renews on the first day of the next month (UTC). Ask for a larger plan to raise it",
    { 'Retry-After': String(QUOTA_RETRY_AFTER_SECONDS) },
  ),
  def('REQUEST_TOO_LARGE', 413, 'payload_too_large', 'The request is larger than API Gateway accepts'),
  def('UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'Send the request body as application/json'),
  // Lambda throttled or timed out, or the authorizer could not reach the registry or the signing
  // keys: the request may be retried (a write safely with its Idempotency-Key). See docs/api.md.
  def('INTEGRATION_TIMEOUT', 503, 'service_unavailable', UNAVAILABLE_MAY_HAVE_APPLIED, RETRY_AFTER),
  def('INTEGRATION_FAILURE', 503, 'service_unavailable', UNAVAILABLE, RETRY_AFTER),
  def('AUTHORIZER_FAILURE', 503, 'service_unavailable', UNAVAILABLE, RETRY_AFTER),
  def('AUTHORIZER_CONFIGURATION_ERROR', 503, 'service_unavailable', UNAVAILABLE, RETRY_AFTER),
  def('DEFAULT_4XX', undefined, 'invalid_request', 'The request could not be processed'),
  def('DEFAULT_5XX', undefined, 'internal_error', 'An unexpected error occurred'),
];

/** The body template, with API Gateway's `$context` variables (simple substitution only). */
export function gatewayResponseTemplate(d: GatewayResponseDefinition): string {
  return JSON.stringify({ error: { type: d.errorType, message: d.message, request_id: '$context.requestId' } });
}

export function gatewayResponse(type: GatewayResponseType): GatewayResponseDefinition {
  const found = GATEWAY_RESPONSES.find((d) => d.type === type);
  if (!found) throw new Error(`No gateway response ${type}`);
  return found;
}
