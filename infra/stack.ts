/**
 * The whole service of one environment, in five stacks with one role each (decisions 0014, 0031):
 *
 *   Data        the table and its stream, its backups, the cursor signing key, the logs key and
 *               every log group, the Cognito user pool (it holds the integrations) and the two
 *               alarm topics (people confirm their subscriptions): what must outlive every deploy;
 *   Functions   one Lambda function per operation of shared/api/routes.ts and per background function,
 *               with its role, `live` alias, CodeDeploy group and rollback alarms, the queues, and
 *               the API key the authorizer returns for invalid tokens;
 *   Billing     the same for the billing routes (invoices and their payments), with their own
 *               CodeDeploy application and pre-traffic hook: a second stack of functions, so that
 *               routes still fit under CloudFormation's resource limit;
 *   Api         the REST API (API Gateway) with its Lambda TOKEN authorizer, methods, gateway
 *               responses of shared/http/gateway-responses.ts, usage plans, web ACL, custom
 *               domains and every output the operator scripts read;
 *   Operations  the paging alarms and their composite, the dashboard and the cost guards.
 *
 * Each stack refers only to the ones before it, so `cdk deploy --all` deploys them in that order.
 * Everything is derived from the route, resource and table declarations; nothing about a route is
 * written twice. No lookups, so `cdk synth` needs no credentials or network.
 */
import * as path from 'node:path';
import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type Acknowledgment, type Environment } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';
import { AUTHORIZER_ENTRY, ROUTES, SCOPES, accessOf, signsCursors, type Route } from '../shared/api/routes.ts';
import { BACKGROUND_FUNCTIONS, type BackgroundFunction } from '../shared/api/background.ts';
import { TABLE } from '../shared/data/table.ts';
import { GATEWAY_RESPONSES, gatewayResponseTemplate, type GatewayResponseDefinition } from '../shared/http/gateway-responses.ts';
import { bindTable, type TableAccess } from './access.ts';
import {
  AUTHORIZER_CACHE_TTL_SECONDS,
  BINARY_MEDIA_TYPES,
  FUNCTION_MEMORY_MB,
  OUTPUTS,
  RESOURCE_SERVER_IDENTIFIER,
  STAGE_NAME,
  STAGE_THROTTLING,
} from './names.ts';
import { PROJECT_ROOT, cdkBundlingOptions } from './bundling.ts';
import { FONT_FILE } from '../shared/document/font.ts';
import { addClientLimits, invalidTokenApiKey, type ClientLimits, type ClientLimitsProps } from './limits.ts';
import { ENVIRONMENTS, NO_DEPENDENCY_TIMEOUT_SECONDS, reservedConcurrency, streamArnMissing, type EnvironmentConfig, type FunctionKind } from './config/environments.ts';
import { AUTHORIZER_OPERATION, SafeDeployments, acknowledgeDeploymentFindings, type DeployableFunction, type DeployedFunction } from './operations/deployments.ts';
import { ONE_MINUTE, PagingAlarms, pagingAlarm } from './operations/alarms.ts';
import { OperationsDashboard } from './operations/dashboard.ts';
import { CustomDomains } from './operations/domain.ts';
import { CostGuards } from './operations/cost-guards.ts';
import { TableBackup, acknowledgeBackupFindings } from './operations/backup.ts';
import { EncryptedLogs, checkedLogRetention } from './observability.ts';
import { ACCESS_LOG_FORMAT, DEFAULT_TRACE_SAMPLING, FUNCTION_LOGGING } from './logging.ts';

export { ACCESS_LOG_FORMAT, FUNCTION_MEMORY_MB, OUTPUTS, RESOURCE_SERVER_IDENTIFIER, STAGE_NAME };

/** The newest Node.js runtime of the installed aws-cdk-lib (2.276.0). */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_24_X;
export const SERVICE_NAME = 'timebill-api';
/**
 * The AWS Parameters and Secrets Lambda Extension (a layer AWS publishes per region and
 * architecture) of the functions that read a secret: it caches a secret 5 minutes (its default),
 * longer than a cursor key needs; errors only in the function's logs.
 */
const PARAMS_AND_SECRETS = lambda.ParamsAndSecretsLayerVersion.fromVersion(lambda.ParamsAndSecretsVersions.V1_0_103, {
  logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
});
/** Namespace of the metric counted from the access log (429s). */
export const METRICS_NAMESPACE = 'TimebillApi';

/** Attempts of a failing stream batch (each failure bisects it) before its records go to the on-failure queue. */
export const STREAM_RETRY_ATTEMPTS = 10;
/**
 * Stream records older than this go to the on-failure queue unprocessed: half of the stream's
 * 24-hour retention, so an outage of the consumer up to 12 h needs nothing, and the records of a
 * longer one can still be read from the stream and replayed for 12 h (docs/deploy.md).
 */
export const STREAM_MAX_RECORD_AGE = Duration.hours(12);
/**
 * How long each event source mapping gathers records before it invokes (decision 0018): a stream
 * batch holds a second of a shard's changes, appended in one transaction per workspace, and a
 * queue batch up to 10 deliveries, received and deleted together. A second more of feed and
 * delivery lag, well inside events.md's.
 */
export const EVENTS_BATCHING_WINDOW = Duration.seconds(1);
/** At most this many invocations of a queue consumer at once (SQS event source maximum concurrency). */
export const QUEUE_CONSUMER_MAX_CONCURRENCY = 10;
/**
 * Every queue keeps messages SQS's longest, 14 days: more than a delivery's whole retry span (3+
 * days, decision 0010), and a dead letter keeps its original enqueue time, so it still has 10 days
 * in the dead-letter queue to be looked at and redriven.
 */
export const QUEUE_RETENTION = Duration.days(14);
/** A stream consumer more than this behind its stream pages (3 of 5 minutes): the feed lags. */
export const ITERATOR_AGE_ALARM_MS = 60_000;

/** The five stacks of an environment, in deploy order (each refers only to those before it). */
export const STACK_ROLES = ['Data', 'Functions', 'Billing', 'Api', 'Operations'] as const;
export type StackRole = (typeof STACK_ROLES)[number];

