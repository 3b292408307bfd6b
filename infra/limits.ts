/**
 * Fair limits in AWS: the usage plans that throttle and meter each API client, the API key of
 * invalid-token traffic, and the AWS WAF web ACL on the stage. The plans come from
 * shared/core/plan-limits.ts (the local gateway emulates the same ones); rates, bursts, quotas and the
 * firewall's per-IP threshold are stack properties. See docs/deploy.md (plans, keys, WAF, costs).
 */
import { Aws, CfnOutput, Fn } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { INVALID_TOKEN_PLAN, PLAN_NAMES, USAGE_PLANS, usagePlanName, type PlanLimits, type PlanName } from '../shared/core/plan-limits.ts';
import { usagePlanOutput } from './names.ts';
import { SECURITY_HEADERS } from '../shared/http/security-headers.ts';
import { WWW_AUTHENTICATE_REALM } from '../shared/core/errors.ts';
import { ROUTES } from '../shared/api/routes.ts';

export interface ClientLimitsProps {
  /** Rate, burst and monthly quota of each plan; the values of shared/core/plan-limits.ts by default. */
  readonly usagePlans?: Partial<Record<PlanName, PlanLimits>>;
  /** The plan of the invalid-token API key; INVALID_TOKEN_PLAN by default. */
  readonly invalidTokenPlan?: PlanLimits;
  /** Requests per source IP in any 5 minutes before AWS WAF answers 429; WAF_RATE_LIMIT_PER_IP by default. */
  readonly wafRateLimitPerIp?: number;
}

/**
 * Per source IP in 5 minutes: about 67 requests per second sustained, above the largest plan's
 * rate (an integration usually calls from one address) and below the stage's. It stops one
 * address flooding before API Gateway, which the usage plans cannot: a flood of garbage tokens
 * still invokes the authorizer for each request before its plan refuses it.
 */
export const WAF_RATE_LIMIT_PER_IP = 20_000;
export const WAF_RATE_WINDOW_SECONDS = 300;
/** Seconds in Retry-After of the firewall's 429: WAF re-evaluates its rate over a sliding window. */
export const WAF_RETRY_AFTER_SECONDS = 60;

/** The managed rule groups, and the rule of the common set that is only counted. */
export const MANAGED_RULE_GROUPS = ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet'] as const;
/**
 * AWSManagedRulesCommonRuleSet's SizeRestrictions_BODY blocks every body over 8 KB; the API
 * accepts JSON bodies up to 64 KiB (shared/http), so that rule would refuse legitimate requests.
 * It counts instead (its matches stay visible in the WAF metrics and sampled requests); the
 * handlers enforce the real limit with 413 payload_too_large.
 */
export const COUNTED_RULES = ['SizeRestrictions_BODY'] as const;
const COUNTED_LABELS = ['awswaf:managed:aws:core-rule-set:SizeRestrictions_Body'];
const MANAGED_LABEL_NAMESPACES = ['awswaf:managed:aws:core-rule-set:', 'awswaf:managed:aws:known-bad-inputs:'];

/**
 * The firewall's answers in the contract's error body. WAF answers before API Gateway assigns a
 * request id, and its bodies are static, so `request_id` is null and there is no X-Request-Id.
 */
export const WAF_RESPONSE_BODIES = {
  rate_limited: {
    status: 429,
    message: 'Too many requests from this address: slow down and retry after the time in Retry-After',
  },
  forbidden: {
    status: 403,
    message: 'The request was refused by the web application firewall',
  },
  authentication_required: {
    status: 401,
    message: 'An access token is required: send Authorization: Bearer <token>',
  },
} as const;

/**
 * A protected route's (method, path) as the firewall sees the URI: the stage name, or a custom
 * domain's base path of one segment, may come before it (a deeper base path passes the rule, and
 * the authorizer answers 401 instead), and `{id}` is one path segment. Every other request (the
 * public document, an unknown path or method) passes the rule, so an unknown path is a 404 with a
 * token or without, as the contract says, and the public document needs none.
 */
