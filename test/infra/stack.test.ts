/**
 * The CDK stacks of one environment, proven offline: synthesized once (bundling every function
 * with esbuild) and read as one template (test/infra/support/templates.ts), then checked against
 * the route table, the table definition and the gateway responses they are built from, against
 * cdk-nag's AwsSolutions pack, and against the bundles scripts/bundle-sizes.ts builds. The Control
 * Tower rules run in control-tower.test.ts; the stack layout is layout.test.ts's.
 */
import { DEFAULT_TRACE_SAMPLING } from '../../infra/logging.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { App, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TABLE_ACTIONS } from '../../infra/access.ts';
import { ESM_REQUIRE_BANNER, PROJECT_ROOT } from '../../infra/bundling.ts';
import { DEFAULT_STACK_NAME, OUTPUTS, RESOURCE_SERVER_IDENTIFIER, STAGE_NAME, usagePlanOutput } from '../../infra/names.ts';
import { PLAN_NAMES } from '../../shared/core/plan-limits.ts';
import {
  ACCESS_LOG_FORMAT,
  FUNCTION_MEMORY_MB,
  LAMBDA_RUNTIME,
  NAG_ACKNOWLEDGEMENTS,
  QUEUE_CONSUMER_MAX_CONCURRENCY,
  QUEUE_RETENTION,
  TimebillApi,
  constructName,
  gatewayResponseHeaders,
  isPublic,
  signsCursors,
} from '../../infra/stack.ts';
import type { BundleSize } from '../../scripts/bundle-sizes.ts';
import { FONT_FILE } from '../../shared/document/font.ts';
import { ROUTES, SCOPES, accessOf } from '../../shared/api/routes.ts';
import { BACKGROUND_FUNCTIONS, type BackgroundFunction } from '../../shared/api/background.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, STAGE_THROTTLING } from '../../infra/names.ts';
import { TABLE } from '../../shared/data/table.ts';
import { GATEWAY_RESPONSES, gatewayResponseTemplate } from '../../shared/http/gateway-responses.ts';
import { ENVIRONMENTS, NO_DEPENDENCY_TIMEOUT_SECONDS } from '../../infra/config/environments.ts';
import { readBundles, sourceFingerprint } from './support/bundles.ts';
import { environmentTemplate } from './support/templates.ts';
import { tempApp } from './support/temp-app.ts';
import { removeTempDirs } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface CfnResource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
}

const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { app: string; notices: boolean; context: Record<string, unknown> };

/** Functions that are not routes, as issue 12 declares them: a stream consumer sending to a queue, and its worker. */
const BACKGROUND_SAMPLE: readonly BackgroundFunction[] = [
  { operation: 'recordEvents', entry: 'functions/clients/retrieve.ts', description: 'Stream consumer', trigger: 'table-stream', table: 'write', sendsTo: ['deliveries'], batchSize: 50 },
  { operation: 'deliverEvents', entry: 'functions/clients/list.ts', description: 'Queue worker', trigger: 'queue', queue: 'deliveries', table: 'read' },
];

let outdir: string;
let app: App;
let stack: TimebillApi;
let unacknowledged: TimebillApi;
let withBackground: TimebillApi;
let template: Template;
let resources: Record<string, CfnResource>;
let bundles: Map<string, BundleSize>;
/** Whether the sources stayed the same from measuring to synthesis (an editor may save meanwhile). */
let sourcesSteady: boolean;

const bundlingLines: string[] = [];

/** Entries CDK bundles with esbuild itself here: the authorizer and the largest function. */
const BUNDLED_BY_ESBUILD = ['functions/authorizer.ts', ROUTES.find((r) => r.operation === 'createInvoice')!.entry];

/** The esbuild command lines CDK ran, one per function, as recorded by the shim below. */
const esbuildCalls: string[][] = [];
/** The shims' directories, removed at the end. */
const shimDirs: string[] = [];

/**
 * Runs `build` with CDK's NodejsFunction bundling calling an `esbuild` found first on PATH: a shim
 * that records its arguments, then runs the repository's esbuild for the entries of
 * BUNDLED_BY_ESBUILD and copies the global setup's bundle (scripts/bundle-sizes.ts) for the others.
 * An esbuild that is not a workspace package CDK runs as `esbuild <args>` (a project's own it runs
 * through `npx --no-install`, an npm start-up per function). One real esbuild per function cost
 * about 30 s of CPU, most of this file's; the proof stays: CDK passes every function the same
 * arguments but its entry and output file (checked below), and for those arguments esbuild's
 * output is compared byte for byte with the script's.
 */