/** The resources whose routes' functions the Billing stack holds (decision 0031); every other route's are in Functions. */
const BILLING_RESOURCES: readonly string[] = ['invoice', 'payment', 'business_profile'];
/** The stack that holds a route's function. */
export const functionStackOf = (route: Route): Extract<StackRole, 'Functions' | 'Billing'> =>
  route.resource !== null && BILLING_RESOURCES.includes(route.resource) ? 'Billing' : 'Functions';

/** CloudFormation stack name of each role: the Api stack keeps the environment's name (its outputs are what scripts read). */
export const stackNameOf = (base: string, role: StackRole) => (role === 'Api' ? base : `${base}-${role}`);

/** Usage plans (rate, burst, monthly quota per plan) and the firewall's per-IP threshold: infra/limits.ts. */
export interface TimebillApiProps extends ClientLimitsProps {
  /**
   * The environment's typed configuration (infra/config/environments.ts). infra/app.ts passes
   * each environment's; without one (tests, tools) the stacks are built as prod's are.
   */
  readonly config?: EnvironmentConfig;
  /** Account and region of every stack; none (tests) makes them environment-agnostic. */
  readonly env?: Environment;
  /** Base of the stack names (stackNameOf); none (tests) lets CDK name them after their path. */
  readonly stackName?: string;
  /** The routes to build (default: ROUTES of shared/api/routes.ts); fewer only to measure what a route costs. */
  readonly routes?: readonly Route[];
  /**
   * Record the accepted cdk-nag findings (NAG_ACKNOWLEDGEMENTS). Default true; false only to see
   * what cdk-nag reports without them (the infra test checks that each one is still needed).
   */
  readonly acknowledgeNagFindings?: boolean;
  /** Identifier of the Cognito resource server; scopes are `<identifier>/<scope>`. Default `timebill-api`. */
  readonly resourceServerIdentifier?: string;
  /** The functions that are not routes (default: BACKGROUND_FUNCTIONS of shared/api/background.ts). */
  readonly backgroundFunctions?: readonly BackgroundFunction[];
  /** How long every log group keeps its events: at least 365 days (Control Tower CT.CLOUDWATCH.PR.2). Default one year. */
  readonly logRetention?: logs.RetentionDays;
}

/** The kind of every function that gets reserved concurrency: the authorizer and one per route. */
export const functionKinds = (): FunctionKind[] => ['authorizer', ...ROUTES.map((route) => accessOf(route))];

/** Routes without a scope are public: no authorizer (today only the OpenAPI document). */
export const isPublic = (route: Route) => route.scope === null;

export { signsCursors };

/** Logical-id friendly name of an operation: listClients -> ListClients. */
export const constructName = (operation: string) => operation.charAt(0).toUpperCase() + operation.slice(1);

/** MISSING_AUTHENTICATION_TOKEN -> MissingAuthenticationToken */
const pascalCase = (constant: string) =>
  constant
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** Static header values are literals in API Gateway's parameter mapping: single-quoted. */
export function gatewayResponseHeaders(def: GatewayResponseDefinition): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(def.headers)) {
    if (value.includes("'")) throw new Error(`Gateway response ${def.type}: header ${name} cannot hold a single quote`);
    headers[name] = `'${value}'`;
  }
  for (const [name, source] of Object.entries(def.contextHeaders)) headers[name] = source;
  return headers;
}


/**
 * The cdk-nag (AwsSolutions) findings this stack accepts, each with its reason, by the construct
 * they are acknowledged on (acknowledgements apply to the construct and everything under it).
 */
export const NAG_ACKNOWLEDGEMENTS = {
  api: [
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated by the handlers, which answer 400 in the contract error body (type invalid_request, param, errors[]); an API Gateway request validator would answer first, in its own shape.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'Methods use a Lambda TOKEN authorizer that verifies the Cognito access token (aws-jwt-verify) and also resolves the API client to its workspace and returns a scope-specific policy, which a Cognito user pool authorizer cannot do.',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-wide role through which API Gateway writes REST API logs uses AmazonAPIGatewayPushToCloudWatchLogs, the AWS-managed policy made for exactly this role: API Gateway writes to log groups it names itself.',
    },
  ],
  /** On each public method (a route of shared/api/routes.ts without a scope). */
  publicMethod: [
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Public on purpose: the OpenAPI document describes the API to integrators before they have a token; it is a static document generated from the route table, its function has no access to the table, and the stage throttling applies.',
    },
  ],
  userPool: [
    {
      id: 'AwsSolutions-COG8',
      reason:
        'The pool has no human users: it only issues client-credentials tokens to app clients, which threat protection (Plus feature plan) does not cover; Plus would add cost for no protection.',
    },
  ],
  /** On the role of each function that consumes the table's stream. */
  streamConsumer: [
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, which the Lambda event source mapping needs to find the table stream, has no resource-level permissions (the IAM reference lists no resource type for it), so it can only be granted on *; every other stream action is granted on the one table stream. The same finding covers its X-Ray actions (see functionRole).',
    },
  ],
  /** On each stream consumer's on-failure queue. */
  streamFailureQueue: [
    {
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination: the on-failure destination of the table stream's event source mapping, which receives the description (shard, sequence numbers) of the records the consumer gave up on after bisecting and retrying; a queue behind it would only move them once more. A message in it pages (StreamFailuresAlarm).",
    },
  ],
  /** On each schedule's dead-letter queue. */
  scheduleDeadLetters: [
    {
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination: it receives each firing of an EventBridge Scheduler schedule that did not run, with its error (the schedule target's DeadLetterConfig, after Scheduler's retries, and the function's on-failure destination, after Lambda's); a queue behind it would only move them once more. cdk-nag recognizes a dead-letter queue only in a queue's redrive policy or a function's DeadLetterConfig. A message in it pages (<Function>ScheduleDeadLettersAlarm).",
    },
  ],
  /** On each function's role: active tracing lets it send X-Ray segments. */
  functionRole: [
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active X-Ray tracing (Control Tower CT.APIGATEWAY.PR.2 with traces continued into the functions) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions: `*` is the only resource they accept.',
    },
  ],
  cursorKey: [
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor signing key is resolved at deploy time into the functions environment; rotating it only invalidates outstanding list cursors and is done by updating the secret and redeploying (docs/deploy.md), not by a rotation Lambda.',
    },
  ],
} satisfies Record<string, Acknowledgment[]>;

