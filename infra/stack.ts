/**
 * The whole service in one stack: REST API (API Gateway) with a Lambda TOKEN authorizer, one
 * Lambda function per operation of shared/routes.ts, the DynamoDB table of shared/data/table.ts,
 * the Cognito user pool that issues the access tokens, alarms, and the gateway responses of
 * shared/http/gateway-responses.ts. Everything here is derived from those tables; nothing about a
 * route is written twice.
 *
 * The stack is environment-agnostic (no lookups), so `cdk synth` needs no credentials or network.
 */
import * as path from 'node:path';
import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, Validations, type Acknowledgment, type StackProps } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { AUTHORIZER_CACHE_TTL_SECONDS, AUTHORIZER_ENTRY, ROUTES, SCOPES, STAGE_THROTTLING, type Route } from '../shared/routes.ts';
import { TABLE } from '../shared/data/table.ts';
import { GATEWAY_RESPONSES, gatewayResponseTemplate, type GatewayResponseDefinition } from '../shared/http/gateway-responses.ts';
import { bindTable, type TableAccess } from './access.ts';
import { EventsPipeline } from './events.ts';
import { OUTPUTS, RESOURCE_SERVER_IDENTIFIER, STAGE_NAME } from './names.ts';
import { PROJECT_ROOT, cdkBundlingOptions } from './bundling.ts';
import { addClientLimits, type ClientLimits, type ClientLimitsProps } from './limits.ts';

export { OUTPUTS, RESOURCE_SERVER_IDENTIFIER, STAGE_NAME };

/** The newest Node.js runtime of the installed aws-cdk-lib (2.276.0). */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_24_X;
/** CPU scales with memory: 512 MB keeps cold starts (module parse, JWT crypto) short at low cost. */
export const FUNCTION_MEMORY_MB = 512;
/** Well under API Gateway's 29 s integration timeout, so a stuck call ends as the function's error. */
export const FUNCTION_TIMEOUT = Duration.seconds(10);
export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
export const SERVICE_NAME = 'timebill-api';
/** Namespace of the metric counted from the access log (429s). */
export const METRICS_NAMESPACE = 'TimebillApi';

/** Usage plans (rate, burst, monthly quota per plan) and the firewall's per-IP threshold: infra/limits.ts. */
export interface TimebillApiStackProps extends StackProps, ClientLimitsProps {
  /** Prefix of the Cognito domain (`<prefix>.auth.<region>.amazoncognito.com`); default `timebill-<account id>`. */
  readonly cognitoDomainPrefix?: string;
  /** Email address subscribed to the alarm topic (optional). */
  readonly alarmEmail?: string;
  /**
   * Record the accepted cdk-nag findings (NAG_ACKNOWLEDGEMENTS). Default true; false only to see
   * what cdk-nag reports without them (the infra test checks that each one is still needed).
   */
  readonly acknowledgeNagFindings?: boolean;
  /** Identifier of the Cognito resource server; scopes are `<identifier>/<scope>`. Default `timebill-api`. */
  readonly resourceServerIdentifier?: string;
}

/** List routes (reads without a path parameter) sign cursors; no other function gets the key. */
export const signsCursors = (route: Route) => route.access === 'read' && !route.path.includes('{');

/** Routes without a scope are public: no authorizer (today only the OpenAPI document). */
export const isPublic = (route: Route) => route.scope === null;

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
 * Access log: one JSON object per request. `status` is unquoted (always present, a number) so
 * that the 429 metric filter can compare it numerically; every other value is quoted, so that
 * API Gateway's `-` for an absent value still makes valid JSON.
 */