function withRecordingEsbuild<T>(prebuilt: Map<string, BundleSize>, build: () => T): T {
  const require = createRequire(import.meta.url);
  const { Bundling } = require(path.join(PROJECT_ROOT, 'node_modules/aws-cdk-lib/aws-lambda-nodejs/lib/bundling.js')) as {
    Bundling: { esbuildInstallation?: { isWorkspacePackage: boolean; version: string }; clearEsbuildInstallationCache(): void };
  };
  const { version } = require('esbuild/package.json') as { version: string };
  const shimDir = mkdtempSync(path.join(tmpdir(), 'timebill-esbuild-'));
  shimDirs.push(shimDir);
  const records = path.join(shimDir, 'calls');
  const copies = path.join(shimDir, 'bundles');
  mkdirSync(records, { recursive: true });
  for (const [entry, bundle] of prebuilt) {
    if (BUNDLED_BY_ESBUILD.includes(entry)) continue;
    const file = path.join(copies, path.resolve(PROJECT_ROOT, entry));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bundle.contents);
  }
  const shim = path.join(shimDir, 'esbuild');
  writeFileSync(
    shim,
    [
      '#!/bin/sh',
      'entry= out= previous=',
      'for arg in "$@"; do',
      '  [ "$previous" = --bundle ] && entry=$arg',
      '  case $arg in --outfile=*) out=${arg#--outfile=} ;; esac',
      '  previous=$arg',
      'done',
      `printf '%s\\0' "$@" > "$(mktemp ${JSON.stringify(records)}/call.XXXXXX)"`,
      `[ -f ${JSON.stringify(copies)}"$entry" ] && exec cp ${JSON.stringify(copies)}"$entry" "$out"`,
      `exec ${JSON.stringify(path.join(PROJECT_ROOT, 'node_modules/.bin/esbuild'))} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const pathBefore = process.env.PATH;
  process.env.PATH = `${shimDir}${path.delimiter}${pathBefore}`;
  Bundling.esbuildInstallation = { isWorkspacePackage: false, version };
  try {
    return build();
  } finally {
    Bundling.clearEsbuildInstallationCache();
    process.env.PATH = pathBefore;
    for (const file of readdirSync(records)) esbuildCalls.push(readFileSync(path.join(records, file), 'utf8').split('\0').slice(0, -1));
  }
}

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'timebill-cdk-'));
  // Same feature flags as `npx cdk synth` (cdk.json); no env: the stack is environment-agnostic.
  app = new App({ context: cdkJson.context, outdir });
  // CDK says "Bundling asset <path>..." on stderr for each function it bundles: kept (and checked
  // below), so that a green run prints nothing.
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const progress = vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (!text.startsWith('Bundling asset ')) return (stderrWrite as (...args: unknown[]) => boolean)(chunk, ...rest);
    bundlingLines.push(text.trim());
    return true;
  }) as typeof process.stderr.write);
  // Built by the infra project's global setup (support/bundles.ts), to compare with the stack's assets.
  const built = readBundles(inject('infraAssembly'));
  bundles = new Map(built.sizes.map((b) => [b.entry, b]));
  try {
    withRecordingEsbuild(bundles, () => {
      stack = new TimebillApi(new Stage(app, 'Main'), { stackName: DEFAULT_STACK_NAME });
      // The same stacks without the acknowledgements (bundles come from the asset cache).
      unacknowledged = new TimebillApi(new Stage(app, 'Unacknowledged'), { acknowledgeNagFindings: false });
      // With functions that are not routes (a stream consumer, a queue worker and its sender); their
      // entries reuse route handlers, whose bundles are in the asset cache: the wiring is under test.
      withBackground = new TimebillApi(new Stage(app, 'WithBackground'), { backgroundFunctions: BACKGROUND_SAMPLE });
    });
  } finally {
    progress.mockRestore();
  }
  template = environmentTemplate(stack);
  resources = template.toJSON().Resources as Record<string, CfnResource>;
  sourcesSteady = sourceFingerprint() === built.fingerprint;
});

afterAll(() => {
  for (const dir of [outdir, ...shimDirs]) if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- helpers ---------------------------------------------------------------------------------

/**
 * One more environment, bundling skipped (`aws:cdk:bundling-stacks`), built once for the tests
 * that change a setting and read what follows: another Cognito domain prefix, a longer log
 * retention and no function that is not a route. Each test reads only its own setting's part.
 */
const VARIANT = { cognitoDomainPrefix: 'acme-timebill-prod', logRetention: RetentionDays.TWO_YEARS } as const;
let variantResources: Record<string, CfnResource> | undefined;
function variant(): Record<string, CfnResource> {
  variantResources ??= environmentTemplate(
    new TimebillApi(tempApp({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } }), {
      config: { ...ENVIRONMENTS.prod, cognitoDomainPrefix: VARIANT.cognitoDomainPrefix },
      logRetention: VARIANT.logRetention,
      backgroundFunctions: [],
    }),
  ).toJSON().Resources as Record<string, CfnResource>;
  return variantResources;
}

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

/** The function behind a reference to a function or to one of its aliases (the `live` alias). */
function functionBehind(value: Json): string {
  const id = refId(value)!;
  const target = resources[id]!;
  if (target.Type === 'AWS::Lambda::Alias') return refId(target.Properties.FunctionName)!;
  expect(target.Type).toBe('AWS::Lambda::Function');
  return id;
}

/** The alias an integration or authorizer URI calls (it never calls a function directly). */
function aliasIn(uri: Json): string {
  const parts: Json[] = uri['Fn::Join'][1];
  const ids = parts.map(refId).filter((id): id is string => id !== undefined && id in resources);
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) expect(resources[id]!.Type, id).toBe('AWS::Lambda::Alias');
  return ids[0]!;
}

/** The Lambda function a method integrates with (through its `live` alias, from the integration URI). */
function integratedFunction(method: CfnResource): string {
  return functionBehind({ Ref: aliasIn(method.Properties.Integration.Uri) });
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
  return functionBehind({ Ref: aliasIn(authorizer.Properties.AuthorizerUri) });
}

/** The CodeDeploy pre-traffic hook: the one function that is neither a route nor the authorizer. */
/** The pre-traffic hooks: one per stack of functions (decision 0031). */
const smokeTestIds = () => ofType('AWS::Lambda::Function').filter(([, f]) => String(f.Properties.Description).startsWith('CodeDeploy pre-traffic hook')).map(([id]) => id);
const isSmokeTest = (id: string) => smokeTestIds().includes(id);

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
  // Assets are staged once for the whole app, in its output directory (not each Stage's).
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
    for (const s of Object.values(stack.stacks)) {
      expect(s.account).toMatch(/^\$\{Token/);
      expect(s.region).toMatch(/^\$\{Token/);
    }
    // The Main stage's assembly (synthesized for the template already): no context it had to look up.
    const manifest = Stage.of(stack.apiStack)!.synth().manifest;
    expect(manifest.missing ?? []).toEqual([]);
    expect(Object.keys(manifest.artifacts ?? {}).length).toBeGreaterThanOrEqual(4);
  });
});

// ---- functions -------------------------------------------------------------------------------

describe('functions', () => {
  it('one function per route and per function that is not a route, plus the authorizer and the smoke test of each stack of functions', () => {
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + BACKGROUND_FUNCTIONS.length + 3);
    expect(smokeTestIds().map((id) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['SmokeTestHookFunction', 'BillingSmokeTestHookFunction']);
  });

  it('are each bundled once for all three apps (the others reuse the asset cache), as CDK says on stderr', () => {
    const bundled = bundlingLines.map((line) => line.replace(/^Bundling asset (.*)\.\.\.$/, '$1'));
    expect(new Set(bundled).size).toBe(bundled.length);
    expect(bundled.length).toBeGreaterThanOrEqual(ROUTES.length + 1);
    expect(bundled.every((p) => p.startsWith('Main/'))).toBe(true);
  });

  it('use the newest Node.js runtime aws-cdk-lib offers', () => {
    const nodeRuntimes = Object.values(lambda.Runtime).filter(
      (r): r is lambda.Runtime => r instanceof lambda.Runtime && /^nodejs\d+\.x$/.test(r.name),
    );
    const newest = nodeRuntimes.sort((a, b) => parseInt(b.name.slice(6), 10) - parseInt(a.name.slice(6), 10))[0]!;
    expect(LAMBDA_RUNTIME.name).toBe(newest.name);
    expect(newest.name).toBe('nodejs24.x');
  });

  it('are arm64, ESM-bundled, 512 MB, 10 s (the OpenAPI document 3 s, the smoke test 30 s, background functions as declared), JSON logs into their own log group with retention', () => {
    const withoutTable = new Set([...ROUTES.filter((r) => accessOf(r) === 'none').map((r) => functionIdOf(r.operation)), ...smokeTestIds()]);
    const background = new Map(
      BACKGROUND_FUNCTIONS.map((f) => [ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(`${constructName(f.operation)}Function`))![0], f.timeoutSeconds]),
    );
    expect([...background.values()].every((t) => t !== undefined)).toBe(true);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const p = fn.Properties;
      expect(p.Runtime, id).toBe(LAMBDA_RUNTIME.name);
      expect(p.Architectures, id).toEqual(['arm64']);
      expect(p.Handler, id).toBe('index.handler');
      expect(p.MemorySize, id).toBe(FUNCTION_MEMORY_MB);
      const callsNothing = ROUTES.filter((r) => accessOf(r) === 'none').map((r) => functionIdOf(r.operation));
      expect(p.Timeout, id).toBe(isSmokeTest(id) ? 30 : callsNothing.includes(id) ? NO_DEPENDENCY_TIMEOUT_SECONDS : background.has(id) ? background.get(id) : 10);
      // Behind API Gateway: under its 29 s. Nothing waits on a background function but its event source.
      if (!isSmokeTest(id) && !background.has(id)) expect(p.Timeout, id).toBeLessThan(29);
      expect(p.LoggingConfig.LogFormat, id).toBe('JSON');
      const logGroup = resources[refId(p.LoggingConfig.LogGroup)!]!;
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays, id).toBe(365);
      expect(refId(logGroup.Properties.KmsKeyId), id).toBe(logsKeyId());
      expect(p.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(p.Environment?.Variables?.NODE_OPTIONS, 'no source maps, so no --enable-source-maps').toBeUndefined();
      expect(p.LoggingConfig.ApplicationLogLevel, id).toBe('INFO');
      if (withoutTable.has(id)) expect(p.Environment?.Variables?.TABLE_NAME, id).toBeUndefined();
      else expect(refId(p.Environment.Variables.TABLE_NAME), id).toBe(tableId());
    }
  });

  it('let only the list functions read the cursor key, at run time through the Parameters and Secrets extension, by its ARN (issue 29)', () => {
    const [[secretId]] = ofType('AWS::SecretsManager::Secret') as [[string, CfnResource]];
    for (const route of ROUTES) {
      const fn = resources[functionIdOf(route.operation)]!.Properties;
      const reads = statementsOf(functionIdOf(route.operation)).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('secretsmanager:')));
      if (!signsCursors(route)) {
        expect(fn.Environment?.Variables?.CURSOR_SIGNING_KEY_SECRET, route.operation).toBeUndefined();
        expect(fn.Layers, route.operation).toBeUndefined();
        expect(reads, route.operation).toEqual([]);
        continue;
      }
      expect(fn.Environment.Variables.CURSOR_SIGNING_KEY_SECRET, route.operation).toEqual({ Ref: secretId });
      // The extension's layer, by region from CDK's map of AWS's published ARNs, for the functions' arm64.
      expect(fn.Layers, route.operation).toEqual([{ 'Fn::FindInMap': [expect.stringMatching(/^Paramsandsecretslayer/i), { Ref: 'AWS::Region' }, expect.stringMatching(/arm64$/)] }]);
      expect(reads.flatMap((s) => asArray<string>(s.Action)).sort(), route.operation).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      for (const s of reads) expect(s.Resource, route.operation).toEqual({ Ref: secretId });
    }
    expect(ROUTES.filter(signsCursors).map((r) => r.operation)).toEqual([
      'listClients',
      'listProjects',
      'listTimeEntries',
      'listTimeSummaries',
      'listInvoices',
      'listPayments',
      'listBillingRuns',
      'listBillingRunResults',
      'listEvents',
      'listWebhookEndpoints',
    ]);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });

  it('put no secret in any function\'s environment: no dynamic reference, no secret value, no key by name (issue 29)', () => {
    const templates = [resources, ...[unacknowledged, withBackground].map((s) => environmentTemplate(s).toJSON().Resources as Record<string, CfnResource>)];
    let checked = 0;
    for (const all of templates) {
      for (const [id, fn] of Object.entries(all).filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
        checked++;
        const variables: Record<string, Json> = fn.Properties.Environment?.Variables ?? {};
        const text = JSON.stringify(variables);
        expect(text, id).not.toMatch(/\{\{resolve:(secretsmanager|ssm-secure):|SecretString|SecretValue/);
        expect(Object.keys(variables).filter((name) => /SIGNING_KEY$|PASSWORD|PRIVATE/.test(name)), id).toEqual([]);
        for (const [name, value] of Object.entries(variables)) {
          // A name ending in _SECRET holds a secret's ARN (a Ref to it), never its value.
          if (name.endsWith('_SECRET')) expect(all[refId(value) ?? '']?.Type, `${id} ${name}`).toBe('AWS::SecretsManager::Secret');
        }
      }
    }
    expect(checked).toBeGreaterThan(3 * ROUTES.length);
  });

  it('the authorizer knows the user pool, the table and the invalid-token API key, and nothing else', () => {
    const vars = resources[authorizerFunctionId()]!.Properties.Environment.Variables;
    expect(Object.keys(vars).sort()).toEqual([
      'COGNITO_USER_POOL_ID',
      'INVALID_TOKEN_API_KEY',
      'RESOURCE_SERVER_IDENTIFIER',
      'TABLE_NAME',
    ]);
    expect(vars.RESOURCE_SERVER_IDENTIFIER).toBe(RESOURCE_SERVER_IDENTIFIER);
    expect(resources[refId(vars.COGNITO_USER_POOL_ID)!]!.Type).toBe('AWS::Cognito::UserPool');
  });

  it('CDK runs esbuild once per function with the same arguments but its entry and output file, esbuild itself for some', () => {
    const entries = esbuildCalls.map((args) => path.relative(PROJECT_ROOT, args[args.indexOf('--bundle') + 1]!));
    expect(new Set(entries).size).toBe(esbuildCalls.length);
    expect(entries).toEqual(expect.arrayContaining([...BUNDLED_BY_ESBUILD, ...ROUTES.map((r) => r.entry)]));
    const shape = (args: string[]) =>
      args.map((arg, i) => (args[i - 1] === '--bundle' ? '<entry>' : arg.replace(/^--outfile=.*\/index\.mjs$/, '--outfile=<asset>/index.mjs')));
    expect(new Set(esbuildCalls.map((args) => JSON.stringify(shape(args)))).size).toBe(1);
    expect(shape(esbuildCalls[0]!)).toEqual(expect.arrayContaining(['--bundle', '<entry>', '--minify', '--format=esm', '--outfile=<asset>/index.mjs']));
  });

  it('each route function is the bundle of its own entry, byte for byte what scripts/bundle-sizes.ts builds', (ctx) => {
    if (!sourcesSteady) ctx.skip('functions/ or shared/ changed between building the bundles and synthesizing the stack: nothing to compare');
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
      expect(code.length, file).toBeGreaterThan(0);
      expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(code).not.toContain('sourceMappingURL');
      // A document's function reads its font beside the bundle, where Node's resolution finds it (infra/bundling.ts).
      const beside = file === assetFile(functionIdOf('retrieveInvoiceDocument')) ? [path.join('node_modules', FONT_FILE)] : [];
      const listed = readdirSync(path.dirname(file), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(listed.map((entry) => path.relative(path.dirname(file), path.join(entry.parentPath, entry.name))).sort(), file).toEqual(['index.mjs', ...beside]);
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
        HAND_OVER_FUNCTION: 'arn:aws:lambda:eu-west-1:000000000000:function:retrieveInvoiceDocument:live',
        AWS_LAMBDA_LOG_LEVEL: 'ERROR',
        // The runtime is Node 24; this process may be older, and the bundled SDK would warn about it.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
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
      expect([...dynamoActionsOf(functionIdOf(route.operation))].sort(), route.operation).toEqual([...TABLE_ACTIONS[accessOf(route)]].sort());
    }
    expect([...dynamoActionsOf(authorizerFunctionId())]).toEqual(['dynamodb:GetItem']);
    for (const route of ROUTES.filter((r) => accessOf(r) === 'read')) {
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
      if (accessOf(route) === 'none') {
        expect(statements, `${route.operation} has no access to the table`).toEqual([]);
        continue;
      }
      expect(statements, route.operation).toHaveLength(1);
      expect(statements[0].Resource, route.operation).toEqual([tableArn, ...indexArns]);
    }
    const authorizerStatements = statementsOf(authorizerFunctionId()).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')));
    expect(authorizerStatements.map((s) => s.Resource)).toEqual([tableArn]);
  });

  const isBackground = (id: string) => BACKGROUND_FUNCTIONS.some((f) => id.startsWith(`${f.operation.charAt(0).toUpperCase()}${f.operation.slice(1)}Function`));
  it('functions may write their own log group and X-Ray traces, and nothing else besides the table (the smoke test: see operations.test.ts)', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      if (isSmokeTest(id)) continue;
      const logGroup = refId(fn.Properties.LoggingConfig.LogGroup);
      for (const s of statementsOf(id)) {
        const actions = asArray<string>(s.Action);
        if (actions.every((a) => a.startsWith('dynamodb:'))) continue;
        // The list functions read the cursor key (checked above, with its resource).
        if (actions.every((a) => a.startsWith('secretsmanager:'))) continue;
        // Functions that are not routes use their queues (what each may do is checked below, on the sample).
        if (isBackground(id) && actions.every((a) => a.startsWith('sqs:'))) continue;
        // An invoice's retrieve hands a PDF Accept over to the document's function (checked below).
        if (id === functionIdOf('retrieveInvoice') && actions.every((a) => a === 'lambda:InvokeFunction')) continue;
        if (actions.some((a) => a.startsWith('xray:'))) {
          // X-Ray's write actions have no resource-level permissions: `*` is the only resource. A
          // stream consumer's dynamodb:ListStreams (no resource-level permission either) joins them.
          const starOnly = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments', ...(isBackground(id) ? ['dynamodb:ListStreams'] : [])];
          expect(actions.filter((a) => !starOnly.includes(a)), id).toEqual([]);
          expect(actions, id).toEqual(expect.arrayContaining(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']));
          expect(s.Resource, id).toBe('*');
          continue;
        }
        expect(actions.sort(), id).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
        expect(s.Resource, id).toEqual({ 'Fn::GetAtt': [logGroup, 'Arn'] });
      }
    }
  });

  it("an invoice's retrieve may invoke the document's function, its live alias alone, which its environment names (decision 0034)", () => {
    const retrieve = functionIdOf('retrieveInvoice');
    const invokes = statementsOf(retrieve).filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('lambda:')));
    expect(invokes).toHaveLength(1);
    expect(asArray<string>(invokes[0]!.Action)).toEqual(['lambda:InvokeFunction']);
    const alias = asArray<Json>(invokes[0]!.Resource);
    expect(alias).toHaveLength(1);
    // The document's route integrates with the same alias the retrieve may invoke and names.
    const [, documentMethod] = methodOf(...routeKey('retrieveInvoiceDocument'));
    expect(refId(alias[0]) ?? JSON.stringify(alias[0])).toBe(aliasIn(documentMethod.Properties.Integration.Uri));
    expect(resources[retrieve]!.Properties.Environment.Variables.HAND_OVER_FUNCTION).toEqual(alias[0]);
    for (const [id] of ofType('AWS::Lambda::Function')) {
      if (id === retrieve) continue;
      expect(statementsOf(id).flatMap((s) => asArray<string>(s.Action)).filter((a) => a === 'lambda:InvokeFunction' && !isSmokeTest(id)), id).toEqual([]);
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
      // The stream consumer's feed items and view copies (decision 0018): its own level's grant.
      BatchWrite: ['dynamodb:BatchWriteItem'],
      BatchWriteItem: ['dynamodb:BatchWriteItem'],
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
      const granted = command.startsWith('BatchWrite') ? TABLE_ACTIONS.events : TABLE_ACTIONS.write;
      for (const action of actionsOf[command]!) expect(granted, `${command}Command (${file})`).toContain(action);
    }
  });
});

// ---- API -------------------------------------------------------------------------------------

describe('REST API', () => {
  it('is a regional REST API, named after its environment, with its execute-api endpoint (no domain configured) and no request validators', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'timebill-api-prod',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      DisableExecuteApiEndpoint: false,
    });
    template.resourceCountIs('AWS::ApiGateway::RequestValidator', 0);
    for (const [, m] of ofType('AWS::ApiGateway::Method')) {
      expect(m.Properties.RequestValidatorId).toBeUndefined();
    }
  });

  it('passes every body to the functions as its bytes, so the frame refuses one that is not UTF-8 (issue 19)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('leaves content encoding off, so a Content-Encoding reaches the frame undecoded and is refused there as locally (issue 29)', () => {
    const apis = ofType('AWS::ApiGateway::RestApi');
    expect(apis.length).toBeGreaterThan(0);
    for (const [, api] of apis) expect(api.Properties.MinimumCompressionSize).toBeUndefined();
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
      const own = permissions.filter(([, p]) => resources[refId(p.Properties.FunctionName)!]!.Type === 'AWS::Lambda::Alias' && functionBehind(p.Properties.FunctionName) === fnId);
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
    expect(sample).toMatchObject({ status: 429, requestId: '-', errorType: '-', principalId: '-', integrationStatus: '-' });
    expect(JSON.parse(format.replace('$context.status', '200'))).toMatchObject({ requestId: '$context.requestId', errorType: '$context.error.responseType' });
    const logGroupId = (stage.Properties.AccessLogSetting.DestinationArn['Fn::Join'][1] as Json[]).map(refId).find((id) => id && resources[id]?.Type === 'AWS::Logs::LogGroup')!;
    expect(resources[logGroupId]!.Properties.RetentionInDays).toBe(365);
    expect(refId(resources[logGroupId]!.Properties.KmsKeyId)).toBe(logsKeyId());
    expect(stage.Properties.TracingEnabled).toBe(true);
    // X-Ray samples the stage as infra/logging.ts says (the functions follow the stage's decision).
    const [[, rule]] = ofType('AWS::XRay::SamplingRule') as [[string, CfnResource]];
    expect(rule.Properties.SamplingRule).toMatchObject({
      FixedRate: DEFAULT_TRACE_SAMPLING.fixedRate,
      ReservoirSize: DEFAULT_TRACE_SAMPLING.reservoirPerSecond,
      ServiceType: 'AWS::ApiGateway::Stage',
      ServiceName: `timebill-api-prod/${stage.Properties.StageName as string}`,
    });
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
      expect(p.ResponseParameters['gatewayresponse.header.X-Content-Type-Options'], def.type).toBe("'nosniff'");
      expect(p.ResponseParameters['gatewayresponse.header.Strict-Transport-Security'], def.type).toBe("'max-age=31536000; includeSubDomains'");
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
  it('is shared/data/table.ts: keys, GSIs (API fields projected), TTL; on demand with maximum throughput, PITR, deletion protection, retained', () => {
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
        OnDemandThroughput: { MaxReadRequestUnits: ENVIRONMENTS.prod.table.maxReadRequestUnits, MaxWriteRequestUnits: ENVIRONMENTS.prod.table.maxWriteRequestUnits },
      })),
    );
    // On demand, but with a maximum throughput: the cost of a runaway client or bug is bounded.
    expect(p.OnDemandThroughput).toEqual({ MaxReadRequestUnits: ENVIRONMENTS.prod.table.maxReadRequestUnits, MaxWriteRequestUnits: ENVIRONMENTS.prod.table.maxWriteRequestUnits });
    // The deletion-guard counters stay out of every index, so counting never writes an index item.
    for (const i of TABLE.indexes) expect(i.projected).not.toContain('project_count');
    for (const i of TABLE.indexes) expect(i.projected).not.toContain('time_entry_count');
    // Each once: GSI1 to GSI4 share their sort key (decision 0027).
    const keyAttributes = [...new Set([TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])])];
    expect(keyAttributes).toHaveLength(2 + TABLE.indexes.length + 2);
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

  it('resource server carries exactly the thirteen API scopes (each resource\'s read and write, a payment\'s its invoice\'s, and events:read)', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: RESOURCE_SERVER_IDENTIFIER,
      Scopes: SCOPES.map((scope) => ({ ScopeName: scope, ScopeDescription: `Timebill API ${scope}` })),
    });
    expect(SCOPES).toHaveLength(13);
  });

  it('has a Cognito domain, its prefix from the environment configuration', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: ENVIRONMENTS.prod.cognitoDomainPrefix });
    const domains = Object.values(variant()).filter((r) => r.Type === 'AWS::Cognito::UserPoolDomain');
    expect(domains.map((d) => d.Properties.Domain)).toEqual([VARIANT.cognitoDomainPrefix]);
  });
});

// ---- operations ------------------------------------------------------------------------------

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

// ---- encryption, retention and tracing (AWS Control Tower) -----------------------------------

function logsKeyId(): string {
  const keys = ofType('AWS::KMS::Key');
  expect(keys).toHaveLength(1);
  return keys[0]![0];
}

describe('encryption, log retention and tracing', () => {
  it('encrypts the table with KMS', () => {
    // SSEEnabled without a key: the AWS managed key of DynamoDB (aws/dynamodb), KMS encryption.
    expect(resources[tableId()]!.Properties.SSESpecification).toEqual({ SSEEnabled: true });
  });

  it('encrypts every log group with one customer-managed key that rotates, which CloudWatch Logs of this account may use', () => {
    const key = resources[logsKeyId()]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.RotationPeriodInDays).toBe(365);
    expect(key.DeletionPolicy).toBe('Retain');
    const logsStatement = (key.Properties.KeyPolicy.Statement as Json[]).find((s) => s.Sid === 'AllowCloudWatchLogsOfThisAccount');
    expect(logsStatement.Principal.Service).toEqual({ 'Fn::Join': ['', ['logs.', { Ref: 'AWS::Region' }, '.amazonaws.com']] });
    expect(JSON.stringify(logsStatement.Condition.ArnLike['kms:EncryptionContext:aws:logs:arn'])).toContain(':log-group:*');
    const groups = ofType('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(ROUTES.length);
    for (const [id, group] of groups) {
      expect(refId(group.Properties.KmsKeyId), id).toBe(logsKeyId());
      expect(group.Properties.RetentionInDays, id).toBeGreaterThanOrEqual(365);
    }
  });

  it('makes log retention a stack property of at least 365 days', () => {
    const groups = Object.values(variant()).filter((r) => r.Type === 'AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(ROUTES.length);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(731);
    const unbundled = tempApp({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    expect(() => new TimebillApi(unbundled, { logRetention: RetentionDays.SIX_MONTHS })).toThrow(/at least 365 days/);
  });
});

// ---- cdk-nag ---------------------------------------------------------------------------------

describe('cdk-nag AwsSolutions', () => {
  const violations = (service: TimebillApi) =>
    Object.values(service.stacks).flatMap((scope) => new AwsSolutionsChecks(app).validateScope(scope).violations).map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => (r as Json).constructPath).join(', ')}`);

  it('reports nothing that the stack has not acknowledged', () => {
    expect(violations(stack)).toEqual([]);
  });

  it('reports nothing more for functions that are not routes, and needs the stream consumer\'s acknowledgement', () => {
    expect(violations(withBackground)).toEqual([]);
    const consumerRole = withBackground.functionsStack.node.findAll().find((c) => c.node.path === 'WithBackground/Functions/RecordEventsRole')!;
    const acknowledged = consumerRole.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules').flatMap((m) => Object.keys(m.data as object))
      // aws-cdk-lib 2.262.1 and later may write the key as 'Annotation::<id>' (cdk-nag strips it too).
      .map((key) => key.replace(/^annotation::/i, ''));
    expect(acknowledged).toEqual(NAG_ACKNOWLEDGEMENTS.streamConsumer.map((a) => a.id));
  });

  const acknowledgedRules = () => {
    const acknowledged: Array<[string, string]> = [];
    for (const construct of Object.values(stack.stacks).flatMap((s) => s.node.findAll())) {
      for (const entry of construct.node.metadata) {
        if (entry.type === 'aws:cdk:acknowledged-rules') acknowledged.push(...Object.entries(entry.data as Record<string, string>));
      }
    }
    return acknowledged;
  };

  it('every acknowledgement has a written reason', () => {
    const acknowledged = acknowledgedRules();
    const { publicMethod, functionRole, streamConsumer: _perStreamConsumer, streamFailureQueue, scheduleDeadLetters, ...once } = NAG_ACKNOWLEDGEMENTS;
    const triggered = (trigger: BackgroundFunction['trigger']) => BACKGROUND_FUNCTIONS.filter((f) => f.trigger === trigger).length;
    // Per function role: the routes, the functions that are not routes, the authorizer and each stack of functions' smoke test;
    // per stream consumer its on-failure queue (its role is a function role), per schedule its dead-letter queue.
    const fixed =
      Object.values(once).flat().length + publicMethod.length * ROUTES.filter(isPublic).length + functionRole.length * (ROUTES.length + BACKGROUND_FUNCTIONS.length + 3) +
      streamFailureQueue.length * triggered('table-stream') + scheduleDeadLetters.length * triggered('schedule');
    // Safe deployments, per stack of functions: its CodeDeploy service role and hook (2), and per deployed function the smoke test's invoke grant (1); the backup role.
    expect(acknowledged.length).toBe(fixed + 2 * 2 + (ROUTES.length + 1) + 1);
    for (const [id, reason] of acknowledged) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length, id).toBeGreaterThan(80);
    }
  });

  it('every acknowledgement is still needed: without them cdk-nag reports exactly those rules', () => {
    const reported = new Set(violations(unacknowledged).map((v) => v.split(' ')[0]));
    const acknowledgedIds = new Set(acknowledgedRules().map(([id]) => id.replace(/^Annotation::/, '')));
    expect([...reported].sort()).toEqual([...acknowledgedIds].sort());
  });
});

