/**
 * The CDK stack, proven offline: synthesized once (bundling every function with esbuild), then
 * checked against the route table, the table definition and the gateway responses it is built
 * from, against cdk-nag's AwsSolutions pack, and against the bundles scripts/bundle-sizes.ts builds.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TABLE_ACTIONS } from '../../infra/access.ts';
import { CONSUMER_TIMEOUT, DELIVERY_FUNCTION_TIMEOUT, STREAM_RETRY_ATTEMPTS } from '../../infra/events.ts';
import { EVENT_FUNCTIONS } from '../../shared/events/functions.ts';
import { AWS_RETRY_SCHEDULE } from '../../shared/events/retry.ts';
import { ESM_REQUIRE_BANNER, PROJECT_ROOT } from '../../infra/bundling.ts';
import { DEFAULT_STACK_NAME, OUTPUTS, RESOURCE_SERVER_IDENTIFIER, STAGE_NAME, usagePlanOutput } from '../../infra/names.ts';
import { PLAN_NAMES } from '../../shared/limits.ts';
import {
  ACCESS_LOG_FORMAT,
  FUNCTION_MEMORY_MB,
  LAMBDA_RUNTIME,
  NAG_ACKNOWLEDGEMENTS,
  TimebillApiStack,
  constructName,
  gatewayResponseHeaders,
  isPublic,
  signsCursors,
} from '../../infra/stack.ts';
import { measureBundles, type BundleSize } from '../../scripts/bundle-sizes.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, ROUTES, SCOPES, STAGE_THROTTLING } from '../../shared/routes.ts';
import { TABLE } from '../../shared/data/table.ts';
import { GATEWAY_RESPONSES, gatewayResponseTemplate } from '../../shared/http/gateway-responses.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface CfnResource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
}

const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { app: string; notices: boolean; context: Record<string, unknown> };

let outdir: string;
let app: App;
let stack: TimebillApiStack;
let unacknowledged: TimebillApiStack;
let template: Template;
let resources: Record<string, CfnResource>;
let bundles: Map<string, BundleSize>;
/** Whether the sources stayed the same from synthesis to measuring (an editor may save meanwhile). */
let sourcesSteady: boolean;

/** Fingerprint of everything that goes into a bundle. */
function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(full).update(readFileSync(full));
    }
  };
  walk(path.join(PROJECT_ROOT, 'functions'));
  walk(path.join(PROJECT_ROOT, 'shared'));
  hash.update(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json')));
  return hash.digest('hex');
}

beforeAll(async () => {
  const before = sourceFingerprint();
  outdir = mkdtempSync(path.join(tmpdir(), 'timebill-cdk-'));
  // Same feature flags as `npx cdk synth` (cdk.json); no env: the stack is environment-agnostic.
  app = new App({ context: cdkJson.context, outdir });
  stack = new TimebillApiStack(app, DEFAULT_STACK_NAME);
  // The same stack without the acknowledgements (bundles come from the asset cache).
  unacknowledged = new TimebillApiStack(app, 'Unacknowledged', { acknowledgeNagFindings: false });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Record<string, CfnResource>;
  // Built right after synthesis, from the same sources, to compare with the stack's assets.
  bundles = new Map((await measureBundles()).map((b) => [b.entry, b]));
  sourcesSteady = sourceFingerprint() === before;
});

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

