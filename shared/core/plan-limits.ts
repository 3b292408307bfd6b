/**
 * The limits per API client: the usage plans of API Gateway, declared once. The CDK stack turns
 * them into usage plans (infra/limits.ts), the local gateway into a token bucket per API client
 * (infra/local/client-limits.ts), and the docs quote them. Plain constants: no aws-cdk-lib here.
 */

export interface PlanLimits {
  /** Steady requests per second (API Gateway's token bucket refill rate). */
  readonly rateLimit: number;
  /** Requests that may arrive at once (the bucket's size). */
  readonly burstLimit: number;
  /** Requests per calendar month (UTC); undefined: no quota. */
  readonly monthlyQuota: number | undefined;
}

/**
 * The plans an integration can be on. `default` is what `npm run integration:create` uses unless
 * `--plan` says otherwise. Peers for scale: Harvest allows 100 requests per 15 s per token
 * (about 7/s), Clockify 50/s per key.
 */
export const USAGE_PLANS = {
  default: { rateLimit: 10, burstLimit: 20, monthlyQuota: 1_000_000 },
  large: { rateLimit: 50, burstLimit: 100, monthlyQuota: 10_000_000 },
} as const satisfies Record<string, PlanLimits>;

export type PlanName = keyof typeof USAGE_PLANS;
export const PLAN_NAMES = Object.keys(USAGE_PLANS) as PlanName[];
export const DEFAULT_PLAN: PlanName = 'default';

export const isPlanName = (value: unknown): value is PlanName => typeof value === 'string' && Object.hasOwn(USAGE_PLANS, value);

/**
 * Requests whose token is invalid still need an API key (an authorizer Allow without one becomes
 * API Gateway's 403, and the contract wants the handler's 401). They all share one key in this
 * small plan, so garbage tokens are throttled apart from every real integration. No quota: a
 * spent quota would answer an honest client with an expired token 429 for the rest of the month.
 */
export const INVALID_TOKEN_PLAN: PlanLimits = { rateLimit: 5, burstLimit: 10, monthlyQuota: undefined };

/** `10 requests/s, bursts of 20, 1,000,000 requests a month`: how the docs and scripts state a plan. */
export function describePlan(plan: PlanName): string {
  const { rateLimit, burstLimit, monthlyQuota } = USAGE_PLANS[plan];
  return `${rateLimit} requests/s, bursts of ${burstLimit}${monthlyQuota === undefined ? '' : `, ${monthlyQuota.toLocaleString('en-US')} requests a month`}`;
}

/** The usage-plan name of a plan in AWS (`timebill-api-default`). */
export const usagePlanName = (plan: PlanName | 'invalid-token') => `timebill-api-${plan}`;

/**
 * Seconds in Retry-After of a 429 `quota_exceeded`. Gateway responses are static, so this cannot
 * be the time left until the quota resets (the first of the next month, UTC); an hour is a
 * polite retry interval for a client that cannot tell the two 429s apart.
 */
export const QUOTA_RETRY_AFTER_SECONDS = 3600;
/** Seconds in Retry-After of a 429 `rate_limited` from API Gateway (a bucket refills within a second). */
export const THROTTLE_RETRY_AFTER_SECONDS = 1;