export class TimebillApi {
  readonly config: EnvironmentConfig;
  /** State: table, backups, keys, log groups, user pool, alarm topics. */
  readonly dataStack: Stack;
  /** Every function, its alias, deployment group and rollback alarms; the queues. */
  readonly functionsStack: Stack;
  /** The billing routes' functions, each with its alias, deployment group and rollback alarms. */
  readonly billingStack: Stack;
  /** The REST API, its limits and domains, and the outputs. */
  readonly apiStack: Stack;
  /** Paging alarms, dashboard, cost guards. */
  readonly operationsStack: Stack;
  /** The table the functions use: the stack's own, or the one named by `table.tableNameOverride`. */
  readonly table: dynamodb.ITable;
  /** The Data stack's own table; undefined when the configuration points the functions at another one. */
  readonly ownTable?: dynamodb.Table;
  readonly api: apigw.RestApi;
  readonly userPool: cognito.UserPool;
  /** One function per route and per background function, by operation name. */
  readonly functions: ReadonlyMap<string, nodejs.NodejsFunction>;
  /** The queues background functions consume or send to, by name. */
  readonly queues: ReadonlyMap<string, sqs.Queue>;
  readonly authorizerFunction: nodejs.NodejsFunction;
  /** The pager topic: the composite alarm's only action. */
  readonly alarmTopic: sns.Topic;
  /** One per stack of functions (each its own CodeDeploy application and hook). */
  readonly deployments: readonly SafeDeployments[];
  /** Every deployed function (its alias, group and rollback alarms), by name. */
  readonly deployed: ReadonlyMap<string, DeployedFunction>;
  /** Every paging alarm; `paging.add(alarm)` makes another one page (DLQ depth, iterator age, ...). */
  readonly paging: PagingAlarms;
  /** Usage plans, the invalid-token API key and the web ACL (infra/limits.ts). */
  readonly limits: ClientLimits;
  /** Every log group: retention and KMS key (infra/observability.ts). */
  readonly logs: EncryptedLogs;
  /** Each queue's dead-letter queue, by queue name. */
  readonly deadLetterQueues = new Map<string, sqs.Queue>();
  /** Each stream consumer's on-failure destination, by operation. */
  readonly streamFailureQueues = new Map<string, sqs.Queue>();
  /** Their role's IAM5[Resource::*] is acknowledged once, as stream consumers (X-Ray included). */
  private readonly streamConsumers = new Set<lambda.IFunction>();
  /** The background functions' alarms (in the Operations stack), added to the paging tree once it exists. */
  private readonly backgroundAlarms: cloudwatch.Alarm[] = [];

  /** The five stacks, in deploy order. */
  get stacks(): Record<StackRole, Stack> {
    return { Data: this.dataStack, Functions: this.functionsStack, Billing: this.billingStack, Api: this.apiStack, Operations: this.operationsStack };
  }