// ---- helpers ---------------------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const refId = (value: Json): string | undefined => value?.Ref ?? (value?.['Fn::GetAtt'] ? value['Fn::GetAtt'][0] : undefined);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Full path of every API Gateway resource (`/api/v1/clients/{id}`), by logical id. */
function resourcePaths(): Map<string, string> {
  const paths = new Map<string, string>();
  const resolve = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const r = resources[id]!;
    const parent = r.Properties.ParentId;
    const parentPath = parent['Fn::GetAtt']?.[1] === 'RootResourceId' ? '' : resolve(refId(parent)!);
    const full = `${parentPath}/${r.Properties.PathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const [id] of ofType('AWS::ApiGateway::Resource')) resolve(id);
  return paths;
}

/** The Lambda function a method integrates with (from the integration URI). */
function integratedFunction(method: CfnResource): string {
  const parts: Json[] = method.Properties.Integration.Uri['Fn::Join'][1];
  const getAtt = parts.find((p) => p?.['Fn::GetAtt']);
  return getAtt['Fn::GetAtt'][0];
}

function methodOf(routeMethod: string, routePath: string): [string, CfnResource] {
  const paths = resourcePaths();
  const found = ofType('AWS::ApiGateway::Method').filter(
    ([, m]) => m.Properties.HttpMethod === routeMethod && paths.get(refId(m.Properties.ResourceId)!) === routePath,
  );
  expect(found, `${routeMethod} ${routePath}`).toHaveLength(1);
  return found[0]!;
}

const functionIdOf = (operation: string) => integratedFunction(methodOf(...routeKey(operation))[1]);
const routeKey = (operation: string): [string, string] => {
  const r = ROUTES.find((x) => x.operation === operation)!;
  return [r.method, r.path];
};

function authorizerFunctionId(): string {
  const [[, authorizer]] = ofType('AWS::ApiGateway::Authorizer') as [[string, CfnResource]];
  const parts: Json[] = authorizer.Properties.AuthorizerUri['Fn::Join'][1];
  return parts.find((p) => p?.['Fn::GetAtt'] && p['Fn::GetAtt'][1] === 'Arn')['Fn::GetAtt'][0];
}

/** The logical id of one of the events pipeline's functions. */
function eventFunctionId(which: keyof typeof EVENT_FUNCTIONS): string {
  const fn = which === 'consumer' ? stack.events.consumer : stack.events.delivery;
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
}

/** Every IAM statement that applies to a function's role (inline, attached and managed). */
function statementsOf(functionId: string): Json[] {
  const roleId = refId(resources[functionId]!.Properties.Role)!;
  const role = resources[roleId]!;
  expect(role.Properties.ManagedPolicyArns ?? [], `${functionId} has no managed policies`).toEqual([]);
  const inline = (role.Properties.Policies ?? []).flatMap((p: Json) => p.PolicyDocument.Statement);
  const attached = ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: Json) => refId(r) === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
  return [...inline, ...attached];
}

const dynamoActionsOf = (functionId: string) =>
  new Set(statementsOf(functionId).flatMap((s) => asArray<string>(s.Action)).filter((a) => a.startsWith('dynamodb:')));

function assetFile(functionId: string): string {
  const key: string = resources[functionId]!.Properties.Code.S3Key;
  return path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
}

const tableId = () => ofType('AWS::DynamoDB::Table')[0]![0];

// ---- the app ---------------------------------------------------------------------------------

describe('CDK app', () => {
  it('cdk.json runs infra/app.ts with tsx, without notices, with every recommended feature flag', () => {
    expect(cdkJson.app).toBe('npx tsx infra/app.ts');
    expect(cdkJson.notices).toBe(false);
    const recommended = JSON.parse(
      readFileSync(path.join(PROJECT_ROOT, 'node_modules/aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
    ) as Record<string, unknown>;
    for (const [flag, value] of Object.entries(recommended)) expect(cdkJson.context[flag], flag).toEqual(value);
  });

  it('is environment-agnostic and needs no context lookups (synthesizes without credentials or network)', () => {
    expect(Stack.of(stack).account).toMatch(/^\$\{Token/);
    expect(Stack.of(stack).region).toMatch(/^\$\{Token/);
    const manifest = app.synth().manifest;
    expect(manifest.missing ?? []).toEqual([]);
  });
});

// ---- functions -------------------------------------------------------------------------------

describe('functions', () => {
  it('one function per route, the authorizer, and the events consumer and webhook delivery functions', () => {
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 1 + Object.keys(EVENT_FUNCTIONS).length);
  });

  it('use the newest Node.js runtime aws-cdk-lib offers', () => {
    const nodeRuntimes = Object.values(lambda.Runtime).filter(
      (r): r is lambda.Runtime => r instanceof lambda.Runtime && /^nodejs\d+\.x$/.test(r.name),
    );
    const newest = nodeRuntimes.sort((a, b) => parseInt(b.name.slice(6), 10) - parseInt(a.name.slice(6), 10))[0]!;
    expect(LAMBDA_RUNTIME.name).toBe(newest.name);
    expect(newest.name).toBe('nodejs24.x');
  });

  it('are arm64, ESM-bundled, 512 MB, 10 s (the events functions: their own timeouts), JSON logs into their own log group with retention', () => {
    const timeouts = new Map([
      [eventFunctionId('consumer'), CONSUMER_TIMEOUT.toSeconds()],
      [eventFunctionId('delivery'), DELIVERY_FUNCTION_TIMEOUT.toSeconds()],
    ]);
    const withoutTable = new Set(ROUTES.filter((r) => r.access === 'none').map((r) => functionIdOf(r.operation)));
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const p = fn.Properties;
      expect(p.Runtime, id).toBe(LAMBDA_RUNTIME.name);
      expect(p.Architectures, id).toEqual(['arm64']);
      expect(p.Handler, id).toBe('index.handler');
      expect(p.MemorySize, id).toBe(FUNCTION_MEMORY_MB);
      expect(p.Timeout, id).toBe(timeouts.get(id) ?? 10);
      if (!timeouts.has(id)) expect(p.Timeout, id).toBeLessThan(29);
      expect(p.LoggingConfig.LogFormat, id).toBe('JSON');
      const logGroup = resources[refId(p.LoggingConfig.LogGroup)!]!;
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays, id).toBe(30);
      expect(p.Environment.Variables.NODE_OPTIONS, 'no source maps, so no --enable-source-maps').toBeUndefined();
      expect(p.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe('timebill-api');
      expect(p.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('INFO');
      if (withoutTable.has(id)) expect(p.Environment.Variables.TABLE_NAME, id).toBeUndefined();
      else expect(refId(p.Environment.Variables.TABLE_NAME), id).toBe(tableId());
    }
  });

  it('give the cursor key only to the list functions, as a Secrets Manager dynamic reference', () => {
    const [[secretId]] = ofType('AWS::SecretsManager::Secret') as [[string, CfnResource]];
    for (const route of ROUTES) {
      const value = resources[functionIdOf(route.operation)]!.Properties.Environment.Variables.CURSOR_SIGNING_KEY;
      if (!signsCursors(route)) {
        expect(value, route.operation).toBeUndefined();
        continue;
      }
      expect(value, route.operation).toEqual({ 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] });
    }
    expect(ROUTES.filter(signsCursors).map((r) => r.operation)).toEqual(['listClients', 'listProjects', 'listTimeEntries', 'listEvents', 'listWebhookEndpoints']);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });

  it('the authorizer knows the user pool, the table and the invalid-token API key, and nothing else', () => {
    const vars = resources[authorizerFunctionId()]!.Properties.Environment.Variables;
    expect(Object.keys(vars).sort()).toEqual([
      'COGNITO_USER_POOL_ID',
      'INVALID_TOKEN_API_KEY',
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_SERVICE_NAME',
      'RESOURCE_SERVER_IDENTIFIER',
      'TABLE_NAME',
    ]);
    expect(vars.RESOURCE_SERVER_IDENTIFIER).toBe(RESOURCE_SERVER_IDENTIFIER);
    expect(resources[refId(vars.COGNITO_USER_POOL_ID)!]!.Type).toBe('AWS::Cognito::UserPool');
  });

  it('each route function is the bundle of its own entry, byte for byte what scripts/bundle-sizes.ts builds', (ctx) => {
    if (!sourcesSteady) ctx.skip('functions/ or shared/ changed while the stack was synthesized: nothing to compare');
    for (const route of ROUTES) {
      const file = assetFile(functionIdOf(route.operation));
      expect(existsSync(file), `${route.operation}: ESM output index.mjs`).toBe(true);
      const deployed = readFileSync(file);
      expect(Buffer.compare(deployed, Buffer.from(bundles.get(route.entry)!.contents)), route.operation).toBe(0);
    }
    const authorizer = readFileSync(assetFile(authorizerFunctionId()));
    expect(Buffer.compare(authorizer, Buffer.from(bundles.get('functions/authorizer.ts')!.contents))).toBe(0);
  });

  it('bundles are ESM with the require banner, contain no source map and load in Node exporting handler', () => {
    const files = ofType('AWS::Lambda::Function').map(([id]) => assetFile(id));
    for (const file of files) {
      const code = readFileSync(file, 'utf8');
      expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(code).not.toContain('sourceMappingURL');
      expect(readdirSync(path.dirname(file))).toEqual(['index.mjs']);
    }
    // Import each bundle in a fresh Node process, as the Lambda runtime would.
    const script = `
      const files = ${JSON.stringify(files.map((f) => pathToFileURL(f).href))};
      const kinds = [];
      for (const f of files) kinds.push(typeof (await import(f)).handler);
      console.log(JSON.stringify(kinds));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        TABLE_NAME: 'timebill-test',
        CURSOR_SIGNING_KEY: 'k'.repeat(64),
        COGNITO_USER_POOL_ID: 'eu-west-1_abcDEF123',
        INVALID_TOKEN_API_KEY: 'invalid-token-00000000-0000-0000-0000-000000000000',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      },
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual(files.map(() => 'function'));
  });
});

