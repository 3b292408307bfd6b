/**
 * The local stand-in for API Gateway's usage plans: a token bucket and a monthly count per API
 * key (the authorizer's usageIdentifierKey), with the limits of shared/core/plan-limits.ts. The local
 * gateway asks it after the authorizer and before the stage's bucket, in API Gateway's order
 * (per-client limits first, then the stage's), so that a client over its limit never spends the
 * stage's tokens and never slows another client.
 *
 * In AWS the plan of a key is the usage plan that holds it; locally it is the registry's `plan`,
 * which the authorizer passes in its context (`usagePlan`).
 */
import { DEFAULT_PLAN, INVALID_TOKEN_PLAN, USAGE_PLANS, isPlanName, type PlanLimits } from '../../shared/core/plan-limits.ts';

export interface BucketLimits {
  rateLimit: number;
  burstLimit: number;
}

/** API Gateway's throttle: a bucket of `burstLimit` tokens refilled at `rateLimit` per second. */
export function tokenBucket({ rateLimit, burstLimit }: BucketLimits, now: () => number = Date.now) {
  let tokens = burstLimit;
  let last = now();
  return {
    take(): boolean {
      const t = now();
      tokens = Math.min(burstLimit, tokens + ((t - last) / 1000) * rateLimit);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

export interface ClientLimitOptions {
  /** Replaces the rate and burst of every integration's plan (CLIENT_RATE_LIMIT / CLIENT_BURST_LIMIT). */
  override?: Partial<BucketLimits>;
  /** Replaces every integration's monthly quota (tests; undefined keeps the plans'). */
  monthlyQuota?: number;
  /** The limits of the invalid-token key; INVALID_TOKEN_PLAN by default. */
  invalidToken?: PlanLimits;
}

export type LimitHit = 'THROTTLED' | 'QUOTA_EXCEEDED';

/** `YYYY-MM` in UTC: API Gateway's MONTH quota period starts on the first, 00:00 UTC. */
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

export function clientLimiter(invalidTokenKey: string, options: ClientLimitOptions = {}, now: () => number = Date.now) {
  const buckets = new Map<string, ReturnType<typeof tokenBucket>>();
  const counts = new Map<string, { month: string; used: number }>();

  const limitsOf = (usageKey: string, plan: unknown): PlanLimits => {
    if (usageKey === invalidTokenKey) return options.invalidToken ?? INVALID_TOKEN_PLAN;
    const base: PlanLimits = USAGE_PLANS[isPlanName(plan) ? plan : DEFAULT_PLAN];
    return {
      rateLimit: options.override?.rateLimit ?? base.rateLimit,
      burstLimit: options.override?.burstLimit ?? base.burstLimit,
      monthlyQuota: options.monthlyQuota ?? base.monthlyQuota,
    };
  };

  return {
    limitsOf,
    /** Spends one request of the key; says which limit refused it, if one did. */
    admit(usageKey: string, plan: unknown): LimitHit | undefined {
      const limits = limitsOf(usageKey, plan);
      let bucket = buckets.get(usageKey);
      if (!bucket) {
        bucket = tokenBucket(limits, now);
        buckets.set(usageKey, bucket);
      }
      if (!bucket.take()) return 'THROTTLED';
      if (limits.monthlyQuota !== undefined) {
        const month = monthOf(now());
        const count = counts.get(usageKey);
        const used = count?.month === month ? count.used : 0;
        if (used >= limits.monthlyQuota) return 'QUOTA_EXCEEDED';
        counts.set(usageKey, { month, used: used + 1 });
      }
      return undefined;
    },
  };
}

/**
 * CLIENT_RATE_LIMIT / CLIENT_BURST_LIMIT from an environment: positive numbers (the burst an
 * integer), or absent. Throws a message naming the variable otherwise.
 */
export const clientLimitsFromEnv = (env: Record<string, string | undefined>): Partial<BucketLimits> =>
  bucketLimitsFromEnv(env, 'CLIENT_RATE_LIMIT', 'CLIENT_BURST_LIMIT');

/** THROTTLE_RATE / THROTTLE_BURST (the stage's bucket), read as CLIENT_RATE_LIMIT / CLIENT_BURST_LIMIT are. */
export const stageLimitsFromEnv = (env: Record<string, string | undefined>): Partial<BucketLimits> =>
  bucketLimitsFromEnv(env, 'THROTTLE_RATE', 'THROTTLE_BURST');

/** A bucket's rate and burst from two variables: positive numbers (the burst an integer), or absent (unset or empty). */
function bucketLimitsFromEnv(env: Record<string, string | undefined>, rateName: string, burstName: string): Partial<BucketLimits> {
  const read = (name: string, integer: boolean): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
      throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, not '${raw}'`);
    }
    return value;
  };
  const rateLimit = read(rateName, false);
  const burstLimit = read(burstName, true);
  return { ...(rateLimit !== undefined ? { rateLimit } : {}), ...(burstLimit !== undefined ? { burstLimit } : {}) };
}