export function protectedPathPatterns(): Map<string, string> {
  const byMethod = new Map<string, string[]>();
  for (const route of ROUTES) {
    if (route.scope === null) continue;
    byMethod.set(route.method, [...(byMethod.get(route.method) ?? []), route.path.replace(/\{[^}]+\}/g, '[^/]+')]);
  }
  const patterns = new Map([...byMethod].map(([method, paths]) => [method, `^(/[^/]+)?(${paths.join('|')})$`]));
  for (const [method, pattern] of patterns) {
    if (pattern.length > WAF_MAX_REGEX_LENGTH) {
      throw new Error(`The firewall's ${method} route pattern is ${pattern.length} characters, over WAF's ${WAF_MAX_REGEX_LENGTH}: split it into a regex pattern set`);
    }
  }
  return patterns;
}

/** WAF's limit on a regex match statement's pattern. */
export const WAF_MAX_REGEX_LENGTH = 512;

/**
 * Matches a request to a protected route without `Authorization: Bearer …` (the scheme in any
 * case): the firewall answers it 401 before it reaches the stage, so a flood without a token never
 * spends the stage's rate that API clients share (docs/api.md, Limits).
 */
function requireBearerToken(): wafv2.CfnWebACL.StatementProperty {
  const noBearer: wafv2.CfnWebACL.StatementProperty = {
    notStatement: {
      statement: {
        byteMatchStatement: {
          fieldToMatch: { singleHeader: { Name: 'authorization' } },
          positionalConstraint: 'STARTS_WITH',
          searchString: 'bearer ',
          textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
        },
      },
    },
  };
  const none = [{ priority: 0, type: 'NONE' }];
  const protectedRoute = [...protectedPathPatterns()].map(([method, pattern]) => ({
    andStatement: {
      statements: [
        { byteMatchStatement: { fieldToMatch: { method: {} }, positionalConstraint: 'EXACTLY', searchString: method, textTransformations: none } },
        { regexMatchStatement: { fieldToMatch: { uriPath: {} }, regexString: pattern, textTransformations: none } },
      ],
    },
  }));
  return { andStatement: { statements: [noBearer, protectedRoute.length === 1 ? protectedRoute[0]! : { orStatement: { statements: protectedRoute } }] } };
}
export const wafResponseBody = (type: keyof typeof WAF_RESPONSE_BODIES) =>
  JSON.stringify({ error: { type, message: WAF_RESPONSE_BODIES[type].message, request_id: null } });

export interface ClientLimits {
  readonly plans: ReadonlyMap<PlanName, apigw.UsagePlan>;
  readonly invalidTokenPlan: apigw.UsagePlan;
  readonly invalidTokenKey: apigw.IApiKey;
  readonly webAcl: wafv2.CfnWebACL;
}

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

/**
 * One key for every request whose token is invalid, in a plan of its own (addClientLimits), made
 * beside the authorizer that returns it. Its value is not a secret (keys come from the authorizer
 * only; a caller cannot present one) but must be unique in the account and region: the id of the
 * authorizer's stack makes it so.
 */
export function invalidTokenApiKey(scope: Construct, authorizer: lambda.Function): apigw.ApiKey {
  const value = Fn.join('', ['invalid-token-', Fn.select(2, Fn.split('/', Aws.STACK_ID))]);
  const key = new apigw.ApiKey(scope, 'InvalidTokenApiKey', {
    apiKeyName: Fn.join('-', [Aws.STACK_NAME, 'invalid-token']),
    description: 'Metering key of requests with an invalid token (returned by the authorizer)',
    value,
    enabled: true,
  });
  authorizer.addEnvironment('INVALID_TOKEN_API_KEY', value);
  return key;
}