// ---- least privilege -------------------------------------------------------------------------

describe('IAM', () => {
  it('read routes only read, write routes also write, the authorizer only gets items', () => {
    for (const route of ROUTES) {
      expect([...dynamoActionsOf(functionIdOf(route.operation))].sort(), route.operation).toEqual([...TABLE_ACTIONS[route.access]].sort());
    }
    expect([...dynamoActionsOf(authorizerFunctionId())]).toEqual(['dynamodb:GetItem']);
    for (const route of ROUTES.filter((r) => r.access === 'read')) {
      for (const action of dynamoActionsOf(functionIdOf(route.operation))) {
        expect(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'], route.operation).toContain(action);
      }
    }
  });

  it('table actions apply to the table and its named indexes only; the authorizer to the table only', () => {
    const table = tableId();
    const tableArn = { 'Fn::GetAtt': [table, 'Arn'] };
    const indexArns = TABLE.indexes.map((i) => ({ 'Fn::Join': ['', [tableArn, `/index/${i.name}`]] }));
    for (const route of ROUTES) {
      const statements = statementsOf(functionIdOf(route.operation)).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')));
      if (route.access === 'none') {
        expect(statements, `${route.operation} has no access to the table`).toEqual([]);
        continue;
      }
      expect(statements, route.operation).toHaveLength(1);
      expect(statements[0].Resource, route.operation).toEqual([tableArn, ...indexArns]);
    }
    const authorizerStatements = statementsOf(authorizerFunctionId()).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')));
    expect(authorizerStatements.map((s) => s.Resource)).toEqual([tableArn]);
  });

  it('functions may write their own log group and nothing else besides the table (the events functions: see below)', () => {
    const events = new Set([eventFunctionId('consumer'), eventFunctionId('delivery')]);
    for (const [id, fn] of ofType('AWS::Lambda::Function').filter(([fnId]) => !events.has(fnId))) {
      const logGroup = refId(fn.Properties.LoggingConfig.LogGroup);
      for (const s of statementsOf(id)) {
        const actions = asArray<string>(s.Action);
        if (actions.every((a) => a.startsWith('dynamodb:'))) continue;
        expect(actions.sort(), id).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
        expect(s.Resource, id).toEqual({ 'Fn::GetAtt': [logGroup, 'Arn'] });
      }
    }
  });

  it('no statement anywhere grants a service wildcard, dynamodb:* or Scan', () => {
    const statements = [
      ...ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement),
      ...ofType('AWS::IAM::Role').flatMap(([, r]) => (r.Properties.Policies ?? []).flatMap((p: Json) => p.PolicyDocument.Statement)),
    ];
    for (const s of statements) {
      for (const action of asArray<string>(s.Action)) {
        expect(action).not.toMatch(/(^\*$|:\*$)/);
        expect(action).not.toBe('dynamodb:Scan');
      }
    }
  });

  it('every DynamoDB command any bundle can send is covered by the write routes grants', () => {
    // SDK command -> IAM action; transactions are authorized per item action.
    const write = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];
    const actionsOf: Record<string, string[]> = {
      Get: ['dynamodb:GetItem'],
      GetItem: ['dynamodb:GetItem'],
      BatchGet: ['dynamodb:BatchGetItem'],
      BatchGetItem: ['dynamodb:BatchGetItem'],
      Query: ['dynamodb:Query'],
      Put: ['dynamodb:PutItem'],
      PutItem: ['dynamodb:PutItem'],
      Update: ['dynamodb:UpdateItem'],
      UpdateItem: ['dynamodb:UpdateItem'],
      Delete: ['dynamodb:DeleteItem'],
      DeleteItem: ['dynamodb:DeleteItem'],
      TransactGet: ['dynamodb:GetItem'],
      TransactGetItems: ['dynamodb:GetItem'],
      TransactWrite: write,
      TransactWriteItems: write,
    };
    // Every source file bundled into any function (ours and libraries such as Powertools'
    // idempotency store), except the SDK itself, which defines every command.
    const files = new Set(
      [...bundles.values()].flatMap((b) => b.inputs).filter((f) => !/node_modules\/(@aws-sdk|@smithy)\//.test(f)),
    );
    const used = new Map<string, string>();
    for (const file of files) {
      const code = readFileSync(path.resolve(PROJECT_ROOT, file), 'utf8');
      for (const [, names] of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@aws-sdk\/(?:lib-dynamodb|client-dynamodb)['"]/g)) {
        for (const name of names!.split(',').map((n) => n.trim().replace(/^type\s+/, ''))) {
          const match = /^(\w+)Command$/.exec(name);
          if (match) used.set(match[1]!, file);
        }
      }
    }
    expect(used.size).toBeGreaterThan(0);
    for (const [command, file] of used) {
      expect(actionsOf[command], `${command}Command (${file}) has no mapping: grant its action in infra/access.ts and add it here`).toBeDefined();
      for (const action of actionsOf[command]!) expect(TABLE_ACTIONS.write, `${command}Command (${file})`).toContain(action);
    }
  });
});

// ---- API -------------------------------------------------------------------------------------

describe('REST API', () => {
  it('is a regional REST API with its execute-api endpoint and no request validators', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
      DisableExecuteApiEndpoint: false,
    });
    template.resourceCountIs('AWS::ApiGateway::RequestValidator', 0);
    for (const [, m] of ofType('AWS::ApiGateway::Method')) {
      expect(m.Properties.RequestValidatorId).toBeUndefined();
    }
  });

  it('has exactly the methods of the route table, each integrated with its own function by Lambda proxy', () => {
    template.resourceCountIs('AWS::ApiGateway::Method', ROUTES.length);
    const functionIds = new Set<string>();
    for (const route of ROUTES) {
      const [, method] = methodOf(route.method, route.path);
      expect(method.Properties.OperationName).toBe(route.operation);
      expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
      expect(method.Properties.Integration.IntegrationHttpMethod).toBe('POST');
      const fnId = integratedFunction(method);
      expect(fnId).toMatch(new RegExp(`^${constructName(route.operation)}Function`));
      expect(resources[fnId]!.Properties.Description).toBe(`${route.operation}: ${route.method} ${route.path} (${route.scope ?? 'public'})`);
      functionIds.add(fnId);
    }
    expect(functionIds.size).toBe(ROUTES.length);
  });

  it('every method but the public ones requires the Lambda TOKEN authorizer (Authorization header, cached per token)', () => {
    const [[authorizerId, authorizer]] = ofType('AWS::ApiGateway::Authorizer') as [[string, CfnResource]];
    expect(authorizer.Properties).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
    expect(authorizer.Properties.IdentityValidationExpression).toBeUndefined();
    for (const route of ROUTES) {
      const [id, m] = methodOf(route.method, route.path);
      if (isPublic(route)) {
        expect(m.Properties.AuthorizationType, id).toBe('NONE');
        expect(m.Properties.AuthorizerId, id).toBeUndefined();
      } else {
        expect(m.Properties.AuthorizationType, id).toBe('CUSTOM');
        expect(m.Properties.AuthorizerId, id).toEqual({ Ref: authorizerId });
      }
    }
    // Public means without a scope, and today that is only the OpenAPI document.
    expect(ROUTES.filter(isPublic).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/openapi.json']);
  });

  it('API Gateway may invoke each route function only for its own method on the stage', () => {
    const permissions = ofType('AWS::Lambda::Permission');
    for (const route of ROUTES) {
      const fnId = functionIdOf(route.operation);
      const own = permissions.filter(([, p]) => refId(p.Properties.FunctionName) === fnId);
      expect(own, route.operation).toHaveLength(1);
      const sourceArn: Json[] = own[0]![1].Properties.SourceArn['Fn::Join'][1];
      expect(sourceArn.at(-1), route.operation).toBe(`/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`);
      expect(refId(sourceArn.at(-2))).toMatch(/^ApiDeploymentStage/);
    }
  });

  it(`stage ${STAGE_NAME}: throttled, JSON access logs with retention, error-only execution logs without bodies`, () => {
    const [[, stage]] = ofType('AWS::ApiGateway::Stage') as [[string, CfnResource]];
    expect(stage.Properties.StageName).toBe(STAGE_NAME);
    expect(stage.Properties.MethodSettings).toEqual([
      {
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: STAGE_THROTTLING.rateLimit,
        ThrottlingBurstLimit: STAGE_THROTTLING.burstLimit,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        MetricsEnabled: false,
      },
    ]);
    const format: string = stage.Properties.AccessLogSetting.Format;
    expect(format).toBe(ACCESS_LOG_FORMAT);
    // Valid JSON once API Gateway substitutes the variables (`-` when a value is absent).
    const sample = JSON.parse(format.replace('$context.status', '429').replace(/\$context\.[\w.]+/g, '-')) as Record<string, unknown>;
    expect(sample).toMatchObject({ status: 429, requestId: '-', errorType: '-', errorMessage: '-' });
    expect(JSON.parse(format.replace('$context.status', '200'))).toMatchObject({ requestId: '$context.requestId', errorType: '$context.error.responseType' });
    const logGroupId = (stage.Properties.AccessLogSetting.DestinationArn['Fn::Join'][1] as Json[]).map(refId).find((id) => id && resources[id]?.Type === 'AWS::Logs::LogGroup')!;
    expect(resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
    // REST API logging goes through the account's API Gateway CloudWatch role, kept on teardown.
    const [[accountId, account]] = ofType('AWS::ApiGateway::Account') as [[string, CfnResource]];
    expect(account.DeletionPolicy).toBe('Retain');
    expect(stage.DependsOn).toContain(accountId);
  });

  it('installs every gateway response of shared/http/gateway-responses.ts in the contract error shape', () => {
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', GATEWAY_RESPONSES.length);
    for (const def of GATEWAY_RESPONSES) {
      const found = ofType('AWS::ApiGateway::GatewayResponse').filter(([, r]) => r.Properties.ResponseType === def.type);
      expect(found, def.type).toHaveLength(1);
      const p = found[0]![1].Properties;
      expect(p.StatusCode, def.type).toBe(def.statusCode === undefined ? undefined : String(def.statusCode));
      expect(p.ResponseTemplates, def.type).toEqual({ 'application/json': gatewayResponseTemplate(def) });
      const expected: Record<string, string> = {};
      for (const [name, value] of Object.entries(def.headers)) expected[`gatewayresponse.header.${name}`] = `'${value}'`;
      for (const [name, source] of Object.entries(def.contextHeaders)) expected[`gatewayresponse.header.${name}`] = source;
      expect(p.ResponseParameters, def.type).toEqual(expected);
      expect(p.ResponseParameters['gatewayresponse.header.X-Request-Id']).toBe('context.requestId');
      expect(JSON.parse(p.ResponseTemplates['application/json'])).toMatchObject({ error: { type: def.errorType, request_id: '$context.requestId' } });
    }
  });

  it('unknown routes and methods answer 404 not_found, missing tokens 401, throttling 429 with Retry-After', () => {
    const byType = (type: string) => ofType('AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties.ResponseType === type)![1].Properties;
    expect(byType('MISSING_AUTHENTICATION_TOKEN').StatusCode).toBe('404');
    expect(JSON.parse(byType('MISSING_AUTHENTICATION_TOKEN').ResponseTemplates['application/json']).error.type).toBe('not_found');
    expect(byType('UNAUTHORIZED').StatusCode).toBe('401');
    expect(byType('UNAUTHORIZED').ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toMatch(/^'Bearer /);
    expect(byType('THROTTLED').StatusCode).toBe('429');
    expect(byType('THROTTLED').ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
  });

  it('authorizer and integration failures (Lambda throttled, timed out, authorizer threw) are 503 service_unavailable with Retry-After', () => {
    const byType = (type: string) => ofType('AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties.ResponseType === type)![1].Properties;
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR', 'INTEGRATION_FAILURE', 'INTEGRATION_TIMEOUT']) {
      expect(byType(type).StatusCode, type).toBe('503');
      expect(byType(type).ResponseParameters['gatewayresponse.header.Retry-After'], type).toMatch(/^'\d+'$/);
      expect(JSON.parse(byType(type).ResponseTemplates['application/json']).error.type, type).toBe('service_unavailable');
    }
  });

  it('quotes static header values and refuses values API Gateway cannot quote', () => {
    const def = { ...GATEWAY_RESPONSES[0]!, headers: { 'X-Test': "it's" } };
    expect(() => gatewayResponseHeaders(def)).toThrow(/single quote/);
  });
});

// ---- data and identity -----------------------------------------------------------------------

describe('DynamoDB table', () => {
  it('is shared/data/table.ts: keys, GSIs (API fields projected), TTL; on demand, PITR, deletion protection, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    const [[, table]] = ofType('AWS::DynamoDB::Table') as [[string, CfnResource]];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    const p = table.Properties;
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.DeletionProtectionEnabled).toBe(true);
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: TABLE.ttlAttribute, Enabled: true });
    expect(p.KeySchema).toEqual([
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(p.GlobalSecondaryIndexes).toEqual(
      TABLE.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...i.projected] },
      })),
    );
    // The deletion-guard counters stay out of every index, so counting never writes an index item.
    for (const i of TABLE.indexes) expect(i.projected).not.toContain('project_count');
    for (const i of TABLE.indexes) expect(i.projected).not.toContain('time_entry_count');
    const keyAttributes = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    expect(p.AttributeDefinitions).toEqual(keyAttributes.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })));
  });
});

