/**
 * The error catalogue: every error the API can return, with its HTTP status, in one place.
 * Domain code throws ApiError; shared/http/respond.ts is the only place that turns it into HTTP.
 * An enum: where an error is made, its status is named from here (`new ApiError('not_found',
 * ERROR_TYPES.not_found, …)`, which tsc checks is a status of that type) and the bundler puts the
 * number there, so no function's bundle holds the table. `errorTypes()` lists the types in this order.
 */
export enum ERROR_TYPES {
  invalid_request = 400,
  authentication_required = 401,
  insufficient_scope = 403,
  /** Refused by the web application firewall (AWS WAF custom response, infra/limits.ts). */
  forbidden = 403,
  not_found = 404,
  /** An Accept that allows none of the media types the operation answers with (RFC 9110; shared/http/negotiation.ts). */
  not_acceptable = 406,
  conflict = 409,
  idempotency_key_in_use = 409,
  /** Invoices (contract, "Invoices", "Billing types"): a create with nothing that charges in its range (no fee due, no time and materials). */
  nothing_to_invoice = 409,
  /** A create whose time of time and materials includes billable entries without a rate. */
  unpriced_time = 409,
  /** A create whose scope holds a project that may be charged fees without what its billing type needs (`fixed_price`; `amount` and the interval). */
  unpriced_project = 409,
  /** A transition, change or delete that the invoice's status does not allow. */
  invalid_state = 409,
  /** A change or delete of a time entry that is on an invoice. */
  time_entry_invoiced = 409,
  /** A request whose body did not arrive in time (the local gateway; in AWS, API Gateway's front door). */
  request_timeout = 408,
  precondition_failed = 412,
  payload_too_large = 413,
  request_headers_too_large = 431,
  unsupported_media_type = 415,
  idempotency_key_reused = 422,
  rate_limited = 429,
  quota_exceeded = 429,
  internal_error = 500,
  service_unavailable = 503,
}

export type ErrorType = keyof typeof ERROR_TYPES;

/** The catalogue's types in its order (the OpenAPI document's enum): the enum's names, not its reverse mapping's numbers. */
export const errorTypes = (): ErrorType[] => Object.keys(ERROR_TYPES).filter((name) => Number.isNaN(Number(name))) as ErrorType[];

export interface FieldError {
  param: string;
  message: string;
}

/** Its members are declared, not defined as fields: the constructor sets each (no field starts undefined first). */
export class ApiError<T extends ErrorType = ErrorType> extends Error {
  declare readonly type: T;
  /** The type's status in the catalogue (`ERROR_TYPES[type]`). */
  declare readonly status: number;
  declare readonly param: string | undefined;
  declare readonly errors: FieldError[] | undefined;
  declare readonly headers: Record<string, string>;

  constructor(
    type: T,
    status: (typeof ERROR_TYPES)[T],
    message: string,
    options: { param?: string; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.type = type;
    this.status = status;
    this.param = options.param ?? options.errors?.[0]?.param;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export const invalidRequest = (errors: FieldError[]) =>
  new ApiError('invalid_request', ERROR_TYPES.invalid_request, errors[0]?.message ?? 'The request is invalid', { errors });

export const invalidParam = (param: string, message: string) => invalidRequest([{ param, message }]);

export const notFound = (kind: string, id: string) =>
  new ApiError('not_found', ERROR_TYPES.not_found, `No ${kind} with id '${id}'`);

export const conflict = (message: string) => new ApiError('conflict', ERROR_TYPES.conflict, message);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * 409 idempotency_key_in_use: a request with this key is still at work; Retry-After is `seconds`
 * rounded up, at least 1. Said by the HTTP frame's replay (shared/http/idempotency.ts) and by the
 * invoices' builds and releases, which know how long their work has left.
 */
export const keyInUse = (seconds = 1, doing = 'being processed: retry shortly') =>
  new ApiError('idempotency_key_in_use', ERROR_TYPES.idempotency_key_in_use, `A request with this ${IDEMPOTENCY_KEY_HEADER} is still ${doing}`, {
    param: IDEMPOTENCY_KEY_HEADER,
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) },
  });

export const WWW_AUTHENTICATE_REALM = 'Bearer realm="timebill-api"';

export const authenticationRequired = (headerPresent: boolean, message?: string) =>
  new ApiError(
    'authentication_required', ERROR_TYPES.authentication_required,
    message ?? (headerPresent ? 'The access token is invalid or expired' : 'An access token is required: send Authorization: Bearer <token>'),
    { headers: { 'WWW-Authenticate': headerPresent ? `${WWW_AUTHENTICATE_REALM}, error="invalid_token"` : WWW_AUTHENTICATE_REALM } },
  );

/** 403 naming the scope the operation needs (RFC 6750 §3.1); `scope` may list several, space-separated. */
export const insufficientScope = (scope: string, message = `The access token lacks the scope '${scope}' that this operation requires`) =>
  new ApiError('insufficient_scope', ERROR_TYPES.insufficient_scope, message, {
    headers: { 'WWW-Authenticate': `${WWW_AUTHENTICATE_REALM}, error="insufficient_scope", scope="${scope}"` },
  });

export const preconditionFailed = (kind: string, id: string) =>
  new ApiError('precondition_failed', ERROR_TYPES.precondition_failed, `The ${kind} ${id} has changed since the ETag in If-Match: retrieve it again and retry`);

/**
 * Seconds a caller should wait before retrying after a 503 (see docs/api.md, "When to retry"):
 * short when the dependency is busy (throttling, a write conflict), longer when it failed or did
 * not answer.
 */
export const RETRY_AFTER_SECONDS = { busy: 1, unavailable: 5 } as const;

/** A dependency throttled, failed or did not answer in time, after bounded retries. */
export const serviceUnavailable = (retryAfterSeconds: number, message = 'The service is briefly unavailable: retry after the time in Retry-After') =>
  new ApiError('service_unavailable', ERROR_TYPES.service_unavailable, message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
