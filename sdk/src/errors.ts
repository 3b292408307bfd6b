import type { ApiErrorBody, BillingRun } from './types.ts';

/**
 * The error types the API answers, plus two of the SDK's own: `connection_error` (no response:
 * the network failed or the request timed out, after the retries) and `invalid_response` (a
 * response that is not the API's JSON error, such as a proxy's HTML page).
 */
export type TimebillErrorType = ApiErrorBody['type'] | 'connection_error' | 'invalid_response';

/** Every failure of a call: an error response of the API (after the retries), or no response. */
export class TimebillError extends Error {
  override readonly name = 'TimebillError';
  /** The HTTP status; 0 when no response came (`connection_error`). */
  readonly status: number;
  readonly type: TimebillErrorType;
  /** The request field, parameter or header at fault, when the API names one. */
  readonly param: string | null;
  /** Every invalid field of an `invalid_request`, when the API lists several. */
  readonly errors: readonly { param: string; message: string }[];
  /** The API's request id (the error's `request_id`, or the `X-Request-Id` header): quote it to support. */
  readonly requestId: string | null;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | null;

  constructor(init: {
    status: number;
    type: TimebillErrorType;
    message: string;
    param?: string | null;
    errors?: readonly { param: string; message: string }[];
    requestId?: string | null;
    retryAfter?: number | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.type = init.type;
    this.param = init.param ?? null;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** A webhook delivery that is not signed by the endpoint's secret, or too old or too new. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** `billingRuns.waitForCompletion` saw no `completed` run within its `timeoutMs`: the run goes on; wait again, or retrieve it later. */
export class BillingRunTimeoutError extends Error {
  override readonly name = 'BillingRunTimeoutError';

  constructor(
    /** The run waited for. */
    readonly id: string,
    readonly timeoutMs: number,
    /** The run as last retrieved (`status`, `clients_done` of `clients_total`), null when no retrieve answered in time. */
    readonly run: BillingRun | null,
  ) {
    super(`Billing run ${id} did not complete within ${timeoutMs} ms${run ? ` (last seen ${run.status}, ${run.clients_done} of ${run.clients_total} clients done)` : ''}`);
  }
}