describe('Cognito', () => {
  it('user pool: no self sign-up, deletion protection, retained', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    const [[, pool]] = ofType('AWS::Cognito::UserPool') as [[string, CfnResource]];
    expect(pool.Properties.AdminCreateUserConfig).toEqual({ AllowAdminCreateUserOnly: true });
    expect(pool.Properties.DeletionProtection).toBe('ACTIVE');
    expect(pool.DeletionPolicy).toBe('Retain');
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 0); // app clients come from npm run integration:create
  });

  it('resource server carries exactly the nine API scopes', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: RESOURCE_SERVER_IDENTIFIER,
      Scopes: SCOPES.map((scope) => ({ ScopeName: scope, ScopeDescription: `Timebill API ${scope}` })),
    });
    expect(SCOPES).toHaveLength(9);
  });

  it('has a Cognito domain (prefix from context, default timebill-<account>) for the token endpoint', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
      Domain: { 'Fn::Join': ['-', ['timebill', { Ref: 'AWS::AccountId' }]] },
    });
    // Another app, with bundling skipped (`aws:cdk:bundling-stacks`): only the template matters here.
    const other = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    const custom = new TimebillApiStack(other, 'Custom', { cognitoDomainPrefix: 'acme-timebill' });
    Template.fromStack(custom).hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-timebill' });
  });
});

