/**
 * The environments of the service, as typed configuration kept in the repository: one entry per
 * environment, read by infra/app.ts (one CDK Stage each, with an explicit account and region) and
 * by the stack. Nothing here comes from `-c` flags, so no deploy can silently forget a value.
 *
 * To deploy into your own accounts, edit ENVIRONMENTS below (docs/deploy.md, "Quickstart"):
 * the account ids, regions, addresses and, once you own one, the domain.
 *
 * Plain data and checks only: importing this module does not load aws-cdk-lib.
 */
import { STAGE_THROTTLING } from '../names.ts';
import { FUNCTION_TIMEOUT_SECONDS, worstRequestMs } from '../../shared/data/budget.ts';
import type { TraceSampling } from '../logging.ts';

/**
 * Timeout of functions that call nothing (the OpenAPI document): no retry budget to wait for.
 * The others need the DynamoDB budget's worst request (shared/data/budget.ts) plus headroom.
 */
export const NO_DEPENDENCY_TIMEOUT_SECONDS = 3;

export const ENVIRONMENT_NAMES = ['dev', 'staging', 'prod'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

/** CodeDeploy's predefined Lambda traffic-shifting configurations (LambdaDeploymentConfig). */
export type TrafficShifting =
  | 'ALL_AT_ONCE'
  | 'CANARY_10PERCENT_5MINUTES'
  | 'CANARY_10PERCENT_10MINUTES'
  | 'LINEAR_10PERCENT_EVERY_1MINUTE';

/**
 * Reserved concurrency, sized by the rule written in docs/deploy.md ("Before production") and
 * docs/decisions/0013: bounded whatever the number of routes.
 *   authorizer: stage rate × its worst-case duration (every request may need it);
 *   each route: min(stage rate × its worst-case duration, (account limit − 100 unreserved −
 *   authorizer) ÷ number of routes).
 * The routes share the stage rate, so together they never need more than rate × worst case; one
 * route can get at most the whole rate, and never more than its share of what is left after the
 * authorizer. A function slower than its budget (a dependency degrading) is throttled at its
 * reservation instead of taking the account's concurrency from the authorizer and the others.
 */
export interface ConcurrencyPlan {
  /** Worst-case duration of a healthy invocation, in seconds, per kind of function. */
  readonly worstCaseSeconds: { readonly authorizer: number; readonly read: number; readonly write: number; readonly none: number };
  /** The account's concurrency quota in the region (Lambda keeps 100 of it unreserved). */
  readonly accountConcurrencyLimit: number;
}

export interface DomainConfig {
  /** Route 53 public hosted zone that holds the names below (no lookup: id and name are given). */
  readonly hostedZoneId: string;
  readonly hostedZoneName: string;
  /** The API's name, e.g. api.example.com (certificate created by the stack, DNS-validated in the zone). */
  readonly apiDomainName: string;
  /** The token endpoint's name, e.g. auth.api.example.com. Its parent name must resolve (the API record does). */
  readonly authDomainName: string;
  /** ACM certificate for authDomainName in us-east-1 (Cognito serves custom domains through CloudFront). */
  readonly authCertificateArn: string;
}

export interface BackupConfig {
  /** AWS Backup schedule (cron in UTC), e.g. daily at 03:00. */
  readonly scheduleExpression: string;
  readonly retentionDays: number;
  /** Optional: a vault in another account (and region) that every recovery point is copied to. */
  readonly copyToVaultArn?: string;
  readonly copyRetentionDays?: number;
}

export interface EnvironmentConfig {
  readonly name: EnvironmentName;
  readonly account: string;
  readonly region: string;
  /** Name of the Api stack (it holds the outputs); the other three append their role (`-Data`). Unique per account and region. */
  readonly stackName: string;
  /** Stops `cdk destroy` / a console click from deleting the stack (prod). */
  readonly terminationProtection: boolean;
  /**
   * The Cognito domain prefix (`<prefix>.auth.<region>.amazoncognito.com`). Global per region, so
   * it carries the environment and the account. Written here so that it never changes by accident:
   * a changed prefix makes CloudFormation replace the domain, which fails.
   */
  readonly cognitoDomainPrefix: string;
  /** Retention of every log group in days, a CloudWatch Logs value of at least 365 (default 365; Control Tower). */
  readonly logRetentionDays?: number;
  /**
   * X-Ray sampling of the stage (Lambda follows the stage's decision): DEFAULT_TRACE_SAMPLING of
   * infra/logging.ts (the first request each second, then 1 %) unless given. Each trace recorded
   * costs $5 per million (docs/deploy.md, "Costs").
   */
  readonly tracing?: TraceSampling;
  /** Cognito resource server of the scopes (tokens carry `<identifier>/clients:read`); default timebill-api. */
  readonly resourceServerIdentifier?: string;
  /**
   * API Gateway writes REST API logs through ONE role per account and region (the account setting).
   * Exactly one environment per account and region creates and owns it; the others use it.
   * Deploy the owning environment first.
   */
  readonly ownsApiGatewayAccountRole: boolean;
  /** Who gets paged: the composite alarm's SNS topic subscriptions (a pager's HTTPS endpoint, email). */
  readonly paging: { readonly httpsEndpoints: readonly string[]; readonly emails: readonly string[] };
  readonly deployment: { readonly trafficShifting: TrafficShifting };
  readonly functions: {
    /** Function timeout; must stay above the SDK's retry budget and under API Gateway's 29 s. */
    readonly timeoutSeconds: number;
    /** 'unreserved' for accounts whose concurrency quota is too small to reserve (new accounts). */
    readonly concurrency: ConcurrencyPlan | 'unreserved';
  };
  readonly alarms: {
    readonly apiLatencyP99Ms: number;
    readonly integrationLatencyP99Ms: number;
    readonly serverErrorRatePercent: number;
    /** 401s as a share of requests: a token-verification outage shows as a spike. */
    readonly unauthorizedRatePercent: number;
    /** Per function, on its `live` alias: also rolls a deployment back. */
    readonly functionP99Ms: number;
    readonly dynamoLatencyP99Ms: number;
  };
  readonly table: {
    /**
     * Use an existing table instead of the stack's own (e.g. one restored from PITR, see
     * docs/deploy.md "Restore"). The stack then creates no table.
     */
    readonly tableNameOverride?: string;
    /**
     * Required with the override: the stream of that table (enable NEW_AND_OLD_IMAGES on it and
     * give its LatestStreamArn), which the events consumer reads. An imported table's stream is
     * unknown to CDK, so synthesis refuses the override without it.
     */
    readonly tableStreamArnOverride?: string;
    /** On-demand maximum throughput: a runaway client or bug cannot spend without bound. */
    readonly maxReadRequestUnits: number;
    readonly maxWriteRequestUnits: number;
  };
  readonly domain?: DomainConfig;
  readonly backup?: BackupConfig;
  readonly costs: {
    readonly monthlyBudgetUsd: number;
    /** Budget and Cost Anomaly Detection subscribers. */
    readonly alertEmails: readonly string[];
    /** An anomaly is reported when its total impact is at least this many dollars. */
    readonly anomalyThresholdUsd: number;
    /**
     * WAF rate rule on the Cognito user pool (the token endpoint): requests per source IP per
     * 5 minutes. A client fetching a token per call costs $2.25 per 1,000 tokens.
     */
    readonly tokenRequestsPer5MinutesPerIp: number;
  };
}

/** Defaults shared by every environment; each entry below overrides what differs. */
const SIZING: ConcurrencyPlan = {
  // authorizer: a cache miss verifies the token (JWKS cached in the container) and reads the
  // registry: one GetItem; reads: a Query or GetItem; writes: a transaction plus the idempotency
  // record; none: the static OpenAPI document.
  worstCaseSeconds: { authorizer: 1, read: 0.5, write: 0.5, none: 0.1 },
  accountConcurrencyLimit: 1000,
};

const ALARMS: EnvironmentConfig['alarms'] = {
  apiLatencyP99Ms: 2_000,
  integrationLatencyP99Ms: 1_500,
  serverErrorRatePercent: 1,
  unauthorizedRatePercent: 25,
  functionP99Ms: 3_000,
  dynamoLatencyP99Ms: 100,
};

type Differences = Pick<EnvironmentConfig, 'terminationProtection' | 'paging' | 'deployment' | 'table' | 'costs'> & Partial<EnvironmentConfig>;

/** An environment in eu-west-1 with the names, alarms and sizing every environment shares, and its differences. */
const environment = (name: EnvironmentName, account: string, differences: Differences): EnvironmentConfig => ({
  name,
  account,
  region: 'eu-west-1',
  stackName: `TimebillApi-${name}`,
  cognitoDomainPrefix: `timebill-${name}-${account}`,
  ownsApiGatewayAccountRole: true,
  functions: { timeoutSeconds: FUNCTION_TIMEOUT_SECONDS, concurrency: SIZING },
  alarms: ALARMS,
  ...differences,
});

const alertEmails = ['ops@example.com'];

/** Replace the account ids (and addresses) with yours before the first deploy. */
export const ENVIRONMENTS: Record<EnvironmentName, EnvironmentConfig> = {
  dev: environment('dev', '111111111111', {
    terminationProtection: false,
    paging: { httpsEndpoints: [], emails: [] },
    deployment: { trafficShifting: 'ALL_AT_ONCE' },
    // A new account's Lambda quota can be as low as 10: reserve nothing in dev.
    functions: { timeoutSeconds: FUNCTION_TIMEOUT_SECONDS, concurrency: 'unreserved' },
    table: { maxReadRequestUnits: 1_000, maxWriteRequestUnits: 500 },
    costs: { monthlyBudgetUsd: 50, alertEmails, anomalyThresholdUsd: 20, tokenRequestsPer5MinutesPerIp: 300 },
  }),
  staging: environment('staging', '222222222222', {
    terminationProtection: false,
    paging: { httpsEndpoints: [], emails: ['ops@example.com'] },
    deployment: { trafficShifting: 'CANARY_10PERCENT_5MINUTES' },
    table: { maxReadRequestUnits: 4_000, maxWriteRequestUnits: 2_000 },
    costs: { monthlyBudgetUsd: 100, alertEmails, anomalyThresholdUsd: 20, tokenRequestsPer5MinutesPerIp: 300 },
  }),
  prod: environment('prod', '333333333333', {
    // The first environment's name, kept as the stack's historical name.
    stackName: 'TimebillApi',
    terminationProtection: true,
    paging: { httpsEndpoints: [], emails: ['oncall@example.com'] },
    deployment: { trafficShifting: 'CANARY_10PERCENT_5MINUTES' },
    table: { maxReadRequestUnits: 10_000, maxWriteRequestUnits: 5_000 },
    backup: { scheduleExpression: 'cron(0 3 * * ? *)', retentionDays: 35 },
    costs: { monthlyBudgetUsd: 500, alertEmails, anomalyThresholdUsd: 50, tokenRequestsPer5MinutesPerIp: 300 },
  }),
};

/** A DynamoDB stream ARN: region, account, table name. */
const STREAM_ARN = /^arn:aws[\w-]*:dynamodb:([a-z0-9-]+):(\d{12}):table\/([A-Za-z0-9_.-]{3,255})\/stream\/[\w:.-]+$/;

/** Why a table-name override without its stream is refused (the configuration check and the stack say the same). */
export const streamArnMissing = (environment: string) =>
  `${environment}: table.tableNameOverride needs table.tableStreamArnOverride: the events consumer reads the table's stream, which CDK cannot find on a table it does not own. ` +
  'Enable it on that table (aws dynamodb update-table --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES) and give its LatestStreamArn (docs/deploy.md, "Restoring for real").';

/** Lambda keeps this much of the account's concurrency unreserved. */
export const UNRESERVED_MINIMUM = 100;

export type FunctionKind = keyof ConcurrencyPlan['worstCaseSeconds'];

/** What the authorizer reserves: stage rate × its worst-case duration, rounded up. */
export function authorizerReservation(plan: ConcurrencyPlan, stageRate = STAGE_THROTTLING.rateLimit): number {
  return Math.ceil(stageRate * plan.worstCaseSeconds.authorizer);
}

/** The most any one route may reserve: its equal share of what the authorizer and Lambda leave. */
export function routeShare(plan: ConcurrencyPlan, routeCount: number, stageRate = STAGE_THROTTLING.rateLimit): number {
  return Math.max(0, Math.floor((plan.accountConcurrencyLimit - UNRESERVED_MINIMUM - authorizerReservation(plan, stageRate)) / Math.max(1, routeCount)));
}

/**
 * The sizing rule: the authorizer reserves stage rate × worst case; a route the smaller of stage
 * rate × its worst case and its share (routeShare), so the total stays within the account's
 * limit minus the unreserved minimum however many routes there are.
 */
export function reservedConcurrency(plan: ConcurrencyPlan, kind: FunctionKind, routeCount: number, stageRate = STAGE_THROTTLING.rateLimit): number {
  if (kind === 'authorizer') return authorizerReservation(plan, stageRate);
  return Math.min(Math.ceil(stageRate * plan.worstCaseSeconds[kind]), routeShare(plan, routeCount, stageRate));
}

/** What the functions of these kinds reserve together (the authorizer once, each other kind one route). */
export function reservedTotal(plan: ConcurrencyPlan, functionKinds: readonly FunctionKind[]): number {
  const routeCount = functionKinds.filter((kind) => kind !== 'authorizer').length;
  return functionKinds.reduce((sum, kind) => sum + reservedConcurrency(plan, kind, routeCount), 0);
}

/** Everything an environment entry must satisfy; `cdk synth` refuses a configuration that breaks a rule. */
export function configurationErrors(environments: readonly EnvironmentConfig[], functionKinds: readonly FunctionKind[]): string[] {
  const errors: string[] = [];
  const seen = (key: (e: EnvironmentConfig) => string, what: string) => {
    const counts = new Map<string, string[]>();
    for (const e of environments) counts.set(key(e), [...(counts.get(key(e)) ?? []), e.name]);
    for (const [value, names] of counts) if (names.length > 1) errors.push(`${names.join(', ')} share ${what} ${value}`);
  };
  for (const e of environments) {
    const at = `${e.name}:`;
    if (!/^\d{12}$/.test(e.account)) errors.push(`${at} account must be 12 digits`);
    if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(e.region)) errors.push(`${at} region ${e.region} is not a region name`);
    // Cognito: lowercase letters, digits and hyphens, no leading/trailing hyphen, and no reserved words.
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(e.cognitoDomainPrefix) || /aws|amazon|cognito/.test(e.cognitoDomainPrefix)) {
      errors.push(`${at} cognitoDomainPrefix ${e.cognitoDomainPrefix} is not a valid Cognito domain prefix`);
    }
    if (!e.cognitoDomainPrefix.includes(e.name)) errors.push(`${at} cognitoDomainPrefix must contain the environment name`);
    if (e.functions.timeoutSeconds * 1000 <= worstRequestMs() || e.functions.timeoutSeconds >= 29) {
      errors.push(`${at} timeoutSeconds must exceed the DynamoDB budget's worst request (${worstRequestMs()} ms) and stay under API Gateway's 29 s`);
    }
    if (e.costs.alertEmails.length === 0) errors.push(`${at} costs.alertEmails needs at least one address`);
    if (e.name === 'prod' && !e.terminationProtection) errors.push(`${at} prod must have termination protection`);
    if (e.name === 'prod' && e.paging.emails.length + e.paging.httpsEndpoints.length === 0) errors.push(`${at} prod must page someone`);
    if (e.tracing && !(e.tracing.fixedRate >= 0 && e.tracing.fixedRate <= 1 && Number.isInteger(e.tracing.reservoirPerSecond) && e.tracing.reservoirPerSecond >= 0)) {
      errors.push(`${at} tracing needs a fixedRate from 0 to 1 and a whole reservoirPerSecond of 0 or more`);
    }
    if (e.table.maxReadRequestUnits < 1 || e.table.maxWriteRequestUnits < 1) errors.push(`${at} table max request units must be positive`);
    if (e.table.tableNameOverride !== undefined && e.table.tableStreamArnOverride === undefined) errors.push(streamArnMissing(e.name));
    if (e.table.tableStreamArnOverride !== undefined) {
      const stream = STREAM_ARN.exec(e.table.tableStreamArnOverride);
      if (!stream || stream[1] !== e.region || stream[2] !== e.account || stream[3] !== e.table.tableNameOverride) {
        errors.push(`${at} table.tableStreamArnOverride must be a stream of table ${e.table.tableNameOverride ?? '(no tableNameOverride)'} in ${e.account}/${e.region} (arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>)`);
      }
    }
    if (e.domain && !/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\//.test(e.domain.authCertificateArn)) {
      errors.push(`${at} domain.authCertificateArn must be an ACM certificate in us-east-1`);
    }
    if (e.domain && !e.domain.apiDomainName.endsWith(e.domain.hostedZoneName)) errors.push(`${at} apiDomainName must be in the hosted zone`);
    if (e.domain && !e.domain.authDomainName.endsWith(e.domain.hostedZoneName)) errors.push(`${at} authDomainName must be in the hosted zone`);
    if (e.functions.concurrency !== 'unreserved') {
      const plan = e.functions.concurrency;
      const total = reservedTotal(plan, functionKinds);
      if (total > plan.accountConcurrencyLimit - UNRESERVED_MINIMUM) {
        errors.push(`${at} reserved concurrency ${total} exceeds the account limit ${plan.accountConcurrencyLimit} minus ${UNRESERVED_MINIMUM} unreserved`);
      }
      // A reservation of 0 would disable a function.
      const routes = functionKinds.filter((kind) => kind !== 'authorizer').length;
      if (routes > 0 && routeShare(plan, routes) < 1) errors.push(`${at} ${routes} routes leave no reserved concurrency for each route: raise accountConcurrencyLimit`);
    }
  }
  seen((e) => e.name, 'the name');
  seen((e) => `${e.account}/${e.region}/${e.stackName}`, 'the stack');
  seen((e) => `${e.region}/${e.cognitoDomainPrefix}`, 'the Cognito domain prefix');
  const accountRegions = new Set(environments.map((e) => `${e.account}/${e.region}`));
  for (const accountRegion of accountRegions) {
    const owners = environments.filter((e) => `${e.account}/${e.region}` === accountRegion && e.ownsApiGatewayAccountRole);
    if (owners.length !== 1) {
      errors.push(`${accountRegion}: exactly one environment must own the API Gateway logging role (has ${owners.map((o) => o.name).join(', ') || 'none'})`);
    }
  }
  return errors;
}