// ---- functions that are not routes -------------------------------------------------------------

describe('functions that are not routes', () => {
  const bg = () => environmentTemplate(withBackground).toJSON().Resources as Record<string, CfnResource>;
  const ofTypeIn = (all: Record<string, CfnResource>, type: string) => Object.entries(all).filter(([, r]) => r.Type === type);
  const fnId = (all: Record<string, CfnResource>, operation: string) =>
    ofTypeIn(all, 'AWS::Lambda::Function').find(([id]) => id.startsWith(`${operation.charAt(0).toUpperCase()}${operation.slice(1)}Function`))![0];
  const statementsOf = (all: Record<string, CfnResource>, functionId: string) => {
    const role = refId(all[functionId]!.Properties.Role)!;
    return ofTypeIn(all, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => refId(r) === role))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
  };
  const actionsOf = (all: Record<string, CfnResource>, functionId: string) => statementsOf(all, functionId).flatMap((s) => asArray(s.Action as string | string[]));

  it('turns the table stream on only when a function consumes it', () => {
    const tables = (all: Record<string, CfnResource>) => ofTypeIn(all, 'AWS::DynamoDB::Table').map(([, t]) => t.Properties.StreamSpecification);
    // The events' stream consumer (BACKGROUND_FUNCTIONS) turns it on; a stack without one has none.
    expect(tables(resources)).toEqual([{ StreamViewType: 'NEW_AND_OLD_IMAGES' }]);
    expect(tables(bg())).toEqual([{ StreamViewType: 'NEW_AND_OLD_IMAGES' }]);
    expect(tables(variant())).toEqual([undefined]);
  });

  it('subscribes the stream consumer with bisection, bounded retries and an on-failure queue, and the worker to its queue with per-item failures', () => {
    const all = bg();
    const mappings = ofTypeIn(all, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    expect(mappings).toHaveLength(2);
    const stream = mappings.find((m) => m.EventSourceArn?.['Fn::GetAtt']?.[1] === 'StreamArn')!;
    expect(refId(stream.FunctionName)).toBe(fnId(all, 'recordEvents'));
    expect(stream).toMatchObject({ BatchSize: 50, BisectBatchOnFunctionError: true, MaximumRetryAttempts: 10, StartingPosition: 'TRIM_HORIZON' });
    // A stream consumer fails whole batches: no per-record responses claimed.
    expect(stream.FunctionResponseTypes).toBeUndefined();
    const failures = refId(stream.DestinationConfig.OnFailure.Destination)!;
    expect(all[failures]!.Type).toBe('AWS::SQS::Queue');
    const queue = mappings.find((m) => m !== stream)!;
    expect(refId(queue.FunctionName)).toBe(fnId(all, 'deliverEvents'));
    expect(queue).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  it('creates each queue once, encrypted, with a dead-letter queue, and tells the sender its URL', () => {
    const all = bg();
    const queues = ofTypeIn(all, 'AWS::SQS::Queue');
    // The deliveries queue, its dead-letter queue and the stream consumer's on-failure queue.
    expect(queues).toHaveLength(3);
    const [mainId, main] = queues.find(([, q]) => q.Properties.RedrivePolicy)!;
    const [dlqId] = queues.find(([id]) => id.startsWith('DeliveriesDeadLetters'))!;
    expect(main.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 });
    for (const [, q] of queues) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    // Six times its consumer's timeout (the routes' 10 s when the declaration names none).
    expect(main.Properties.VisibilityTimeout).toBe(60);
    expect(all[fnId(all, 'recordEvents')]!.Properties.Environment.Variables.DELIVERIES_QUEUE_URL).toEqual({ Ref: mainId });
  });

  it('grants each only what it declares: the sender may send, the worker may receive, neither more table access than declared', () => {
    const all = bg();
    const sender = actionsOf(all, fnId(all, 'recordEvents'));
    const worker = actionsOf(all, fnId(all, 'deliverEvents'));
    expect(sender).toEqual(expect.arrayContaining(['sqs:SendMessage', 'dynamodb:PutItem', 'dynamodb:GetRecords']));
    expect(sender).not.toContain('sqs:ReceiveMessage');
    expect(worker).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'dynamodb:Query']));
    expect(worker).not.toContain('sqs:SendMessage');
    expect(worker).not.toContain('dynamodb:PutItem');
    expect(worker).not.toContain('dynamodb:GetRecords');
    for (const action of [...sender, ...worker]) expect(action).not.toMatch(/\*$/);
  });

  it('deploys them beside the routes, each with its own error alarm', () => {
    const all = bg();
    expect(ofTypeIn(all, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('LogRetention'))).toHaveLength(ofType('AWS::Lambda::Function').length - BACKGROUND_FUNCTIONS.length + 2);
    expect(withBackground.functions.size).toBe(ROUTES.length + 2);
    const alarms = ofTypeIn(all, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    expect(alarms.filter((id) => /^(RecordEvents|DeliverEvents)ErrorsAlarm/.test(id))).toHaveLength(2);
  });
});