// ---- operations ------------------------------------------------------------------------------

describe('alarms', () => {
  const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const topicId = () => ofType('AWS::SNS::Topic')[0]![0];

  it('5xx rate of the stage', () => {
    const rate = alarms().find((a) => a.Metrics?.some((m: Json) => m.MetricStat?.Metric.MetricName === '5XXError'));
    expect(rate).toBeDefined();
    expect(rate.Metrics.find((m: Json) => m.Expression)?.Expression).toBe('100 * errors / requests');
    const names = rate.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric.MetricName).sort();
    expect(names).toEqual(['5XXError', 'Count']);
    expect(rate.Threshold).toBe(1);
  });

  it('throttled requests (429s counted from the access log)', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = 429 }',
      MetricTransformations: [{ MetricName: 'ThrottledRequests', MetricNamespace: 'TimebillApi', MetricValue: '1' }],
    });
    expect(alarms().some((a) => a.MetricName === 'ThrottledRequests' && a.Namespace === 'TimebillApi')).toBe(true);
  });

  it('errors of every function, the authorizer included', () => {
    for (const [id] of ofType('AWS::Lambda::Function')) {
      const alarm = alarms().find(
        (a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda' && a.Dimensions?.some((d: Json) => d.Name === 'FunctionName' && refId(d.Value) === id),
      );
      expect(alarm, id).toBeDefined();
    }
  });

  it('all notify the alarm topic, which accepts only TLS publishers', () => {
    expect(alarms()).toHaveLength(ROUTES.length + 1 + 2 + stack.events.alarms.length);
    for (const alarm of alarms()) expect(alarm.AlarmActions).toEqual([{ Ref: topicId() }]);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: [{ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] },
    });
  });
});