export const ACCESS_LOG_FORMAT =
  '{"status":$context.status,' +
  JSON.stringify({
    requestId: '$context.requestId',
    extendedRequestId: '$context.extendedRequestId',
    requestTime: '$context.requestTimeEpoch',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    path: '$context.path',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationStatus: '$context.integrationStatus',
    integrationLatency: '$context.integrationLatency',
    errorType: '$context.error.responseType',
    errorMessage: '$context.error.message',
    authorizerStatus: '$context.authorizer.status',
    authorizerLatency: '$context.authorizer.latency',
    principalId: '$context.authorizer.principalId',
  }).slice(1);

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
  /** On each public method (a route of shared/routes.ts without a scope). */
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
  streamFailureQueue: [
    {
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination: the on-failure destination of the table stream's event source mapping, which receives the descriptions of records the consumer failed on after bisecting and retrying; a queue behind it would only move them once more. Its depth alarms (StreamFailureAlarm).",
    },
  ],
  eventsConsumerRole: [
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "dynamodb:ListStreams, which the event source mapping needs to find the table's stream, cannot be limited to a resource (AWS documents it as resource '*'); every other stream action is granted on the table's stream ARN only.",
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

export class TimebillApiStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.RestApi;
  readonly userPool: cognito.UserPool;
  /** One function per route, by operation name. */
  readonly functions: ReadonlyMap<string, nodejs.NodejsFunction>;
  readonly authorizerFunction: nodejs.NodejsFunction;
  readonly alarmTopic: sns.Topic;
  /** Usage plans, the invalid-token API key and the web ACL (infra/limits.ts). */
  readonly limits: ClientLimits;
  /** The events pipeline: stream consumer, delivery queue and function, their queues and alarms. */
  readonly events: EventsPipeline;

  constructor(scope: Construct, id: string, props: TimebillApiStackProps = {}) {
    super(scope, id, {
      description: 'Timebill API: clients, projects and time entries (REST API, Lambda, DynamoDB, Cognito)',
      ...props,
    });

    // ---- Data -------------------------------------------------------------------------------
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE.ttlAttribute,
      stream: dynamodb.StreamViewType[TABLE.streamViewType],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projected],
      });
    }

    // HMAC key of the list cursors. Generated by Secrets Manager, never in the template or the
    // repository; CloudFormation resolves the dynamic reference at deploy time into the functions'
    // environment (encrypted at rest by Lambda). That is acceptable for this key: a cursor only
    // addresses items of the caller's own workspace (the workspace comes from the token, never
    // from the cursor), so the key protects cursor integrity, not data confidentiality.
    const cursorKey = new secretsmanager.Secret(this, 'CursorSigningKey', {
      description: 'HMAC key of the list cursors of the Timebill API (CURSOR_SIGNING_KEY)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });

    // ---- Identity ---------------------------------------------------------------------------
    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: SERVICE_NAME,
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
    const domainPrefix = props.cognitoDomainPrefix ?? Fn.join('-', ['timebill', Aws.ACCOUNT_ID]);
    const domain = this.userPool.addDomain('Domain', { cognitoDomain: { domainPrefix } });
    const tokenEndpoint = `${domain.baseUrl()}/oauth2/token`;

    // ---- Functions --------------------------------------------------------------------------
    const commonEnvironment = {
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };

    this.authorizerFunction = this.apiFunction('Authorizer', {
      entry: AUTHORIZER_ENTRY,
      description: 'Lambda TOKEN authorizer: Cognito access token -> workspace and scope policy',
      environment: { ...commonEnvironment, COGNITO_USER_POOL_ID: this.userPool.userPoolId, RESOURCE_SERVER_IDENTIFIER: resourceServerIdentifier },
      access: 'authorizer',
    });

    const functions = new Map<string, nodejs.NodejsFunction>();
    for (const route of ROUTES) {
      functions.set(
        route.operation,
        this.apiFunction(constructName(route.operation), {
          entry: route.entry,
          description: `${route.operation}: ${route.method} ${route.path} (${route.scope ?? 'public'})`,
          environment: signsCursors(route)
            ? { ...commonEnvironment, CURSOR_SIGNING_KEY: cursorKey.secretValue.unsafeUnwrap() }
            : commonEnvironment,
          access: route.access,
        }),
      );
    }
    this.functions = functions;

    // ---- Events and webhooks ----------------------------------------------------------------
    this.events = new EventsPipeline(this, 'Events', {
      table: this.table,
      makeFunction: (name, options) => this.apiFunction(name, options),
      environment: commonEnvironment,
    });

    // ---- API --------------------------------------------------------------------------------
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: LOG_RETENTION });
    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: SERVICE_NAME,
      description: 'Timebill API (clients, projects, time entries) under /api/v1',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      disableExecuteApiEndpoint: false,
      failOnWarnings: true,
      // The authorizer returns the API client's key (usageIdentifierKey): callers never send one.
      apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
      // API Gateway writes REST API logs (access and execution) through one account-wide role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: STAGE_THROTTLING.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLING.burstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
        // Execution logs of errors only, and never request/response bodies.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: false,
        tracingEnabled: false,
      },
    });

    // RestApi adds an `Endpoint` output (the stage URL with a trailing slash); ApiUrl below replaces it.
    this.api.node.tryRemoveChild('Endpoint');

    const authorizer = new apigw.TokenAuthorizer(this, 'TokenAuthorizer', {
      authorizerName: 'cognito-access-token',
      handler: this.authorizerFunction,
      identitySource: apigw.IdentitySource.header('Authorization'),
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });

    for (const route of ROUTES) {
      this.addRoute(route, functions.get(route.operation)!, authorizer, props.acknowledgeNagFindings ?? true);
    }

    this.limits = addClientLimits(this, this.api, this.authorizerFunction, props);

    for (const def of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`GatewayResponse${pascalCase(def.type)}`, {
        type: apigw.ResponseType.of(def.type),
        ...(def.statusCode === undefined ? {} : { statusCode: String(def.statusCode) }),
        responseHeaders: gatewayResponseHeaders(def),
        templates: { 'application/json': gatewayResponseTemplate(def) },
      });
    }

    // ---- Alarms -----------------------------------------------------------------------------
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Timebill API alarms', enforceSSL: true });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const alarmAction = new cwActions.SnsAction(this.alarmTopic);
    const fiveMinutes = Duration.minutes(5);
    const stage = this.api.deploymentStage;

    const serverErrorRate = new cloudwatch.MathExpression({
      label: '5xx rate (%)',
      expression: '100 * errors / requests',
      usingMetrics: {
        errors: stage.metricServerError({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }),
        requests: stage.metricCount({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }),
      },
      period: fiveMinutes,
    });
    const alarms: cloudwatch.Alarm[] = [];
    alarms.push(
      serverErrorRate.createAlarm(this, 'Api5xxRateAlarm', {
        alarmDescription: 'More than 1% of API requests answered 5xx in 2 of the last 3 five-minute periods',
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    // API Gateway has no metric of its own for 429s (they are inside 4XXError): count them from
    // the access log.
    const throttled = new logs.MetricFilter(this, 'ThrottledRequestsFilter', {
      logGroup: accessLogs,
      filterPattern: logs.FilterPattern.numberValue('$.status', '=', 429),
      metricNamespace: METRICS_NAMESPACE,
      metricName: 'ThrottledRequests',
      metricValue: '1',
    });
    alarms.push(
      throttled.metric({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }).createAlarm(this, 'ApiThrottledAlarm', {
        alarmDescription: 'At least 50 requests answered 429 in five minutes: API clients exceed their usage plans (rate or monthly quota) or the stage limits',
        threshold: 50,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const [name, fn] of [['Authorizer', this.authorizerFunction] as const, ...[...functions].map(([op, fn]) => [constructName(op), fn] as const)]) {
      alarms.push(
        fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }).createAlarm(this, `${name}ErrorsAlarm`, {
          alarmDescription: `The ${name} function failed (unhandled error or timeout) in the last five minutes`,
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    alarms.push(...this.events.alarms);
    for (const alarm of alarms) alarm.addAlarmAction(alarmAction);

    // ---- Outputs ----------------------------------------------------------------------------
    const baseUrl = `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${STAGE_NAME}`;
    new CfnOutput(this, OUTPUTS.apiUrl, {
      value: baseUrl,
      description: 'base_url of the API; every endpoint is under {base_url}/api/v1 (e.g. GET {base_url}/api/v1/clients)',
    });
    new CfnOutput(this, OUTPUTS.apiV1Url, { value: `${baseUrl}/api/v1`, description: 'Prefix of every endpoint' });
    new CfnOutput(this, OUTPUTS.tokenEndpoint, { value: tokenEndpoint, description: 'OAuth 2.0 token endpoint (client-credentials grant)' });
    new CfnOutput(this, OUTPUTS.userPoolId, { value: this.userPool.userPoolId, description: 'Cognito user pool that issues the access tokens' });
    new CfnOutput(this, OUTPUTS.tableName, { value: this.table.tableName, description: 'DynamoDB table' });
    new CfnOutput(this, OUTPUTS.resourceServerIdentifier, {
      value: resourceServerIdentifier,
      description: 'Cognito resource server; scopes are requested as <identifier>/<scope>',
    });
    new CfnOutput(this, OUTPUTS.region, { value: Aws.REGION, description: 'Region of the stack' });
    new CfnOutput(this, OUTPUTS.alarmTopicArn, { value: this.alarmTopic.topicArn, description: 'SNS topic of the alarms' });

    if (props.acknowledgeNagFindings ?? true) this.acknowledgeNagFindings(cursorKey);
  }

  /**
   * One function: NodejsFunction bundled as infra/bundling.ts says, with its own log group and
   * its own role (only that log group and the table actions of its access level).
   */
  private apiFunction(
    name: string,
    options: { entry: string; description: string; environment: Record<string, string>; access: TableAccess; timeout?: Duration },
  ): nodejs.NodejsFunction {
    const logGroup = new logs.LogGroup(this, `${name}Logs`, { retention: LOG_RETENTION });
    const role = new iam.Role(this, `${name}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${name} function`,
    });
    logGroup.grantWrite(role);
    const fn = new nodejs.NodejsFunction(this, `${name}Function`, {
      entry: path.join(PROJECT_ROOT, options.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      timeout: options.timeout ?? FUNCTION_TIMEOUT,
      description: options.description,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      environment: options.environment,
      awsSdkConnectionReuse: false,
      bundling: cdkBundlingOptions(),
    });
    bindTable(fn, this.table, options.access);
    return fn;
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
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.streamFailureQueue) Validations.of(this.events.streamFailureQueue).acknowledge(acknowledgement);
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS.eventsConsumerRole) Validations.of(this.events.consumer.role!).acknowledge(acknowledgement);
  }
}