/** The usage plans (the invalid-token key in its own) and the web ACL of `api`'s stage. */
export function addClientLimits(scope: Construct, api: apigw.RestApi, invalidTokenKey: apigw.IApiKey, props: ClientLimitsProps = {}): ClientLimits {
  const construct = new Construct(scope, 'ClientLimits');
  const stage = api.deploymentStage;
  const usagePlan = (id: string, name: string, limits: PlanLimits, description: string) =>
    new apigw.UsagePlan(construct, id, {
      name,
      description,
      apiStages: [{ api, stage }],
      throttle: { rateLimit: limits.rateLimit, burstLimit: limits.burstLimit },
      ...(limits.monthlyQuota !== undefined ? { quota: { limit: limits.monthlyQuota, period: apigw.Period.MONTH } } : {}),
    });

  const plans = new Map<PlanName, apigw.UsagePlan>();
  for (const plan of PLAN_NAMES) {
    const limits = { ...USAGE_PLANS[plan], ...props.usagePlans?.[plan] };
    const id = `UsagePlan${plan.charAt(0).toUpperCase()}${plan.slice(1)}`;
    plans.set(plan, usagePlan(id, usagePlanName(plan), limits, `Timebill API integrations on the ${plan} plan (npm run integration:create -- --plan ${plan})`));
    new CfnOutput(scope, usagePlanOutput(plan), { value: plans.get(plan)!.usagePlanId, description: `Usage plan ${plan}` });
  }

  const invalidTokenPlan = usagePlan(
    'UsagePlanInvalidToken',
    usagePlanName('invalid-token'),
    props.invalidTokenPlan ?? INVALID_TOKEN_PLAN,
    'Requests with an invalid token: answered 401 by the handler, throttled apart from every integration',
  );
  invalidTokenPlan.addApiKey(invalidTokenKey);

  const customResponse = (type: keyof typeof WAF_RESPONSE_BODIES, headers: Record<string, string>): wafv2.CfnWebACL.BlockActionProperty => ({
    customResponse: {
      responseCode: WAF_RESPONSE_BODIES[type].status,
      customResponseBodyKey: type,
      // nosniff and HSTS on the firewall's answers too: every response carries them.
      responseHeaders: Object.entries({ 'Cache-Control': 'no-store', ...SECURITY_HEADERS, ...headers }).map(([name, value]) => ({ name, value })),
    },
  });

  const webAcl = new wafv2.CfnWebACL(construct, 'WebAcl', {
    name: Fn.join('-', [Aws.STACK_NAME, 'api']),
    description: 'Timebill API stage: per-IP rate limit and AWS managed rules, answering in the API error body',
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('TimebillApiWebAcl'),
    customResponseBodies: Object.fromEntries(
      (Object.keys(WAF_RESPONSE_BODIES) as (keyof typeof WAF_RESPONSE_BODIES)[]).map((type) => [
        type,
        { contentType: 'APPLICATION_JSON', content: wafResponseBody(type) },
      ]),
    ),
    rules: [
      {
        name: 'RateLimitPerIp',
        priority: 0,
        statement: {
          rateBasedStatement: {
            limit: props.wafRateLimitPerIp ?? WAF_RATE_LIMIT_PER_IP,
            evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
            aggregateKeyType: 'IP',
          },
        },
        action: { block: customResponse('rate_limited', { 'Retry-After': String(WAF_RETRY_AFTER_SECONDS) }) },
        visibilityConfig: visibility('RateLimitPerIp'),
      },
      {
        name: 'RequireBearerToken',
        priority: 1,
        statement: requireBearerToken(),
        action: { block: customResponse('authentication_required', { 'WWW-Authenticate': WWW_AUTHENTICATE_REALM }) },
        visibilityConfig: visibility('RequireBearerToken'),
      },
      // The managed groups only count and label; BlockManagedRuleMatches blocks on their labels,
      // which is how a managed rule's block gets the custom (contract) response.
      ...MANAGED_RULE_GROUPS.map((name, i) => ({
        name,
        priority: 2 + i,
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name,
            // Stays counted even if the group's override is ever removed.
            ...(name === 'AWSManagedRulesCommonRuleSet'
              ? { ruleActionOverrides: COUNTED_RULES.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
              : {}),
          },
        },
        overrideAction: { count: {} },
        visibilityConfig: visibility(name),
      })),
      {
        name: 'BlockManagedRuleMatches',
        priority: 2 + MANAGED_RULE_GROUPS.length,
        statement: {
          andStatement: {
            statements: [
              {
                orStatement: {
                  statements: MANAGED_LABEL_NAMESPACES.map((key) => ({ labelMatchStatement: { scope: 'NAMESPACE', key } })),
                },
              },
              ...COUNTED_LABELS.map((key) => ({ notStatement: { statement: { labelMatchStatement: { scope: 'LABEL', key } } } })),
            ],
          },
        },
        action: { block: customResponse('forbidden', {}) },
        visibilityConfig: visibility('BlockManagedRuleMatches'),
      },
    ],
  });
  new wafv2.CfnWebACLAssociation(construct, 'WebAclAssociation', { resourceArn: stage.stageArn, webAclArn: webAcl.attrArn });

  return { plans, invalidTokenPlan, invalidTokenKey, webAcl };
}