  /** Builds the five stacks into `scope` (an environment's Stage, or an App in tests). */
  constructor(scope: Construct, props: TimebillApiProps = {}) {
    const config = props.config ?? ENVIRONMENTS.prod;
    this.config = config;
    const routes = props.routes ?? ROUTES;
    const stack = (role: StackRole, description: string) =>
      new Stack(scope, role, {
        description: `Timebill API (${config.name}), ${role.toLowerCase()}: ${description}`,
        terminationProtection: config.terminationProtection,
        ...(props.env ? { env: props.env } : {}),
        ...(props.stackName ? { stackName: stackNameOf(props.stackName, role) } : {}),
      });
    const data = (this.dataStack = stack('Data', 'DynamoDB table and stream, backups, keys, log groups, Cognito user pool, alarm topics'));
    const compute = (this.functionsStack = stack('Functions', 'Lambda functions, aliases, CodeDeploy groups, queues'));
    const billing = (this.billingStack = stack('Billing', 'Lambda functions of the billing routes (invoices, payments), aliases, CodeDeploy groups'));
    const front = (this.apiStack = stack('Api', 'REST API, authorizer, usage plans, web ACL, domains, outputs'));
    const ops = (this.operationsStack = stack('Operations', 'paging alarms, dashboard, cost guards'));
    // Deploy order, stated (the references imply it too): Data, Functions, Billing, Api, Operations.
    compute.addStackDependency(data);
    billing.addStackDependency(compute);
    front.addStackDependency(billing);
    ops.addStackDependency(front);

    this.logs = new EncryptedLogs(data, 'Logs', { retention: checkedLogRetention(props.logRetention) });
    const background = props.backgroundFunctions ?? (BACKGROUND_FUNCTIONS as readonly BackgroundFunction[]);

    // ---- Data -------------------------------------------------------------------------------
    if (config.table.tableNameOverride) {
      // A table restored from a backup (docs/deploy.md, "Restore and backups"): used, never owned. CDK cannot
      // know its stream, so a stream consumer needs it named (configurationErrors checks its form).
      if (background.some((f) => f.trigger === 'table-stream') && !config.table.tableStreamArnOverride) {
        throw new Error(streamArnMissing(config.name));
      }
      this.table = dynamodb.Table.fromTableAttributes(compute, 'Table', {
        tableName: config.table.tableNameOverride,
        ...(config.table.tableStreamArnOverride ? { tableStreamArn: config.table.tableStreamArnOverride } : {}),
        globalIndexes: TABLE.indexes.map((index) => index.name),
      });
    } else {
      const table = new dynamodb.Table(data, 'Table', {
        // KMS encryption at rest (CT.DYNAMODB.PR.2) with the AWS managed key: no key to pay for or
        // grant, and the functions' table permissions stay the same (docs/deploy.md).
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        // The stream exists only for a function that consumes it (one shard per partition, both images).
        ...(background.some((f) => f.trigger === 'table-stream') ? { stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES } : {}),
        partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        // On demand, but bounded: a runaway client or bug cannot spend without limit.
        maxReadRequestUnits: config.table.maxReadRequestUnits,
        maxWriteRequestUnits: config.table.maxWriteRequestUnits,
        timeToLiveAttribute: TABLE.ttlAttribute,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      for (const index of TABLE.indexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
          sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
          projectionType: dynamodb.ProjectionType.INCLUDE,
          nonKeyAttributes: [...index.projected],
          maxReadRequestUnits: config.table.maxReadRequestUnits,
          maxWriteRequestUnits: config.table.maxWriteRequestUnits,
        });
      }
      this.table = table;
      this.ownTable = table;
    }

    // HMAC key of the list cursors. Generated by Secrets Manager, never in the template, the
    // repository or a function's environment: the list functions read it at their first request
    // through the Parameters and Secrets extension (shared/core/config.ts, decision 0021).
    const cursorKey = new secretsmanager.Secret(data, 'CursorSigningKey', {
      description: 'HMAC key of the list cursors of the Timebill API (CURSOR_SIGNING_KEY)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });

    // ---- Identity ---------------------------------------------------------------------------
    this.userPool = new cognito.UserPool(data, 'UserPool', {
      userPoolName: `${SERVICE_NAME}-${config.name}`,
      selfSignUpEnabled: false,
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      // The pool has no human users (integrations use the client-credentials grant). Should any be
      // added, they get a strong password policy and mandatory TOTP MFA.
      passwordPolicy: { minLength: 14, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.NONE,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const resourceServerIdentifier = props.resourceServerIdentifier ?? RESOURCE_SERVER_IDENTIFIER;
    this.userPool.addResourceServer('ResourceServer', {
      identifier: resourceServerIdentifier,
      userPoolResourceServerName: 'Timebill API',
      scopes: SCOPES.map(
        (scope) => new cognito.ResourceServerScope({ scopeName: scope, scopeDescription: `Timebill API ${scope}` }),
      ),
    });
    // From the configuration, never derived at deploy time: a changed prefix would replace the domain.
    const domain = this.userPool.addDomain('Domain', { cognitoDomain: { domainPrefix: config.cognitoDomainPrefix } });

    // ---- Functions --------------------------------------------------------------------------

    this.authorizerFunction = this.apiFunction('Authorizer', {
      entry: AUTHORIZER_ENTRY,
      description: 'Lambda TOKEN authorizer: Cognito access token -> workspace and scope policy',
      environment: { COGNITO_USER_POOL_ID: this.userPool.userPoolId, RESOURCE_SERVER_IDENTIFIER: resourceServerIdentifier },
      access: 'authorizer',
      kind: 'authorizer',
    });

    const functions = new Map<string, nodejs.NodejsFunction>();
    for (const route of routes) {
      functions.set(
        route.operation,
        this.apiFunction(constructName(route.operation), {
          entry: route.entry,
          description: `${route.operation}: ${route.method} ${route.path} (${route.scope ?? 'public'})`,
          environment: {},
          ...(signsCursors(route) ? { secret: { variable: 'CURSOR_SIGNING_KEY_SECRET', value: cursorKey } } : {}),
          access: accessOf(route),
          kind: accessOf(route),
          stack: this.stacks[functionStackOf(route)],
          // A document's function draws with the font (shared/document/font.ts).
          ...(route.action === 'document' ? { files: [FONT_FILE] } : {}),
        }),
      );
    }
    this.queues = this.backgroundFunctions(background, functions, props.acknowledgeNagFindings ?? true);
    this.functions = functions;

    // Versions behind a `live` alias, shifted by CodeDeploy (infra/operations/deployments.ts): in
    // each stack of functions its own application and hook (a hook that tested the other stack's
    // functions would make the two stacks refer to each other).
    const deployable = (role: 'Functions' | 'Billing'): DeployableFunction[] => [
      ...(role === 'Functions' ? [{ name: 'Authorizer', fn: this.authorizerFunction, kind: 'authorizer' as const, operation: AUTHORIZER_OPERATION }] : []),
      ...routes
        .filter((route) => functionStackOf(route) === role)
        .map((route) => ({ name: constructName(route.operation), fn: functions.get(route.operation)!, kind: accessOf(route), operation: route.operation })),
    ];
    this.deployments = (['Functions', 'Billing'] as const).flatMap((role) => {
      const functions = deployable(role);
      if (functions.length === 0) return [];
      const prefix = role === 'Functions' ? '' : role;
      return [
        // Its own construct id: logical ids stay unique across the stacks (the templates read as one).
        new SafeDeployments(this.stacks[role], `${prefix}Deployments`, {
          config,
          functions,
          createFunction: (name, options) => this.apiFunction(`${prefix}${name}`, { ...options, access: 'none', kind: 'none', reserve: false, stack: this.stacks[role] }),
        }),
      ];
    });
    this.deployed = new Map(this.deployments.flatMap((d) => [...d.functions]));
    // A resource's retrieve hands an Accept that prefers its document over to the document's
    // function (shared/http/hand-over.ts): it may invoke that function's `live` alias, and no other.
    for (const document of routes.filter((route) => route.action === 'document')) {
      const retrieve = routes.find((route) => route.resource === document.resource && route.action === 'retrieve');
      if (!retrieve) continue;
      const target = this.deployed.get(constructName(document.operation))!.alias;
      const caller = functions.get(retrieve.operation)!;
      caller.addEnvironment('HAND_OVER_FUNCTION', target.functionArn);
      target.grantInvoke(caller);
    }
    // The Api stack calls each `live` alias through an import of its ARN, so that the permission
    // API Gateway needs (which names the API) is made in the Api stack: no reference back.
    const live = (name: string) =>
      lambda.Function.fromFunctionAttributes(front, `${name}Live`, { functionArn: this.deployed.get(name)!.alias.functionArn, sameEnvironment: true });
    const invalidTokenKey = invalidTokenApiKey(compute, this.authorizerFunction);

    // ---- API --------------------------------------------------------------------------------
    const accessLogs = this.logs.logGroup(data, 'ApiAccessLogs');
    this.api = new apigw.RestApi(front, 'Api', {
      // API Gateway's metrics are per API name: one name per environment, so two in an account never mix.
      restApiName: `${SERVICE_NAME}-${config.name}`,
      description: 'Timebill API (clients, projects, time entries) under /api/v1',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      // With a custom domain, the execute-api URL is off: WAF and the TLS policy cannot be bypassed.
      disableExecuteApiEndpoint: config.domain !== undefined,
      failOnWarnings: true,
      // The authorizer returns the API client's key (usageIdentifierKey): callers never send one.
      apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
      // Bodies reach the functions as the bytes sent, so one that is not UTF-8 is refused (handler.ts).
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // API Gateway writes REST API logs (access and execution) through one account-wide role: only
      // the environment that owns it in this account and region creates it (see environments.ts).
      cloudWatchRole: config.ownsApiGatewayAccountRole,
      ...(config.ownsApiGatewayAccountRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: config.name,
        throttlingRateLimit: STAGE_THROTTLING.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLING.burstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
        // Execution logs of errors only, and never request/response bodies.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: false,
        tracingEnabled: true, // X-Ray (CT.APIGATEWAY.PR.2)
      },
    });

    // X-Ray records the stage's first request each second, then a share of the rest
    // (infra/logging.ts; the environment's `tracing`); the functions follow the stage's decision.
    const sampling = config.tracing ?? DEFAULT_TRACE_SAMPLING;
    new xray.CfnSamplingRule(front, 'TraceSampling', {
      samplingRule: {
        ruleName: `${SERVICE_NAME}-${config.name}`,
        priority: 100,
        fixedRate: sampling.fixedRate,
        reservoirSize: sampling.reservoirPerSecond,
        // API Gateway's traces are named `<API name>/<stage>`.
        serviceName: `${this.api.restApiName}/${config.name}`,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });

    // RestApi adds an `Endpoint` output (the stage URL with a trailing slash); ApiUrl below replaces it.
    this.api.node.tryRemoveChild('Endpoint');

    const authorizer = new apigw.TokenAuthorizer(front, 'TokenAuthorizer', {
      authorizerName: 'cognito-access-token',
      handler: live('Authorizer'),
      identitySource: apigw.IdentitySource.header('Authorization'),
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });

    for (const route of routes) {
      this.addRoute(route, live(constructName(route.operation)), authorizer, props.acknowledgeNagFindings ?? true);
    }

    this.limits = addClientLimits(front, this.api, invalidTokenKey, props);

    for (const def of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`GatewayResponse${pascalCase(def.type)}`, {
        type: apigw.ResponseType.of(def.type),
        ...(def.statusCode === undefined ? {} : { statusCode: String(def.statusCode) }),
        responseHeaders: gatewayResponseHeaders(def),
        templates: { 'application/json': gatewayResponseTemplate(def) },
      });
    }

    // ---- Operations -------------------------------------------------------------------------
    // The pager topic: only the composite alarm publishes to it (infra/operations/alarms.ts).
    this.alarmTopic = new sns.Topic(data, 'AlarmTopic', { displayName: `Timebill API (${config.name}) pager`, enforceSSL: true });
    for (const url of config.paging.httpsEndpoints) this.alarmTopic.addSubscription(new subscriptions.UrlSubscription(url));
    for (const email of config.paging.emails) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(email));
    // Symptoms (each alarm) go here, never to the pager: subscribe a chat channel or ticket queue.
    const noticeTopic = new sns.Topic(data, 'NoticeTopic', { displayName: `Timebill API (${config.name}) alarm notices`, enforceSSL: true });
    const metricsNamespace = `${METRICS_NAMESPACE}/${config.name}`;

    // API Gateway has no metric of its own for 429s (they are inside 4XXError): count them from
    // the access log. Per-client limits make 429s normal, so this alarm does not page: it shows on
    // the dashboard.
    const throttled = new logs.MetricFilter(ops, 'ThrottledRequestsFilter', {
      logGroup: accessLogs,
      filterPattern: logs.FilterPattern.numberValue('$.status', '=', 429),
      metricNamespace: metricsNamespace,
      metricName: 'ThrottledRequests',
      metricValue: '1',
    });
    const throttledAlarm = throttled.metric({ statistic: cloudwatch.Stats.SUM, period: Duration.minutes(5) }).createAlarm(ops, 'ApiThrottledAlarm', {
      alarmDescription: 'At least 50 requests answered 429 in five minutes: API clients exceed their usage plans (rate or monthly quota) or the stage limits (no page)',
      threshold: 50,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    const deployed = [...this.deployed.values()];
    this.paging = new PagingAlarms(ops, 'Paging', {
      config,
      api: this.api,
      accessLogs,
      metricsNamespace,
      table: this.table,
      indexNames: TABLE.indexes.map((index) => index.name),
      functions: deployed,
      pagerTopic: this.alarmTopic,
      noticeTopic,
    });
    throttledAlarm.addAlarmAction(new cwActions.SnsAction(noticeTopic));
    // Functions that are not routes have no alias or canary: their errors, their queues' dead
    // letters, stream failures and iterator age page through the composite (backgroundFunctions).
    for (const alarm of this.backgroundAlarms) this.paging.add(alarm);
    const dashboard = new OperationsDashboard(ops, 'Dashboard', {
      dashboardName: `timebill-api-${config.name}-${ops.region}`,
      api: this.api,
      table: this.table,
      functions: deployed,
      paging: this.paging,
    });
    dashboard.addBackground({
      functions: background.map((d) => ({ name: constructName(d.operation), fn: functions.get(d.operation)!, readsStream: d.trigger === 'table-stream' })),
      queues: [...this.queues].map(([name, queue]) => ({ name, queue })),
      undelivered: [
        ...[...this.deadLetterQueues].map(([name, queue]) => ({ name: `${name} dead letters`, queue })),
        ...[...this.streamFailureQueues].map(([operation, queue]) => ({ name: `${operation} stream failures`, queue })),
      ],
    });
    new CostGuards(ops, 'CostGuards', { config, userPool: this.userPool });
    const tableBackup = config.backup
      ? new TableBackup(data, 'Backup', { backup: config.backup, table: this.table, vaultName: `timebill-api-${config.name}` })
      : undefined;
    const domains = config.domain ? new CustomDomains(front, 'Domains', { domain: config.domain, api: this.api, userPool: this.userPool }) : undefined;
    const tokenEndpoint = domains?.tokenEndpoint ?? `${domain.baseUrl()}/oauth2/token`;

    // ---- Outputs ----------------------------------------------------------------------------
    const baseUrl = domains?.apiBaseUrl ?? `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${config.name}`;
    new CfnOutput(front, OUTPUTS.apiUrl, {
      value: baseUrl,
      description: 'base_url of the API; every endpoint is under {base_url}/api/v1 (e.g. GET {base_url}/api/v1/clients)',
    });
    new CfnOutput(front, OUTPUTS.apiV1Url, { value: `${baseUrl}/api/v1`, description: 'Prefix of every endpoint' });
    new CfnOutput(front, OUTPUTS.tokenEndpoint, { value: tokenEndpoint, description: 'OAuth 2.0 token endpoint (client-credentials grant)' });
    new CfnOutput(front, OUTPUTS.userPoolId, { value: this.userPool.userPoolId, description: 'Cognito user pool that issues the access tokens' });
    new CfnOutput(front, OUTPUTS.tableName, { value: this.table.tableName, description: 'DynamoDB table' });
    new CfnOutput(front, OUTPUTS.resourceServerIdentifier, {
      value: resourceServerIdentifier,
      description: 'Cognito resource server; scopes are requested as <identifier>/<scope>',
    });
    new CfnOutput(front, OUTPUTS.region, { value: Aws.REGION, description: 'Region of the stack' });
    new CfnOutput(front, OUTPUTS.alarmTopicArn, { value: this.alarmTopic.topicArn, description: 'SNS pager topic of the composite alarm' });

    if (props.acknowledgeNagFindings ?? true) {
      this.acknowledgeNagFindings(cursorKey);
      for (const deployments of this.deployments) acknowledgeDeploymentFindings(deployments);
      if (tableBackup) acknowledgeBackupFindings(tableBackup);
    }
  }

  /**
   * One function: NodejsFunction bundled as infra/bundling.ts says, with its own log group and
   * its own role (only that log group and the table actions of its access level).
   */
  private apiFunction(
    name: string,
    options: {
      entry: string;
      description: string;
      environment: Record<string, string>;
      access: TableAccess;
      kind?: FunctionKind;
      timeout?: Duration;
      reserve?: boolean;
      /** A secret the function reads at run time through the Parameters and Secrets extension: its ARN in `variable`, never its value. */
      secret?: { variable: string; value: secretsmanager.ISecret };
      /** The stack of functions it is made in (default Functions). */
      stack?: Stack;
      /** Files of packages it reads at run time, copied beside its bundle (a document's font). */
      files?: readonly string[];
    },
  ): nodejs.NodejsFunction {
    const plan = this.config.functions.concurrency;
    const scope = options.stack ?? this.functionsStack;
    // Logs are data: kept a year, encrypted with the Data stack's key, and in that stack (where
    // Control Tower's CT.CLOUDWATCH.PR.3 rule sees the key: it cannot follow a cross-stack reference).
    const logGroup = this.logs.logGroup(this.dataStack, `${name}Logs`);
    const role = new iam.Role(scope, `${name}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${name} function`,
    });
    logGroup.grantWrite(role);
    const fn = new nodejs.NodejsFunction(scope, `${name}Function`, {
      entry: path.join(PROJECT_ROOT, options.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      // Functions that call nothing need no room for the DynamoDB retry budget.
      timeout: options.timeout ?? Duration.seconds(options.kind === 'none' ? NO_DEPENDENCY_TIMEOUT_SECONDS : this.config.functions.timeoutSeconds),
      // Bounded blast radius: stage rate x worst case, within a share of the account (environments.ts, docs/deploy.md).
      ...(plan === 'unreserved' || options.kind === undefined || options.reserve === false ? {} : { reservedConcurrentExecutions: reservedConcurrency(plan, options.kind, ROUTES.length) }),
      description: options.description,
      role,
      logGroup,
      // JSON, application records from INFO, platform records only from WARN (infra/logging.ts).
      loggingFormat: lambda.LoggingFormat[FUNCTION_LOGGING.format === 'JSON' ? 'JSON' : 'TEXT'],
      applicationLogLevelV2: lambda.ApplicationLogLevel[FUNCTION_LOGGING.applicationLevel],
      systemLogLevelV2: lambda.SystemLogLevel[FUNCTION_LOGGING.systemLevel],
      environment: { ...options.environment, ...(options.secret ? { [options.secret.variable]: options.secret.value.secretArn } : {}) },
      ...(options.secret ? { paramsAndSecrets: PARAMS_AND_SECRETS } : {}),
      awsSdkConnectionReuse: false,
      tracing: lambda.Tracing.ACTIVE, // X-Ray, continuing the stage's traces
      bundling: cdkBundlingOptions(options.files),
    });
    bindTable(fn, this.table, options.access);
    options.secret?.value.grantRead(role);
    return fn;
  }

  /**
   * The functions that are not routes, each with its trigger and only the grants it declares:
   *
   *   table stream (NEW_AND_OLD_IMAGES) ─▶ stream consumer ─▶ ... ─▶ queues it sends to
   *       a failing batch is bisected and retried STREAM_RETRY_ATTEMPTS times (or until its records
   *       are STREAM_MAX_RECORD_AGE old), then described in the consumer's on-failure queue;
   *   queue ─▶ queue consumer (per-message failures); after maxReceives, the queue's dead-letter queue
   *       ─▶ its dead letters' consumer, when one is declared ('dead-letters'): what it cannot take stays;
   *   EventBridge Scheduler schedule (UTC) ─▶ function, invoked asynchronously through a role that
   *       may invoke only it; a firing that did not run (Scheduler's retries or Lambda's exhausted),
   *       the schedule's dead-letter queue.
   *
   * Every queue is encrypted, refuses non-TLS access and keeps messages 14 days; a message in a
   * dead-letter or on-failure queue pages (docs/deploy.md, "Alarms").
   */
  private backgroundFunctions(
    declared: readonly BackgroundFunction[],
    functions: Map<string, nodejs.NodejsFunction>,
    acknowledge: boolean,
  ): Map<string, sqs.Queue> {
    const queues = new Map<string, sqs.Queue>();
    // A queue's redrive follows its consumer's declaration, whichever function names it first; its
    // dead-letter queue's visibility, its dead letters' consumer's.
    const consumerOf = new Map(declared.flatMap((d) => (d.trigger === 'queue' ? [[d.queue, d] as const] : [])));
    const deadLettersConsumerOf = new Map(declared.flatMap((d) => (d.trigger === 'dead-letters' ? [[d.queue, d] as const] : [])));
    for (const d of deadLettersConsumerOf.values()) {
      if (!consumerOf.has(d.queue)) throw new Error(`${d.operation} consumes the dead letters of the ${d.queue} queue, which no function consumes`);
    }
    // Six times a consumer's timeout (the routes' when its declaration names none), as Lambda recommends for SQS event sources.
    const visibilityFor = (consumer: BackgroundFunction | undefined) => Duration.seconds(6 * (consumer?.timeoutSeconds ?? this.config.functions.timeoutSeconds));
    const encrypted = { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, retentionPeriod: QUEUE_RETENTION };
    // A dead-letter destination says so (RedriveAllowPolicy): what Control Tower's CT.SQS.PR.1 asks
    // of a queue without a dead-letter queue of its own. `allowAll`: naming the source queue would
    // make a reference cycle with its redrive policy.
    const deadLetter = { ...encrypted, redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL } };
    const queue = (name: string) => {
      let found = queues.get(name);
      if (!found) {
        const consumer = consumerOf.get(name);
        const deadLettersConsumer = deadLettersConsumerOf.get(name);
        const deadLetters = new sqs.Queue(this.functionsStack, `${constructName(name)}DeadLetters`, {
          ...deadLetter,
          // Consumed by a function too: hidden while it works on a message, as any queue it consumes.
          ...(deadLettersConsumer ? { visibilityTimeout: visibilityFor(deadLettersConsumer) } : {}),
        });
        found = new sqs.Queue(this.functionsStack, `${constructName(name)}Queue`, {
          ...encrypted,
          visibilityTimeout: visibilityFor(consumer),
          deadLetterQueue: { queue: deadLetters, maxReceiveCount: (consumer?.trigger === 'queue' ? consumer.maxReceives : undefined) ?? 5 },
        });
        if (deadLettersConsumer) {
          // Its consumer takes each dead letter within seconds; one it cannot take (it reports it
          // failed) comes back after every visibility timeout and is in flight nearly all the time,
          // so the alarm counts the messages in flight as well as those waiting.
          const count = (metric: cloudwatch.Metric) => metric.with({ statistic: cloudwatch.Stats.MAXIMUM, period: ONE_MINUTE });
          const held = new cloudwatch.MathExpression({
            label: `${name} dead letters, waiting or in flight`,
            expression: 'FILL(waiting, 0) + FILL(inFlight, 0)',
            usingMetrics: { waiting: count(deadLetters.metricApproximateNumberOfMessagesVisible()), inFlight: count(deadLetters.metricApproximateNumberOfMessagesNotVisible()) },
            period: ONE_MINUTE,
          });
          this.backgroundAlarms.push(
            pagingAlarm(this.operationsStack, `${constructName(name)}DeadLettersAlarm`, held, 0, 2, 3,
              `Messages stay in the ${name} dead-letter queue: its consumer ${deadLettersConsumer.operation} could not take them`),
          );
        } else {
          this.pageOnMessages(deadLetters, `${constructName(name)}DeadLettersAlarm`, `Messages of the ${name} queue were dead-lettered after their last receive`);
        }
        queues.set(name, found);
        this.deadLetterQueues.set(name, deadLetters);
      }
      return found;
    };
    for (const declaration of declared) {
      const name = constructName(declaration.operation);
      const fn = this.apiFunction(name, {
        entry: declaration.entry,
        description: `${declaration.operation}: ${declaration.description}`,
        environment: {},
        access: declaration.table,
        // No `kind`, so no reservation: the event source bounds its concurrency (one per shard,
        // QUEUE_CONSUMER_MAX_CONCURRENCY; a schedule, one invocation a firing), in the account's unreserved part.
        ...(declaration.timeoutSeconds === undefined ? {} : { timeout: Duration.seconds(declaration.timeoutSeconds) }),
      });
      if (declaration.trigger === 'table-stream') {
        const failures = new sqs.Queue(this.functionsStack, `${name}StreamFailures`, deadLetter);
        fn.addEventSource(
          new eventSources.DynamoEventSource(this.table, {
            startingPosition: lambda.StartingPosition.TRIM_HORIZON,
            batchSize: declaration.batchSize ?? 100,
            maxBatchingWindow: EVENTS_BATCHING_WINDOW,
            // One invocation per shard at a time: a workspace's items share a partition key, hence
            // a shard, so its changes are consumed in order and its appends do not race.
            parallelizationFactor: 1,
            // The consumer fails a whole batch (it throws); bisection isolates the record it fails on.
            bisectBatchOnError: true,
            retryAttempts: STREAM_RETRY_ATTEMPTS,
            maxRecordAge: STREAM_MAX_RECORD_AGE,
            // What it gave up on: shard and sequence numbers of the records, to replay (docs/deploy.md).
            onFailure: new eventSources.SqsDlq(failures),
          }),
        );
        this.pageOnMessages(failures, `${name}StreamFailuresAlarm`, `The ${declaration.operation} function gave up on stream records (retries or age exhausted): their changes made no events`);
        this.backgroundAlarms.push(
          pagingAlarm(this.operationsStack, `${name}IteratorAge`, fn.metric('IteratorAge', { statistic: cloudwatch.Stats.MAXIMUM, period: ONE_MINUTE }), ITERATOR_AGE_ALARM_MS, 3, 5,
            `The ${declaration.operation} function is more than ${ITERATOR_AGE_ALARM_MS / 1000} s behind the table stream`),
        );
        this.streamFailureQueues.set(declaration.operation, failures);
        if (acknowledge) {
          for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.streamConsumer) Validations.of(fn.role!).acknowledge(acknowledgement);
          for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.streamFailureQueue) Validations.of(failures).acknowledge(acknowledgement);
        }
        this.streamConsumers.add(fn);
      } else if (declaration.trigger === 'schedule') {
        // EventBridge Scheduler, in UTC (a cron in a zone skips or repeats the hours a time change
        // moves). It invokes the function asynchronously through a role of its own, which only
        // Scheduler may assume, for this account's default schedule group (confused deputy), and
        // which may invoke this function alone: its ARN, no version or alias (`:*`).
        const role = new iam.Role(this.functionsStack, `${name}ScheduleRole`, {
          description: `Role through which EventBridge Scheduler invokes the ${declaration.operation} function`,
          assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
            conditions: {
              StringEquals: {
                'aws:SourceAccount': Aws.ACCOUNT_ID,
                'aws:SourceArn': this.functionsStack.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' }),
              },
            },
          }),
        });
        role.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
        // A firing that did not run, with its error: one Scheduler could not deliver after its
        // retries (the role, the function gone or refusing invocations), or one whose every attempt
        // failed (Lambda retries a failed asynchronous invocation twice). A message pages; the next
        // firing does the same work (a scheduled function is idempotent).
        const undelivered = new sqs.Queue(this.functionsStack, `${name}ScheduleDeadLetters`, deadLetter);
        role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [undelivered.queueArn] }));
        fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: new destinations.SqsDestination(undelivered) });
        this.pageOnMessages(undelivered, `${name}ScheduleDeadLettersAlarm`,
          `A firing of the ${declaration.operation} schedule did not run: Scheduler could not invoke the function, or every attempt of it failed`);
        this.deadLetterQueues.set(`${declaration.operation} schedule`, undelivered);
        if (acknowledge) {
          for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.scheduleDeadLetters) Validations.of(undelivered).acknowledge(acknowledgement);
        }
        const schedule = new scheduler.CfnSchedule(this.functionsStack, `${name}Schedule`, {
          description: `${declaration.operation}: ${declaration.description}`,
          scheduleExpression: declaration.schedule,
          scheduleExpressionTimezone: 'UTC',
          flexibleTimeWindow: { mode: 'OFF' },
          target: {
            arn: fn.functionArn,
            roleArn: role.roleArn,
            // An invocation Scheduler could not deliver is retried twice within 10 minutes (before
            // a quarter-hour's next firing), then dead-lettered.
            retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 600 },
            deadLetterConfig: { arn: undelivered.queueArn },
          },
        });
        // Its first firing finds the role's policy in place.
        schedule.node.addDependency(role);
      } else {
        // A queue's consumer, or its dead-letter queue's (what the queue's consumer gave up on).
        const consumed = queue(declaration.queue);
        const source = declaration.trigger === 'queue' ? consumed : this.deadLetterQueues.get(declaration.queue)!;
        fn.addEventSource(
          new eventSources.SqsEventSource(source, {
            batchSize: declaration.batchSize ?? 10,
            maxBatchingWindow: EVENTS_BATCHING_WINDOW,
            reportBatchItemFailures: true,
            maxConcurrency: QUEUE_CONSUMER_MAX_CONCURRENCY,
          }),
        );
      }
      for (const target of declaration.sendsTo ?? []) {
        const sent = queue(target);
        sent.grantSendMessages(fn);
        fn.addEnvironment(`${target.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`, sent.queueUrl);
      }
      // Errors of each (unhandled or timeout): no alias, no canary, so they page directly.
      this.backgroundAlarms.push(
        pagingAlarm(this.operationsStack, `${name}ErrorsAlarm`, fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: ONE_MINUTE }), 0, 2, 3,
          `The ${declaration.operation} function failed (unhandled error or timeout)`),
      );
      functions.set(declaration.operation, fn);
    }
    return queues;
  }

  /** A paging alarm when a queue holds messages (dead letters, stream failures): 2 of 3 minutes. */
  private pageOnMessages(queue: sqs.Queue, id: string, description: string): void {
    this.backgroundAlarms.push(
      pagingAlarm(this.operationsStack, id, queue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: ONE_MINUTE }), 0, 2, 3, description),
    );
  }

  private addRoute(route: Route, fn: lambda.IFunction, authorizer: apigw.IAuthorizer, acknowledge: boolean): void {
    const method = this.api.root.resourceForPath(route.path).addMethod(
      route.method,
      new apigw.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }),
      // A public route (the OpenAPI document) has no authorizer; every other has.
      isPublic(route)
        ? { operationName: route.operation, authorizationType: apigw.AuthorizationType.NONE }
        : // Every authorized method requires an API key: its usage plan throttles and meters the client.
          { operationName: route.operation, authorizer, authorizationType: apigw.AuthorizationType.CUSTOM, apiKeyRequired: true },
    );
    if (isPublic(route) && acknowledge) {
      for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.publicMethod) Validations.of(method).acknowledge(acknowledgement);
    }
  }

  /**
   * Every finding of cdk-nag's AwsSolutions pack that is accepted, with the reason it is accepted
   * (cdk-nag 3 reads CDK's native acknowledgements; granular findings are acknowledged one by one).
   */
  private acknowledgeNagFindings(cursorKey: secretsmanager.Secret): void {
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.api) Validations.of(this.api).acknowledge(acknowledgement);
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.userPool) Validations.of(this.userPool).acknowledge(acknowledgement);
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.cursorKey) Validations.of(cursorKey).acknowledge(acknowledgement);
    for (const fn of [this.authorizerFunction, ...this.functions.values(), ...this.deployments.map((d) => d.smokeTest)].filter((f) => !this.streamConsumers.has(f))) {
      for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.functionRole) Validations.of(fn.role!).acknowledge(acknowledgement);
    }
  }
}