// ---- billing runs (decision 0033) --------------------------------------------------------------

describe('billing runs: the billing queue, its dead letters and the billing schedules\' sweep', () => {
  const fnId = (operation: string) => ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(`${constructName(operation)}Function`))![0];
  const only = (type: string, prefix: string): [string, CfnResource] => {
    const found = ofType(type).filter(([id]) => id.startsWith(prefix));
    expect(found, `${type} ${prefix}`).toHaveLength(1);
    return found[0]!;
  };
  const billingQueue = () => only('AWS::SQS::Queue', 'BillingQueue')[0];
  const billingDeadLetters = () => only('AWS::SQS::Queue', 'BillingDeadLetters')[0];
  const scheduleDeadLetters = () => only('AWS::SQS::Queue', 'SweepBillingSchedulesScheduleDeadLetters')[0];
  const schedule = () => only('AWS::Scheduler::Schedule', 'SweepBillingSchedulesSchedule')[1].Properties;
  const declared = (operation: string) => BACKGROUND_FUNCTIONS.find((f) => f.operation === operation)! as BackgroundFunction;
  /** The event source mapping of a function (it has exactly one). */
  const mappingOf = (operation: string) => {
    const found = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => refId(m.Properties.FunctionName) === fnId(operation));
    expect(found, operation).toHaveLength(1);
    return found[0]![1].Properties;
  };
  /** The statements of the policies attached to a function's role (statementsOf, for any function). */
  const attached = (functionId: string): Json[] => {
    const roleId = refId(resources[functionId]!.Properties.Role);
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => refId(r) === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
  };
  /** The resources (logical ids) on which a function's role is granted `action`. */
  const grantedOn = (functionId: string, action: string) =>
    [...new Set(attached(functionId).filter((s) => asArray<string>(s.Action).includes(action)).flatMap((s) => asArray(s.Resource).map((r) => refId(r) ?? JSON.stringify(r))))].sort();
  /** Encrypted, kept 14 days, and refusing every request without TLS (its queue policy). */
  const expectProtected = (queueId: string) => {
    expect(resources[queueId]!.Properties, queueId).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: QUEUE_RETENTION.toSeconds() });
    const statements = ofType('AWS::SQS::QueuePolicy')
      .filter(([, p]) => p.Properties.Queues.some((q: Json) => refId(q) === queueId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    expect(statements, queueId).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } }),
    );
  };
  /** Every alarm of the paging rule (the composite with an action), through its groups. */
  const paging = () => {
    const [, page] = ofType('AWS::CloudWatch::CompositeAlarm').find(([, a]) => (a.Properties.AlarmActions ?? []).length > 0)!;
    const terms = (a: CfnResource) => (a.Properties.AlarmRule['Fn::Join'][1] as Json[]).map(refId).filter((id): id is string => id !== undefined);
    return new Set(terms(page).flatMap((id) => terms(resources[id]!)));
  };
  const pagingAlarm = (prefix: string) => {
    const [id, alarm] = only('AWS::CloudWatch::Alarm', prefix);
    expect(paging().has(id), `${id} pages`).toBe(true);
    expect(alarm.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissingData: 'notBreaching' });
    expect(alarm.Properties.AlarmDescription).toContain(`Runbook: docs/deploy.md#alarms, ${prefix}.`);
    return alarm.Properties;
  };
  const dimension = (metric: Json, name: string) => refId(metric.Dimensions.find((d: Json) => d.Name === name).Value);

  it('the billing queue and its dead-letter queue: encrypted, TLS only, 14 days; dead-lettered after 5 receives; hidden six times their consumers\' timeouts', () => {
    expect(declared('workOnBillingRuns')).toMatchObject({ trigger: 'queue', queue: 'billing', timeoutSeconds: 60, maxReceives: 5 });
    expect(declared('giveUpBillingWork')).toMatchObject({ trigger: 'dead-letters', queue: 'billing', timeoutSeconds: 30 });
    for (const id of [billingQueue(), billingDeadLetters()]) expectProtected(id);
    const queue = resources[billingQueue()]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [billingDeadLetters(), 'Arn'] }, maxReceiveCount: 5 });
    // Six times the worker's 60 s, as Lambda recommends for an SQS event source.
    expect(queue.VisibilityTimeout).toBe(6 * 60);
    expect(resources[fnId('workOnBillingRuns')]!.Properties.Timeout).toBe(60);
    // The dead letters have a consumer too: six times its 30 s. A dead-letter destination, with none of its own.
    const deadLetters = resources[billingDeadLetters()]!.Properties;
    expect(deadLetters.VisibilityTimeout).toBe(6 * 30);
    expect(resources[fnId('giveUpBillingWork')]!.Properties.Timeout).toBe(30);
    expect(deadLetters.RedriveAllowPolicy).toEqual({ redrivePermission: 'allowAll' });
    expect(deadLetters.RedrivePolicy).toBeUndefined();
  });

  it('the worker consumes the billing queue and the dead letters\' consumer its dead-letter queue, both reporting failures per message', () => {
    for (const [operation, queueId] of [['workOnBillingRuns', billingQueue()], ['giveUpBillingWork', billingDeadLetters()]] as const) {
      const m = mappingOf(operation);
      expect(m.EventSourceArn, operation).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
      expect(m, operation).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: QUEUE_CONSUMER_MAX_CONCURRENCY } });
      // It receives, deletes and re-times the messages of its own queue, and of no other.
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) expect(grantedOn(fnId(operation), action), `${operation} ${action}`).toEqual([queueId]);
    }
  });

  it('recordEvents (a run\'s first plan page) and the worker (the next pages, the clients) may send to the billing queue and know its URL; no other function', () => {
    expect(declared('recordEvents').sendsTo).toEqual(['deliveries', 'billing']);
    expect(declared('workOnBillingRuns').sendsTo).toEqual(['billing']);
    const senders = ofType('AWS::Lambda::Function').filter(([id]) => grantedOn(id, 'sqs:SendMessage').includes(billingQueue())).map(([id]) => id);
    expect(senders.sort()).toEqual([fnId('recordEvents'), fnId('workOnBillingRuns')].sort());
    /** Every SQS action a function may take on the billing queue. */
    const onBillingQueue = (operation: string) =>
      [...new Set(attached(fnId(operation)).filter((s) => asArray(s.Resource).some((r) => refId(r) === billingQueue())).flatMap((s) => asArray<string>(s.Action)))].sort();
    const send = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
    expect(onBillingQueue('recordEvents')).toEqual(send);
    expect(onBillingQueue('workOnBillingRuns')).toEqual([...send, 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'].sort());
    for (const operation of ['recordEvents', 'workOnBillingRuns']) {
      expect(resources[fnId(operation)]!.Properties.Environment.Variables.BILLING_QUEUE_URL, operation).toEqual({ Ref: billingQueue() });
    }
    expect(grantedOn(fnId('recordEvents'), 'sqs:ReceiveMessage')).toEqual([]);
    for (const [id, fn] of ofType('AWS::Lambda::Function').filter(([id]) => !senders.includes(id))) expect(fn.Properties.Environment?.Variables?.BILLING_QUEUE_URL, id).toBeUndefined();
  });

  it('a message that stays in the billing dead-letter queue pages, waiting or in flight (its consumer keeps receiving what it cannot take)', () => {
    const p = pagingAlarm('BillingDeadLettersAlarm');
    const stats = (p.Metrics as Json[]).filter((m) => m.MetricStat).map((m) => m.MetricStat);
    expect(stats.map((m) => m.Metric.MetricName).sort()).toEqual(['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesVisible']);
    for (const m of stats) {
      expect(m).toMatchObject({ Period: 60, Stat: 'Maximum' });
      expect(m.Metric.Namespace).toBe('AWS/SQS');
      expect(dimension(m.Metric, 'QueueName')).toBe(billingDeadLetters());
    }
    const [expression] = (p.Metrics as Json[]).filter((m) => m.Expression);
    expect(expression).toMatchObject({ ReturnData: true });
    for (const m of (p.Metrics as Json[]).filter((m) => m.MetricStat)) expect(expression.Expression).toContain(m.Id);
    expect(expression.Expression).toContain('+');
    // The deliveries' dead letters have no consumer: waiting messages are all there is to count.
    expect(pagingAlarm('DeliveriesDeadLettersAlarm')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum' });
  });

  it('the schedule: rate(15 minutes) in UTC, invoking the sweep through a role only Scheduler of this account may assume, which may invoke that function alone', () => {
    expect(declared('sweepBillingSchedules')).toMatchObject({ trigger: 'schedule', schedule: 'rate(15 minutes)', timeoutSeconds: 300 });
    expect(ofType('AWS::Scheduler::Schedule')).toHaveLength(1);
    const p = schedule();
    expect(p).toMatchObject({ ScheduleExpression: 'rate(15 minutes)', ScheduleExpressionTimezone: 'UTC', FlexibleTimeWindow: { Mode: 'OFF' } });
    expect(p.State ?? 'ENABLED').toBe('ENABLED');
    const sweep = fnId('sweepBillingSchedules');
    expect(p.Target.Arn).toEqual({ 'Fn::GetAtt': [sweep, 'Arn'] });
    const roleId = refId(p.Target.RoleArn)!;
    const role = resources[roleId]!;
    expect(role.Type).toBe('AWS::IAM::Role');
    const trust = role.Properties.AssumeRolePolicyDocument.Statement as Json[];
    expect(trust).toHaveLength(1);
    expect(trust[0]).toMatchObject({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' } });
    // Confused deputy: Scheduler acting for this account's default schedule group only.
    expect(trust[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(trust[0].Condition.StringEquals['aws:SourceArn'])).toMatch(/:scheduler:.*:schedule-group\/default"/);
    expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
    expect(role.Properties.Policies ?? []).toEqual([]);
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, policy]) => policy.Properties.Roles.some((r: Json) => refId(r) === roleId))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Json[]);
    // The function's own ARN (no `:*`, so no version or alias), and sending what it could not deliver.
    expect(statements).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [sweep, 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [scheduleDeadLetters(), 'Arn'] } },
    ]);
    // Only through that role: no resource policy lets anything else invoke the sweep.
    expect(ofType('AWS::Lambda::Permission').filter(([, permission]) => refId(permission.Properties.FunctionName) === sweep)).toEqual([]);
    expect(ofType('AWS::IAM::Policy').flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Json[])
      .filter((s) => asArray(s.Resource).some((r) => refId(r) === sweep))).toHaveLength(1);
  });

  it('a firing that did not run (Scheduler could not deliver it, or every attempt failed) lands in an encrypted dead-letter queue that pages; so do the sweep\'s errors', () => {
    const sweep = fnId('sweepBillingSchedules');
    const target = schedule().Target;
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 600 });
    expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [scheduleDeadLetters(), 'Arn'] } });
    // Scheduler invokes asynchronously: Lambda retries a failed firing twice, then sends it to the same queue.
    const [, invokeConfig] = only('AWS::Lambda::EventInvokeConfig', 'SweepBillingSchedulesFunction');
    expect(invokeConfig.Properties).toMatchObject({
      FunctionName: { Ref: sweep },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [scheduleDeadLetters(), 'Arn'] } } },
    });
    expect(grantedOn(sweep, 'sqs:SendMessage')).toEqual([scheduleDeadLetters()]);
    expectProtected(scheduleDeadLetters());
    expect(resources[scheduleDeadLetters()]!.Properties.RedriveAllowPolicy).toEqual({ redrivePermission: 'allowAll' });
    const deadLetters = pagingAlarm('SweepBillingSchedulesScheduleDeadLettersAlarm');
    expect(deadLetters).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS', Statistic: 'Maximum' });
    expect(dimension(deadLetters, 'QueueName')).toBe(scheduleDeadLetters());
    const errors = pagingAlarm('SweepBillingSchedulesErrorsAlarm');
    expect(errors).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Statistic: 'Sum' });
    expect(dimension(errors, 'FunctionName')).toBe(sweep);
    // The dashboard's dead letters show it beside the queues' (each pages).
    expect(JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody)).toContain(scheduleDeadLetters());
  });

  it('refuses a dead letters\' consumer of a queue no function consumes', () => {
    const unbundled = tempApp({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    const orphan: BackgroundFunction = { operation: 'giveUp', entry: 'functions/clients/list.ts', description: 'Dead letters', trigger: 'dead-letters', queue: 'nowhere', table: 'read' };
    expect(() => new TimebillApi(unbundled, { backgroundFunctions: [orphan] })).toThrow(/giveUp consumes the dead letters of the nowhere queue, which no function consumes/);
  });
});