describe('outputs', () => {
  it('API URL (base and /api/v1), token endpoint, user pool, table, resource server, region, alarm topic, usage plans', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: Json }>;
    expect(Object.keys(outputs).sort()).toEqual([...Object.values(OUTPUTS), ...PLAN_NAMES.map(usagePlanOutput)].sort());
    const joined = (name: string) => JSON.stringify(outputs[name]!.Value);
    expect(joined(OUTPUTS.apiUrl)).toMatch(/execute-api.*\/prod"\]\]\}$/);
    expect(joined(OUTPUTS.apiV1Url)).toMatch(/\/prod\/api\/v1"\]\]\}$/);
    expect(joined(OUTPUTS.tokenEndpoint)).toMatch(/amazoncognito\.com\/oauth2\/token/);
    expect(refId(outputs[OUTPUTS.userPoolId]!.Value)).toBe(ofType('AWS::Cognito::UserPool')[0]![0]);
    expect(refId(outputs[OUTPUTS.tableName]!.Value)).toBe(tableId());
    expect(outputs[OUTPUTS.resourceServerIdentifier]!.Value).toBe(RESOURCE_SERVER_IDENTIFIER);
  });
});

// ---- events and webhooks ---------------------------------------------------------------------

describe('events pipeline', () => {
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

  it('the table streams new and old images', () => {
    expect(resources[tableId()]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('the consumer reads the stream from its start, bisects failing batches, retries, then sends them to the failure queue; only resource items invoke it', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => refId(m.Properties.FunctionName) === eventFunctionId('consumer'));
    expect(mappings).toHaveLength(1);
    const p = mappings[0]![1].Properties;
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [tableId(), 'StreamArn'] });
    expect(p).toMatchObject({ StartingPosition: 'TRIM_HORIZON', BisectBatchOnFunctionError: true, MaximumRetryAttempts: STREAM_RETRY_ATTEMPTS, ParallelizationFactor: 1 });
    expect(p.DestinationConfig.OnFailure.Destination).toEqual(arnOf(idOf(stack.events.streamFailureQueue)));
    expect(JSON.parse(p.FilterCriteria.Filters[0].Pattern)).toEqual({
      dynamodb: { Keys: { SK: { S: [{ prefix: 'CLIENT#' }, { prefix: 'PROJECT#' }, { prefix: 'TIME_ENTRY#' }] } } },
    });
  });

  it('deliveries go through a queue whose dead-letter queue takes them after the schedule\'s last attempt; the delivery function reports partial failures', () => {
    const queue = resources[idOf(stack.events.deliveryQueue)]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: arnOf(idOf(stack.events.deliveryDeadLetterQueue)), maxReceiveCount: AWS_RETRY_SCHEDULE.maxAttempts });
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(DELIVERY_FUNCTION_TIMEOUT.toSeconds());
    expect(queue.MessageRetentionPeriod).toBeGreaterThan(3 * 24 * 3600 + 12 * 3600);
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => refId(m.Properties.FunctionName) === eventFunctionId('delivery'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({ EventSourceArn: arnOf(idOf(stack.events.deliveryQueue)), FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(resources[eventFunctionId('consumer')]!.Properties.Environment.Variables.DELIVERY_QUEUE_URL).toEqual({ Ref: idOf(stack.events.deliveryQueue) });
    expect(resources[eventFunctionId('delivery')]!.Properties.Environment.Variables.WEBHOOK_ALLOW_LOOPBACK).toBeUndefined();
  });

  it('every queue is KMS-encrypted and refuses requests without TLS; the dead-letter destinations say they are', () => {
    for (const [id, q] of ofType('AWS::SQS::Queue')) {
      expect(q.Properties.KmsMasterKeyId, id).toBe('alias/aws/sqs');
      const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) => p.Properties.Queues.some((r: Json) => refId(r) === id));
      expect(policy, id).toBeDefined();
      expect(policy![1].Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      );
    }
    for (const q of [stack.events.deliveryDeadLetterQueue, stack.events.streamFailureQueue]) {
      expect(resources[idOf(q)]!.Properties.RedriveAllowPolicy).toEqual({ redrivePermission: 'allowAll' });
    }
  });

  it('least privilege: the consumer reads its stream, appends to the table and sends to the delivery queue; the delivery function reads items and consumes its queue', () => {
    const table = tableId();
    const summary = (fnId: string) =>
      statementsOf(fnId)
        .map((s) => ({ actions: asArray<string>(s.Action).sort(), resource: s.Resource }))
        .filter((s) => !s.actions.every((a) => a.startsWith('logs:')));
    expect(summary(eventFunctionId('consumer'))).toEqual(
      expect.arrayContaining([
        { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], resource: arnOf(table) },
        { actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], resource: [arnOf(idOf(stack.events.deliveryQueue)), arnOf(idOf(stack.events.streamFailureQueue))] },
        { actions: ['dynamodb:ListStreams'], resource: '*' },
        { actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], resource: { 'Fn::GetAtt': [table, 'StreamArn'] } },
      ]),
    );
    expect(summary(eventFunctionId('consumer'))).toHaveLength(4);
    expect(summary(eventFunctionId('delivery'))).toEqual([
      { actions: ['dynamodb:GetItem'], resource: arnOf(table) },
      { actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'], resource: arnOf(idOf(stack.events.deliveryQueue)) },
    ]);
  });

  it('alarms on dead-lettered deliveries, stream failures and a consumer behind its stream', () => {
    const alarmOf = (alarm: { node: { defaultChild?: unknown } }) => resources[idOf(alarm)]!.Properties;
    expect(alarmOf(stack.events.deliveryDeadLetterAlarm)).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, Dimensions: [{ Value: { 'Fn::GetAtt': [idOf(stack.events.deliveryDeadLetterQueue), 'QueueName'] } }] });
    expect(alarmOf(stack.events.streamFailureAlarm)).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, Dimensions: [{ Value: { 'Fn::GetAtt': [idOf(stack.events.streamFailureQueue), 'QueueName'] } }] });
    expect(alarmOf(stack.events.iteratorAgeAlarm)).toMatchObject({ MetricName: 'IteratorAge', Namespace: 'AWS/Lambda', Statistic: 'Maximum' });
  });
});

// ---- cdk-nag ---------------------------------------------------------------------------------

describe('cdk-nag AwsSolutions', () => {
  const violations = (scope: Stack) =>
    new AwsSolutionsChecks(app).validateScope(scope).violations.map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => (r as Json).constructPath).join(', ')}`);

  it('reports nothing that the stack has not acknowledged', () => {
    expect(violations(stack)).toEqual([]);
  });

  it('every acknowledgement has a written reason', () => {
    const acknowledged: Array<[string, string]> = [];
    for (const construct of stack.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type === 'aws:cdk:acknowledged-rules') acknowledged.push(...Object.entries(entry.data as Record<string, string>));
      }
    }
    const { publicMethod, ...once } = NAG_ACKNOWLEDGEMENTS;
    expect(acknowledged.length).toBe(Object.values(once).flat().length + publicMethod.length * ROUTES.filter(isPublic).length);
    for (const [id, reason] of acknowledged) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length, id).toBeGreaterThan(80);
    }
  });

  it('every acknowledgement is still needed: without them cdk-nag reports exactly those rules', () => {
    const reported = new Set(violations(unacknowledged).map((v) => v.split(' ')[0]));
    const acknowledgedIds = new Set(Object.values(NAG_ACKNOWLEDGEMENTS).flat().map((a) => a.id));
    expect([...reported].sort()).toEqual([...acknowledgedIds].sort());
  });
});
