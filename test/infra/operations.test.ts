/**
 * Operating the service, proven on the synthesized templates of every environment, read from the
 * infra project's cloud assembly (test/infra/support/assembly.ts; bundling skipped: only the
 * templates matter here; test/infra/stack.test.ts checks the bundles), and on variants built here:
 * environments from one app, safe deployments, paging alarms, the dashboard, reserved
 * concurrency, the custom domain, the table-name override, backups and cost guards.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../../infra/app.ts';
import { PROJECT_ROOT } from '../../infra/bundling.ts';
import {
  ENVIRONMENTS,
  UNRESERVED_MINIMUM,
  configurationErrors,
  reservedConcurrency,
  reservedTotal,
  routeShare,
  type ConcurrencyPlan,
  type EnvironmentConfig,
  type FunctionKind,
} from '../../infra/config/environments.ts';
import { ALARMS_PER_GROUP, ALARM_RULE_TERM_LENGTH, MAX_ALARM_RULE_LENGTH } from '../../infra/operations/alarms.ts';
import { QUEUE_CONSUMER_MAX_CONCURRENCY, STACK_ROLES, TimebillApi, functionKinds, type StackRole } from '../../infra/stack.ts';
import { environmentTemplate, mergedFromAssembly, readAssembly, type AssemblyStack } from './support/templates.ts';
import { LIVE_ALIAS } from '../../infra/operations/deployments.ts';
import { OUTPUTS } from '../../infra/names.ts';
import { ROUTES, accessOf } from '../../shared/api/routes.ts';
import { BACKGROUND_FUNCTIONS } from '../../shared/api/background.ts';
import { STAGE_THROTTLING } from '../../infra/names.ts';
import { TABLE } from '../../shared/data/table.ts';
import { tempApp } from './support/temp-app.ts';
import { removeTempDirs } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface CfnResource {
  Type: string;
  Properties: Json;
  UpdatePolicy?: Json;
  DependsOn?: string[];
}

const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
const newApp = () => tempApp({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
const FUNCTION_COUNT = ROUTES.length + 1; // the deployed functions: the routes and the authorizer
/** Logical-id prefix of each function that is not a route (stream, queue and dead-letter consumers, scheduled functions). */
const BACKGROUND_IDS = BACKGROUND_FUNCTIONS.map((f) => `${f.operation.charAt(0).toUpperCase()}${f.operation.slice(1)}Function`);
const isBackground = (id: string) => BACKGROUND_IDS.some((prefix) => id.startsWith(prefix));

const DOMAIN: NonNullable<EnvironmentConfig['domain']> = {
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
  apiDomainName: 'api.example.com',
  authDomainName: 'auth.api.example.com',
  authCertificateArn: 'arn:aws:acm:us-east-1:333333333333:certificate/11111111-2222-3333-4444-555555555555',
};

/** What a test reads of each stack: from the constructs of a variant, or from the shared assembly. */
interface StackFacts {
  readonly stackName: string;
  readonly account: string;
  readonly region: string;
  readonly terminationProtection: boolean;
  readonly path: string;
}

/** An environment's five stacks as one template (test/infra/support/templates.ts), and each stack's facts. */
class Synth {
  readonly resources: Record<string, CfnResource>;
  readonly template: Template;
  private constructor(
    readonly stacks: Record<StackRole, StackFacts>,
    merged: Json,
  ) {
    this.template = Template.fromJSON(merged);
    this.resources = merged.Resources as Record<string, CfnResource>;
  }
  /** A variant built in this file. */
  static of(service: TimebillApi): Synth {
    const facts = (stack: Stack): StackFacts => ({
      stackName: stack.stackName,
      account: stack.account,
      region: stack.region,
      terminationProtection: stack.terminationProtection,
      path: stack.node.path,
    });
    return new Synth(
      Object.fromEntries(STACK_ROLES.map((role) => [role, facts(service.stacks[role])])) as Record<StackRole, StackFacts>,
      environmentTemplate(service).toJSON(),
    );
  }
  /** An environment of the infra project's shared assembly (test/infra/support/assembly.ts). */
  static fromAssembly(stacks: Record<StackRole, AssemblyStack>): Synth {
    return new Synth(stacks, mergedFromAssembly(stacks));
  }
  /** The Api stack: it carries the environment's stack name and the outputs. */
  get stack(): StackFacts {
    return this.stacks.Api;
  }
  ofType(type: string): Array<[string, CfnResource]> {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }
  one(type: string): [string, CfnResource] {
    const found = this.ofType(type);
    expect(found, type).toHaveLength(1);
    return found[0]!;
  }
  get outputs(): Record<string, { Value: Json }> {
    return this.template.toJSON().Outputs;
  }
}

/** CloudFormation's limit of resources per stack. */
const CLOUDFORMATION_RESOURCE_LIMIT = 500;

const refId = (value: Json): string | undefined => value?.Ref ?? (value?.['Fn::GetAtt'] ? value['Fn::GetAtt'][0] : undefined);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Every environment as `npx cdk synth` builds it (cdk-nag included), synthesized once for the infra project: its stacks, and as one Synth. */
let assembly: Map<string, Record<StackRole, AssemblyStack>>;
let envs: Map<string, Synth>;
const prod = () => envs.get('prod')!;
const dev = () => envs.get('dev')!;

beforeAll(() => {
  assembly = readAssembly(inject('infraAssembly'));
  envs = new Map([...assembly].map(([name, stacks]) => [name, Synth.fromAssembly(stacks)]));
});

/** One environment's stacks with another configuration (bundling skipped). */
const serviceWith = (config: EnvironmentConfig) => new TimebillApi(newApp(), { config, env: { account: config.account, region: config.region } });
const withConfig = (config: EnvironmentConfig): Synth => Synth.of(serviceWith(config));

const COPY_VAULT = 'arn:aws:backup:eu-central-1:444444444444:backup-vault:timebill-copies';
/** prod with every option on, a custom domain and a copied backup: built once, for the tests of each option and cdk-nag's. */
const fullyConfigured = (() => {
  let built: { service: TimebillApi; synth: Synth } | undefined;
  return () => {
    if (!built) {
      const service = serviceWith({ ...ENVIRONMENTS.prod, domain: DOMAIN, backup: { ...ENVIRONMENTS.prod.backup!, copyToVaultArn: COPY_VAULT, copyRetentionDays: 90 } });
      built = { service, synth: Synth.of(service) };
    }
    return built;
  };
})();

// ---- environments ----------------------------------------------------------------------------

describe('environments from one app', () => {
  it('the repository configuration passes every rule', () => {
    expect(configurationErrors(Object.values(ENVIRONMENTS), functionKinds())).toEqual([]);
  });

  it('one Stage per environment, each stack with its explicit account and region, its name, and no lookups', () => {
    const assembly = new CloudAssembly(inject('infraAssembly'));
    for (const config of Object.values(ENVIRONMENTS)) {
      const { stacks } = envs.get(config.name)!;
      expect(stacks.Api.stackName).toBe(config.stackName);
      for (const role of STACK_ROLES) {
        const stack = stacks[role];
        expect(stack.account).toBe(config.account);
        expect(stack.region).toBe(config.region);
        expect(stack.path).toBe(`${config.name}/${role}`);
      }
    }
    const nested = assembly.nestedAssemblies.map((n) => n.nestedAssembly);
    expect(assembly.stacksRecursively.length).toBe(3 * STACK_ROLES.length);
    expect(nested).toHaveLength(3);
    for (const a of nested) expect(a.manifest.missing ?? []).toEqual([]);
  });

  it('termination protection for prod only', () => {
    for (const role of STACK_ROLES) {
      expect(prod().stacks[role].terminationProtection, role).toBe(true);
      expect(dev().stacks[role].terminationProtection, role).toBe(false);
      expect(envs.get('staging')!.stacks[role].terminationProtection, role).toBe(false);
    }
  });

  it('the stage is named after the environment, and so are the URLs', () => {
    for (const [name, s] of envs) {
      expect(s.one('AWS::ApiGateway::Stage')[1].Properties.StageName).toBe(name);
      expect(JSON.stringify(s.outputs[OUTPUTS.apiUrl]!.Value)).toContain(`/${name}"`);
    }
  });

  it('every resource carries the cost-allocation tags service and environment', () => {
    for (const [name, s] of envs) {
      for (const type of ['AWS::Lambda::Function', 'AWS::DynamoDB::Table', 'AWS::SNS::Topic', 'AWS::Logs::LogGroup']) {
        for (const [id, r] of s.ofType(type)) {
          expect(r.Properties.Tags, `${name} ${id}`).toEqual(expect.arrayContaining([{ Key: 'service', Value: 'timebill-api' }, { Key: 'environment', Value: name }]));
        }
      }
      const pool = s.one('AWS::Cognito::UserPool')[1];
      expect(pool.Properties.UserPoolTags).toMatchObject({ service: 'timebill-api', environment: name });
    }
  });

  it('two environments in one account and region: no name collides, and only one creates the API Gateway logging role', () => {
    const shared = { account: ENVIRONMENTS.dev.account, region: ENVIRONMENTS.dev.region };
    const environments = [ENVIRONMENTS.dev, { ...ENVIRONMENTS.staging, ...shared, cognitoDomainPrefix: 'timebill-staging-111111111111', ownsApiGatewayAccountRole: false }];
    expect(configurationErrors(environments, functionKinds())).toEqual([]);
    const sharedApp = newApp();
    const stacks = [...buildApp(sharedApp, environments).values()].map((service) => Synth.of(service));
    const names = (s: Synth) => [
      ...Object.values(s.stacks).map((stack) => stack.stackName),
      s.one('AWS::ApiGateway::RestApi')[1].Properties.Name,
      s.one('AWS::Cognito::UserPool')[1].Properties.UserPoolName,
      ...s.ofType('AWS::Cognito::UserPoolDomain').map(([, d]) => d.Properties.Domain),
      s.one('AWS::CloudWatch::Dashboard')[1].Properties.DashboardName,
      s.one('AWS::Budgets::Budget')[1].Properties.Budget.BudgetName,
      s.one('AWS::CE::AnomalyMonitor')[1].Properties.MonitorName,
      s.one('AWS::CE::AnomalySubscription')[1].Properties.SubscriptionName,
      ...s.ofType('AWS::WAFv2::WebACL').map(([, acl]) => acl.Properties.Name),
      ...s.ofType('AWS::Backup::BackupVault').map(([, v]) => v.Properties.BackupVaultName),
    ];
    const [a, b] = stacks as [Synth, Synth];
    // A name built from AWS::StackName is the stack's name once deployed.
    const deployed = (s: Synth) => names(s).map((n) => JSON.stringify(n).replaceAll('{"Ref":"AWS::StackName"}', JSON.stringify(s.stack.stackName)));
    const namesA = deployed(a);
    for (const n of deployed(b)) expect(namesA, n).not.toContain(n);
    // Access-log metrics are per environment too.
    const namespaces = stacks.map((s) => new Set(s.ofType('AWS::Logs::MetricFilter').map(([, f]) => f.Properties.MetricTransformations[0].MetricNamespace)));
    expect([...namespaces[0]!]).toEqual(['TimebillApi/dev']);
    expect([...namespaces[1]!]).toEqual(['TimebillApi/staging']);
    expect(a.ofType('AWS::ApiGateway::Account')).toHaveLength(1);
    expect(b.ofType('AWS::ApiGateway::Account')).toHaveLength(0);
    expect(b.one('AWS::ApiGateway::Stage')[1].DependsOn ?? []).not.toContain(a.one('AWS::ApiGateway::Account')[0]);
  });

  it('a configuration that breaks a rule is refused, with the reason', () => {
    const errorsOf = (environments: EnvironmentConfig[]) => configurationErrors(environments, functionKinds()).join('\n');
    const shared = { ...ENVIRONMENTS.staging, account: ENVIRONMENTS.dev.account, region: ENVIRONMENTS.dev.region };
    expect(errorsOf([ENVIRONMENTS.dev, { ...shared, cognitoDomainPrefix: 'timebill-staging-x' }])).toMatch(/exactly one environment must own the API Gateway logging role/);
    expect(errorsOf([ENVIRONMENTS.dev, { ...shared, ownsApiGatewayAccountRole: false, cognitoDomainPrefix: ENVIRONMENTS.dev.cognitoDomainPrefix }])).toMatch(/share the Cognito domain prefix/);
    expect(errorsOf([{ ...ENVIRONMENTS.prod, terminationProtection: false }])).toMatch(/prod must have termination protection/);
    expect(errorsOf([{ ...ENVIRONMENTS.prod, account: '1234' }])).toMatch(/account must be 12 digits/);
    expect(errorsOf([{ ...ENVIRONMENTS.prod, functions: { ...ENVIRONMENTS.prod.functions, timeoutSeconds: 8 } }])).toMatch(/exceed the DynamoDB budget's worst request \(8500 ms\)/);
    expect(errorsOf([{ ...ENVIRONMENTS.prod, cognitoDomainPrefix: 'aws-timebill-prod' }])).toMatch(/not a valid Cognito domain prefix/);
    const greedy: ConcurrencyPlan = { worstCaseSeconds: { authorizer: 10, read: 5, write: 5, none: 5 }, accountConcurrencyLimit: 1000 };
    expect(errorsOf([{ ...ENVIRONMENTS.prod, functions: { timeoutSeconds: 10, concurrency: greedy } }])).toMatch(/reserved concurrency \d+ exceeds the account limit/);
    expect(errorsOf([{ ...ENVIRONMENTS.prod, domain: { ...DOMAIN, authCertificateArn: DOMAIN.authCertificateArn.replace('us-east-1', 'eu-west-1') } }])).toMatch(/us-east-1/);
    expect(() => buildApp(newApp(), [{ ...ENVIRONMENTS.prod, account: 'x' }])).toThrow(/infra\/config\/environments.ts/);
  });

  it('cdk-nag reports nothing unacknowledged in any environment, with a domain and a copied backup too', () => {
    // Every environment of the repository: the shared assembly's synthesis ran cdk-nag as `cdk synth`
    // does, and throws on any finding (test/infra/support/assembly.ts), so no infra test runs then.
    // Here, the options no environment has on yet.
    const nag = (scope: App, service: TimebillApi) => Object.values(service.stacks).flatMap((stack) => new AwsSolutionsChecks(scope).validateScope(stack).violations.map((v) => v.ruleName));
    expect(nag(newApp(), fullyConfigured().service)).toEqual([]);
  });
});

// ---- safe deployments ------------------------------------------------------------------------

describe('safe deployments', () => {
  const aliases = (s: Synth) => s.ofType('AWS::Lambda::Alias');
  /** The pre-traffic hooks: one per stack of functions (decision 0031), each testing that stack's. */
  const hookIds = (s: Synth) => s.ofType('AWS::Lambda::Function').filter(([, f]) => String(f.Properties.Description).startsWith('CodeDeploy pre-traffic hook')).map(([id]) => id);

  it('every function but the hook and the background functions is a published version behind a `live` alias', () => {
    const s = prod();
    expect(hookIds(s)).toHaveLength(2);
    const functionIds = s.ofType('AWS::Lambda::Function').map(([id]) => id).filter((id) => !hookIds(s).includes(id) && !isBackground(id));
    expect(aliases(s)).toHaveLength(FUNCTION_COUNT);
    expect(new Set(aliases(s).map(([, a]) => refId(a.Properties.FunctionName)))).toEqual(new Set(functionIds));
    for (const [id, alias] of aliases(s)) {
      expect(alias.Properties.Name, id).toBe(LIVE_ALIAS);
      const versionId = alias.Properties.FunctionVersion['Fn::GetAtt'][0];
      expect(s.resources[versionId]!.Type).toBe('AWS::Lambda::Version');
      expect(refId(s.resources[versionId]!.Properties.FunctionName)).toBe(refId(alias.Properties.FunctionName));
    }
  });

  it('the background functions have no alias: their event sources or schedules invoke them, and a new version is live at once (their alarms page)', () => {
    const s = prod();
    const background = s.ofType('AWS::Lambda::Function').map(([id]) => id).filter(isBackground);
    expect(background).toHaveLength(BACKGROUND_FUNCTIONS.length);
    const aliased = new Set(aliases(s).map(([, a]) => refId(a.Properties.FunctionName)));
    for (const id of background) expect(aliased.has(id), id).toBe(false);
    // Each by one event source mapping (stream, queue or dead-letter queue) or one schedule, and by its unqualified ARN.
    const invoked = [
      ...s.ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties.FunctionName),
      ...s.ofType('AWS::Scheduler::Schedule').map(([, schedule]) => ({ Ref: refId(schedule.Properties.Target.Arn) })),
    ];
    expect(invoked.sort((a, b) => String(a.Ref).localeCompare(String(b.Ref)))).toEqual(background.sort().map((id) => ({ Ref: id })));
    expect(s.ofType('AWS::Scheduler::Schedule')).toHaveLength(BACKGROUND_FUNCTIONS.filter((f) => f.trigger === 'schedule').length);
    // No CodeDeploy group and no smoke test for them: the groups are the deployed functions'.
    expect(s.ofType('AWS::CodeDeploy::DeploymentGroup')).toHaveLength(FUNCTION_COUNT);
  });

  it('API Gateway and the authorizer call the aliases, never the functions', () => {
    const s = prod();
    const aliasIds = new Set(aliases(s).map(([id]) => id));
    const calledIn = (uri: Json) => (uri['Fn::Join'][1] as Json[]).map(refId).filter((id): id is string => id !== undefined && id in s.resources);
    for (const [, m] of s.ofType('AWS::ApiGateway::Method')) for (const id of calledIn(m.Properties.Integration.Uri)) expect(aliasIds).toContain(id);
    for (const id of calledIn(s.one('AWS::ApiGateway::Authorizer')[1].Properties.AuthorizerUri)) expect(aliasIds).toContain(id);
    for (const [, p] of s.ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'apigateway.amazonaws.com')) {
      expect(aliasIds).toContain(refId(p.Properties.FunctionName));
    }
  });

  it('one CodeDeploy deployment group per function: canary in prod and staging, all at once in dev', () => {
    for (const [name, s] of envs) {
      const groups = s.ofType('AWS::CodeDeploy::DeploymentGroup');
      expect(groups).toHaveLength(FUNCTION_COUNT);
      const expected = name === 'dev' ? 'CodeDeployDefault.LambdaAllAtOnce' : 'CodeDeployDefault.LambdaCanary10Percent5Minutes';
      for (const [, g] of groups) expect(g.Properties.DeploymentConfigName, name).toBe(expected);
    }
  });

  it('each alias update goes through its deployment group with the smoke test as pre-traffic hook', () => {
    const s = prod();
    const groups = new Set(s.ofType('AWS::CodeDeploy::DeploymentGroup').map(([id]) => id));
    const seen = new Set<string>();
    for (const [id, alias] of aliases(s)) {
      const policy = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
      expect(policy, id).toBeDefined();
      expect(hookIds(s)).toContain(refId(policy.BeforeAllowTrafficHook));
      expect(groups).toContain(refId(policy.DeploymentGroupName));
      seen.add(refId(policy.DeploymentGroupName)!);
    }
    expect(seen.size).toBe(FUNCTION_COUNT);
  });

  it('rolls back on failure, on stop and on the alias errors and p99 alarms', () => {
    const s = prod();
    for (const [id, group] of s.ofType('AWS::CodeDeploy::DeploymentGroup')) {
      expect(group.Properties.AutoRollbackConfiguration.Enabled, id).toBe(true);
      expect([...group.Properties.AutoRollbackConfiguration.Events].sort()).toEqual(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM', 'DEPLOYMENT_STOP_ON_REQUEST']);
      const alarms = group.Properties.AlarmConfiguration.Alarms.map((a: Json) => refId(a.Name)!);
      expect(group.Properties.AlarmConfiguration.Enabled).toBe(true);
      expect(alarms).toHaveLength(2);
      const metrics = alarms.map((a: string) => s.resources[a]!.Properties);
      expect(metrics.map((m: Json) => m.MetricName).sort()).toEqual(['Duration', 'Errors']);
      for (const m of metrics) {
        expect(m.Period).toBe(60);
        // On the alias: the dimension Resource is <function>:live.
        const resource = m.Dimensions.find((d: Json) => d.Name === 'Resource');
        expect(JSON.stringify(resource.Value)).toContain(`:${LIVE_ALIAS}`);
      }
      expect(metrics.find((m: Json) => m.MetricName === 'Duration').ExtendedStatistic).toBe('p99');
    }
  });

  it('each smoke test may invoke versions of the functions it tests, read their deployments and report; nothing else; together they test every one', () => {
    const s = prod();
    const tested = new Set<string>();
    const operations: string[] = [];
    for (const hook of hookIds(s)) {
      const role = refId(s.resources[hook]!.Properties.Role)!;
      // Its grants outgrow an inline policy (one ARN per deployed function and per deployment group):
      // CDK moves the overflow into a managed policy attached to the same role. Both count.
      const policies = [...s.ofType('AWS::IAM::Policy'), ...s.ofType('AWS::IAM::ManagedPolicy')].filter(([, p]) => (p.Properties.Roles ?? []).some((r: Json) => refId(r) === role));
      expect(policies.length).toBeGreaterThan(0);
      const statements = policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
      const byAction = (action: string) => statements.filter((st: Json) => asArray(st.Action).includes(action));
      const invoke = byAction('lambda:InvokeFunction');
      expect(invoke).toHaveLength(1);
      const invokable = asArray(invoke[0].Resource).map((r: Json) => r['Fn::Join'][1][0]['Fn::GetAtt'][0] as string);
      for (const r of asArray(invoke[0].Resource)) expect((r as Json)['Fn::Join'][1][1]).toBe(':*');
      expect(asArray(byAction('codedeploy:GetDeployment')[0].Resource)).toHaveLength(invokable.length);
      expect(byAction('codedeploy:PutLifecycleEventHookExecutionStatus').length).toBeGreaterThan(0);
      const actions = new Set(statements.flatMap((st: Json) => asArray<string>(st.Action)));
      expect([...actions].sort()).toEqual([
        'codedeploy:GetDeployment',
        'codedeploy:PutLifecycleEventHookExecutionStatus',
        'lambda:InvokeFunction',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      for (const id of invokable) {
        expect(tested.has(id), id).toBe(false);
        tested.add(id);
      }
      // It knows which operation each function serves.
      const targets = JSON.stringify(s.resources[hook]!.Properties.Environment.Variables.SMOKE_TARGETS);
      operations.push(...[...targets.matchAll(/\\"operation\\":\\"(\w+)\\"/g)].map((m) => m[1]!));
    }
    expect(tested).toEqual(new Set(aliases(s).map(([, a]) => refId(a.Properties.FunctionName))));
    expect(operations.sort()).toEqual([...ROUTES.map((r) => r.operation), 'authorizer'].sort());
  });
});

// ---- alarms ----------------------------------------------------------------------------------

describe('paging alarms', () => {
  /** The one composite with an action (the paging one); the others are its groups. */
  const composite = (s: Synth) => {
    const paging = s.ofType('AWS::CloudWatch::CompositeAlarm').filter(([, a]) => (a.Properties.AlarmActions ?? []).length > 0);
    expect(paging).toHaveLength(1);
    return paging[0]!;
  };
  const ruleTerms = (alarm: CfnResource) => (alarm.Properties.AlarmRule['Fn::Join'][1] as Json[]).map(refId).filter((id): id is string => id !== undefined);
  /** The alarms in the paging composite's rule, through its group composites. */
  const children = (s: Synth): string[] =>
    ruleTerms(composite(s)[1]).flatMap((id) => (s.resources[id]!.Type === 'AWS::CloudWatch::CompositeAlarm' ? ruleTerms(s.resources[id]!) : [id]));
  const metricAlarms = (s: Synth) => s.ofType('AWS::CloudWatch::Alarm');
  const pagingAlarm = (s: Synth, predicate: (p: Json) => boolean) => {
    const found = children(s).map((id) => s.resources[id]!.Properties).filter(predicate);
    expect(found.length).toBeGreaterThan(0);
    return found;
  };
  const usesMetric = (name: string) => (p: Json) => p.MetricName === name || (p.Metrics ?? []).some((m: Json) => m.MetricStat?.Metric.MetricName === name);

  it('one composite alarm pages: its only action is the pager topic, which the configuration subscribes', () => {
    for (const [name, s] of envs) {
      const [, alarm] = composite(s);
      const topic = refId(s.outputs[OUTPUTS.alarmTopicArn]!.Value)!;
      expect(s.resources[topic]!.Type).toBe('AWS::SNS::Topic');
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topic }]);
      const endpoints = s.ofType('AWS::SNS::Subscription').filter(([, sub]) => refId(sub.Properties.TopicArn) === topic).map(([, sub]) => sub.Properties.Endpoint);
      const config = ENVIRONMENTS[name as keyof typeof ENVIRONMENTS];
      expect(endpoints.sort()).toEqual([...config.paging.emails, ...config.paging.httpsEndpoints].sort());
    }
  });

  it('every other alarm pages only through the composite: 1-minute periods, M of N (M ≥ 2), its only action the notices topic', () => {
    const s = prod();
    const inRule = new Set(children(s));
    const pager = refId(s.outputs[OUTPUTS.alarmTopicArn]!.Value)!;
    const [notices] = s.ofType('AWS::SNS::Topic').map(([id]) => id).filter((id) => id !== pager);
    expect(s.resources[notices!]!.Properties.DisplayName).toMatch(/alarm notices/);
    // Nobody is subscribed to the notices topic by the stack: it is for a chat channel or a ticket queue.
    expect(s.ofType('AWS::SNS::Subscription').filter(([, sub]) => refId(sub.Properties.TopicArn) === notices)).toEqual([]);
    for (const [id, alarm] of metricAlarms(s)) {
      const p = alarm.Properties;
      if (/ApiThrottledAlarm/.test(id)) {
        expect(inRule.has(id), '429s are the limits working: they do not page').toBe(false);
        expect(p.AlarmActions).toEqual([{ Ref: notices }]);
        continue;
      }
      expect(inRule.has(id), `${id} is in the composite rule`).toBe(true);
      // Control Tower (CT.CLOUDWATCH.PR.1) wants an action on every alarm: the notices topic, never the pager.
      expect(p.AlarmActions, id).toEqual([{ Ref: notices }]);
      const period = p.Period ?? p.Metrics.find((m: Json) => m.ReturnData !== false)?.Period ?? p.Metrics.find((m: Json) => m.MetricStat)?.MetricStat.Period;
      expect(period, id).toBe(60);
      expect(p.DatapointsToAlarm, id).toBeGreaterThanOrEqual(2);
      expect(p.EvaluationPeriods, id).toBeGreaterThan(p.DatapointsToAlarm);
      expect(p.TreatMissingData, id).toBe('notBreaching');
      expect(p.AlarmDescription, id).toMatch(/Runbook: docs\/deploy.md#alarms|Rolls a deployment back; pages/);
    }
    expect(inRule.size).toBe(metricAlarms(s).length - 1);
  });

  it('API: p99 Latency and IntegrationLatency, the 5xx rate, a 401 spike, authorizer failures', () => {
    const s = prod();
    expect(pagingAlarm(s, (p) => p.MetricName === 'Latency')[0]).toMatchObject({ ExtendedStatistic: 'p99', Threshold: ENVIRONMENTS.prod.alarms.apiLatencyP99Ms });
    expect(pagingAlarm(s, (p) => p.MetricName === 'IntegrationLatency')[0]).toMatchObject({ ExtendedStatistic: 'p99' });
    const rate5xx = pagingAlarm(s, usesMetric('5XXError'))[0];
    expect(rate5xx.Metrics.find((m: Json) => m.Expression).Expression).toBe('IF(requests >= 20, 100 * FILL(part, 0) / requests, 0)');
    expect(rate5xx.Threshold).toBe(ENVIRONMENTS.prod.alarms.serverErrorRatePercent);
    const rate401 = pagingAlarm(s, usesMetric('Unauthorized'))[0];
    expect(rate401.Threshold).toBe(ENVIRONMENTS.prod.alarms.unauthorizedRatePercent);
    expect(rate401.Metrics.map((m: Json) => m.MetricStat?.Metric.MetricName).filter(Boolean).sort()).toEqual(['Count', 'Unauthorized']);
    s.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = 401 }',
      MetricTransformations: [{ MetricName: 'Unauthorized', MetricNamespace: 'TimebillApi/prod', MetricValue: '1' }],
    });
    s.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.errorType = "AUTHORIZER_FAILURE") || ($.errorType = "AUTHORIZER_CONFIGURATION_ERROR") }',
      MetricTransformations: [{ MetricName: 'AuthorizerFailures', MetricNamespace: 'TimebillApi/prod', MetricValue: '1' }],
    });
    pagingAlarm(s, (p) => p.MetricName === 'AuthorizerFailures');
  });

  it('functions: errors, p99 duration and throttles of each one, the authorizer included', () => {
    const s = prod();
    for (const [aliasId, alias] of s.ofType('AWS::Lambda::Alias')) {
      const fnId = refId(alias.Properties.FunctionName);
      const onFunction = (p: Json) => p.Dimensions?.some((d: Json) => d.Name === 'FunctionName' && refId(d.Value) === fnId);
      for (const metric of ['Errors', 'Duration', 'Throttles']) expect(pagingAlarm(s, (p) => p.MetricName === metric && onFunction(p)), `${aliasId} ${metric}`).toHaveLength(1);
    }
  });

  it('DynamoDB: SystemErrors, ThrottledRequests of the table and of each GSI, p99 latency', () => {
    const s = prod();
    const sysErrors = pagingAlarm(s, usesMetric('SystemErrors'))[0];
    const operations = sysErrors.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric.Dimensions.find((d: Json) => d.Name === 'Operation').Value);
    expect(operations.sort()).toEqual(['DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem']);
    pagingAlarm(s, usesMetric('ThrottledRequests'));
    const gsi = pagingAlarm(s, usesMetric('ReadThrottleEvents'))[0];
    const indexes = gsi.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => `${m.MetricStat.Metric.MetricName} ${m.MetricStat.Metric.Dimensions.find((d: Json) => d.Name === 'GlobalSecondaryIndexName').Value}`);
    expect(indexes.sort()).toEqual(TABLE.indexes.flatMap((i) => [`ReadThrottleEvents ${i.name}`, `WriteThrottleEvents ${i.name}`]).sort());
    const latency = pagingAlarm(s, usesMetric('SuccessfulRequestLatency'))[0];
    expect(latency.Metrics.find((m: Json) => m.Expression).Expression).toMatch(/^MAX\(\[/);
    expect(latency.Metrics.filter((m: Json) => m.MetricStat).every((m: Json) => m.MetricStat.Stat === 'p99')).toBe(true);
  });

  it('the hook for later alarms (DLQ depth, iterator age): paging.add() puts an alarm in the composite rule', () => {
    const variant = serviceWith(ENVIRONMENTS.staging);
    const dlq = new cloudwatch.Alarm(variant.operationsStack, 'DlqDepth', {
      metric: new cloudwatch.Metric({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    variant.paging.add(dlq);
    const s = Synth.of(variant);
    const id = s.ofType('AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible')![0];
    expect(children(s)).toContain(id);
  });
});

// ---- dashboard -------------------------------------------------------------------------------

describe('dashboard', () => {
  it('one per environment: API, authorizer, each function (invocations, errors, p99, throttles, concurrency), DynamoDB', () => {
    for (const [name, s] of envs) {
      const [, dashboard] = s.one('AWS::CloudWatch::Dashboard');
      expect(dashboard.Properties.DashboardName).toBe(`timebill-api-${name}-${ENVIRONMENTS[name as keyof typeof ENVIRONMENTS].region}`);
      const body = JSON.stringify(dashboard.Properties.DashboardBody);
      for (const title of ['## API', '## Authorizer', '## Functions', '## DynamoDB']) expect(body).toContain(title);
      for (const f of ['Authorizer', ...ROUTES.map((r) => r.operation.charAt(0).toUpperCase() + r.operation.slice(1))]) {
        for (const what of ['invocations', 'errors', 'p99 duration (ms)', 'throttles', 'concurrency']) expect(body, `${f}: ${what}`).toContain(`${f}: ${what}`);
      }
      for (const metric of ['ConcurrentExecutions', 'Throttles', 'Invocations', 'Latency', 'IntegrationLatency', '5XXError', 'ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'SuccessfulRequestLatency', 'SystemErrors', 'ThrottledRequests']) {
        expect(body, metric).toContain(`\\"${metric}\\"`);
      }
    }
  });
});

// ---- concurrency -----------------------------------------------------------------------------

describe('reserved concurrency', () => {
  it('each deployed function reserves the rule of docs/deploy.md (prod, staging); the background functions none, bounded by their event sources; the sum leaves 100 unreserved', () => {
    for (const name of ['prod', 'staging'] as const) {
      const s = envs.get(name)!;
      const plan = ENVIRONMENTS[name].functions.concurrency as ConcurrencyPlan;
      let total = 0;
      for (const [, alias] of s.ofType('AWS::Lambda::Alias')) {
        const fn = s.resources[refId(alias.Properties.FunctionName)!]!;
        const description: string = fn.Properties.Description;
        const route = ROUTES.find((r) => description.startsWith(`${r.operation}:`));
        const kind = route ? accessOf(route) : 'authorizer';
        const reserved = fn.Properties.ReservedConcurrentExecutions;
        expect(reserved, description).toBe(reservedConcurrency(plan, kind, ROUTES.length));
        // Never more than the stage rate × its worst case, and never more than its share of what
        // the authorizer and Lambda's 100 unreserved leave.
        expect(reserved, description).toBeLessThanOrEqual(Math.ceil(STAGE_THROTTLING.rateLimit * plan.worstCaseSeconds[kind]));
        if (kind !== 'authorizer') expect(reserved, description).toBeLessThanOrEqual(routeShare(plan, ROUTES.length));
        total += reserved;
      }
      // Since the webhook routes (20 and more), the read and write routes no longer fit whole: each
      // is held to its share (20 routes: ⌊(1,000 − 100 − 100) ÷ 20⌋ = 40 < 100/s × 0.5 s = 50; docs/deploy.md).
      expect(routeShare(plan, ROUTES.length)).toBeLessThan(Math.ceil(STAGE_THROTTLING.rateLimit * plan.worstCaseSeconds.write));
      expect(total).toBe(reservedTotal(plan, functionKinds()));
      expect(total).toBeLessThanOrEqual(plan.accountConcurrencyLimit - UNRESERVED_MINIMUM);
      // The background functions reserve nothing: they run in the unreserved part, bounded by
      // their event sources (each queue consumer at QUEUE_CONSUMER_MAX_CONCURRENCY, the stream
      // consumer at one invocation per shard, a scheduled function at one invocation a firing),
      // so they never take the routes' or the authorizer's.
      for (const [id, fn] of s.ofType('AWS::Lambda::Function').filter(([id]) => isBackground(id))) {
        expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
      }
      const mappings = s.ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
      const fromQueue = mappings.filter((m) => m.StartingPosition === undefined);
      const fromStream = mappings.filter((m) => m.StartingPosition !== undefined);
      const scheduled = s.ofType('AWS::Scheduler::Schedule');
      expect(fromQueue.length + fromStream.length + scheduled.length).toBe(BACKGROUND_FUNCTIONS.length);
      for (const m of fromQueue) expect(m.ScalingConfig).toEqual({ MaximumConcurrency: QUEUE_CONSUMER_MAX_CONCURRENCY });
      for (const m of fromStream) expect(m.ParallelizationFactor).toBe(1);
      expect(QUEUE_CONSUMER_MAX_CONCURRENCY * fromQueue.length + scheduled.length).toBeLessThan(UNRESERVED_MINIMUM);
    }
  });

  it('dev reserves nothing (a new account may have a quota of 10); the smoke test never reserves', () => {
    for (const [, fn] of dev().ofType('AWS::Lambda::Function')) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const hook = prod().ofType('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).startsWith('CodeDeploy pre-traffic hook'))![1];
    expect(hook.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });
});

// ---- growth (adding routes, functions and alarms stays a declaration) -------------------------

describe('growth: many more functions and alarms still synthesize within the limits', () => {
  it('the paging rule is a tree of bounded composites: filled with alarms up to CloudFormation\'s 500 resources, it holds them all (a flat rule held about 64), no rule over the limit, one alarm pages', () => {
    // What this proves: the alarm tree is not what limits growth; CloudFormation's 500 resources
    // per stack come first. The Operations stack (staging) is filled with alarms up to exactly
    // that limit: it still synthesizes, every alarm is in the paging rule, no rule is too long.
    // (How many more routes fit is in docs/deploy.md, checked by layout.test.ts.)
    const base = Object.keys(assembly.get('staging')!.Operations.template.Resources).length;
    const headroom = CLOUDFORMATION_RESOURCE_LIMIT - base;
    expect(headroom).toBeGreaterThanOrEqual(50);
    const variant = serviceWith(ENVIRONMENTS.staging);
    // One group composite per 40 alarms comes with them: leave room for those.
    const count = headroom - Math.ceil(headroom / ALARMS_PER_GROUP);
    const extra = Array.from({ length: count }, (_, i) =>
      new cloudwatch.Alarm(variant.operationsStack, `Extra${i}`, {
        metric: new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'Errors', dimensionsMap: { FunctionName: `extra-${i}` } }),
        threshold: 0,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      }),
    );
    for (const alarm of extra) variant.paging.add(alarm);
    const s = Synth.of(variant); // synthesis runs the stack's validations, the rule length among them
    const pager = refId(s.outputs[OUTPUTS.alarmTopicArn]!.Value)!;
    const composites = s.ofType('AWS::CloudWatch::CompositeAlarm');
    const ids = new Set(composites.map(([id]) => id));
    const terms = (alarm: CfnResource) => (alarm.Properties.AlarmRule['Fn::Join'][1] as Json[]).map(refId).filter((id): id is string => id !== undefined);
    // Exactly one alarm publishes to the pager topic: the paging composite.
    const toPager = Object.entries(s.resources).filter(([, r]) => r.Type.startsWith('AWS::CloudWatch::') && JSON.stringify(r.Properties.AlarmActions ?? []).includes(`"${pager}"`));
    expect(toPager).toHaveLength(1);
    const [pagingId, paging] = toPager[0]!;
    expect(paging.Type).toBe('AWS::CloudWatch::CompositeAlarm');
    let reached: string[] = [];
    for (const [id, alarm] of composites) {
      const rule = terms(alarm);
      expect(rule.length * ALARM_RULE_TERM_LENGTH, id).toBeLessThanOrEqual(MAX_ALARM_RULE_LENGTH);
      if (id === pagingId) expect(rule.every((term) => ids.has(term))).toBe(true);
      else {
        expect(alarm.Properties.AlarmActions ?? [], `${id} pages only through ${pagingId}`).toEqual([]);
        reached = [...reached, ...rule];
      }
    }
    // Every metric alarm but the 429 notice is reached, once; the new ones among them.
    const metricIds = s.ofType('AWS::CloudWatch::Alarm').map(([id]) => id).filter((id) => !/ApiThrottledAlarm/.test(id));
    expect(reached.sort()).toEqual(metricIds.sort());
    expect(metricIds.filter((id) => id.startsWith('Extra'))).toHaveLength(count);
    // Far past what one flat rule holds (MAX_ALARM_RULE_LENGTH / ALARM_RULE_TERM_LENGTH = 64).
    expect(reached.length).toBeGreaterThan(2 * Math.floor(MAX_ALARM_RULE_LENGTH / ALARM_RULE_TERM_LENGTH));
    expect(composites.length).toBeGreaterThan(2);
    expect(Object.keys(Template.fromStack(variant.operationsStack).toJSON().Resources).length).toBeLessThanOrEqual(CLOUDFORMATION_RESOURCE_LIMIT);
    // CT.CLOUDWATCH.PR.1: every metric alarm has an action.
    for (const [id, alarm] of s.ofType('AWS::CloudWatch::Alarm')) expect((alarm.Properties.AlarmActions ?? []).length, id).toBeGreaterThan(0);
  });

  it('reserved concurrency stays within the account limit minus 100 unreserved with 200 more routes, in every environment; the authorizer keeps its reservation', () => {
    const grown: FunctionKind[] = [...functionKinds(), ...Array.from({ length: 100 }, (): FunctionKind => 'write'), ...Array.from({ length: 100 }, (): FunctionKind => 'read')];
    const routes = grown.length - 1;
    expect(configurationErrors(Object.values(ENVIRONMENTS), grown)).toEqual([]);
    for (const config of Object.values(ENVIRONMENTS)) {
      const plan = config.functions.concurrency;
      if (plan === 'unreserved') continue;
      expect(reservedTotal(plan, grown), config.name).toBeLessThanOrEqual(plan.accountConcurrencyLimit - UNRESERVED_MINIMUM);
      // Before this sizing: 100/s × 1 s + 100/s × 0.5 s per route, far over the limit.
      expect(grown.reduce((sum, kind) => sum + Math.ceil(STAGE_THROTTLING.rateLimit * plan.worstCaseSeconds[kind]), 0)).toBeGreaterThan(plan.accountConcurrencyLimit);
      expect(reservedConcurrency(plan, 'authorizer', routes)).toBe(Math.ceil(STAGE_THROTTLING.rateLimit * plan.worstCaseSeconds.authorizer));
      for (const kind of ['read', 'write', 'none'] as const) {
        const reserved = reservedConcurrency(plan, kind, routes);
        // Every route can run, and none can take more than the stage rate × its worst case.
        expect(reserved, `${config.name} ${kind}`).toBeGreaterThanOrEqual(1);
        expect(reserved, `${config.name} ${kind}`).toBeLessThanOrEqual(Math.ceil(STAGE_THROTTLING.rateLimit * plan.worstCaseSeconds[kind]));
      }
    }
    // Past what the limit can share, synthesis refuses the configuration instead of reserving 0.
    const many: FunctionKind[] = ['authorizer', ...Array.from({ length: 1000 }, (): FunctionKind => 'read')];
    expect(configurationErrors([ENVIRONMENTS.prod], many).join('\n')).toMatch(/leave no reserved concurrency for each route/);
  });
});

// ---- custom domain ---------------------------------------------------------------------------

describe('custom domain (when configured)', () => {
  let s: Synth;
  beforeAll(() => {
    s = fullyConfigured().synth;
  });

  it('regional API Gateway domain with an ACM certificate validated in the zone, TLS 1.2, mapped at the root to the stage', () => {
    const [certId, cert] = s.one('AWS::CertificateManager::Certificate');
    expect(cert.Properties).toMatchObject({ DomainName: DOMAIN.apiDomainName, ValidationMethod: 'DNS' });
    expect(cert.Properties.DomainValidationOptions).toEqual([{ DomainName: DOMAIN.apiDomainName, HostedZoneId: DOMAIN.hostedZoneId }]);
    const [domainId, domain] = s.one('AWS::ApiGateway::DomainName');
    expect(domain.Properties).toMatchObject({ DomainName: DOMAIN.apiDomainName, EndpointConfiguration: { Types: ['REGIONAL'] }, SecurityPolicy: 'TLS_1_2' });
    expect(refId(domain.Properties.RegionalCertificateArn)).toBe(certId);
    const [, mapping] = s.one('AWS::ApiGateway::BasePathMapping');
    expect(refId(mapping.Properties.DomainName)).toBe(domainId);
    expect(refId(mapping.Properties.RestApiId)).toBe(s.one('AWS::ApiGateway::RestApi')[0]);
    expect(refId(mapping.Properties.Stage)).toBe(s.one('AWS::ApiGateway::Stage')[0]);
    expect(mapping.Properties.BasePath).toBeUndefined();
  });

  it('the execute-api endpoint is disabled, so WAF and TLS cannot be bypassed', () => {
    expect(s.one('AWS::ApiGateway::RestApi')[1].Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(prod().one('AWS::ApiGateway::RestApi')[1].Properties.DisableExecuteApiEndpoint).toBe(false);
  });

  it('Route 53 aliases for the API and the token endpoint; Cognito custom domain with the us-east-1 certificate', () => {
    const records = s.ofType('AWS::Route53::RecordSet').map(([, r]) => r.Properties);
    expect(records.map((r) => [r.Name, r.Type, r.HostedZoneId]).sort()).toEqual([
      [`${DOMAIN.apiDomainName}.`, 'A', DOMAIN.hostedZoneId],
      [`${DOMAIN.authDomainName}.`, 'A', DOMAIN.hostedZoneId],
    ].sort());
    for (const r of records) expect(r.AliasTarget).toBeDefined();
    const custom = s.ofType('AWS::Cognito::UserPoolDomain').find(([, d]) => d.Properties.CustomDomainConfig)!;
    expect(custom[1].Properties).toMatchObject({ Domain: DOMAIN.authDomainName, CustomDomainConfig: { CertificateArn: DOMAIN.authCertificateArn } });
    // Cognito needs the parent name to resolve: the API record exists first.
    const apiRecord = s.ofType('AWS::Route53::RecordSet').find(([, r]) => r.Properties.Name === `${DOMAIN.apiDomainName}.`)![0];
    expect(custom[1].DependsOn).toContain(apiRecord);
  });

  it('outputs name the custom domains', () => {
    expect(s.outputs[OUTPUTS.apiUrl]!.Value).toBe(`https://${DOMAIN.apiDomainName}`);
    expect(s.outputs[OUTPUTS.apiV1Url]!.Value).toBe(`https://${DOMAIN.apiDomainName}/api/v1`);
    expect(s.outputs[OUTPUTS.tokenEndpoint]!.Value).toBe(`https://${DOMAIN.authDomainName}/oauth2/token`);
  });

  it('without a domain: none of it', () => {
    for (const type of ['AWS::ApiGateway::DomainName', 'AWS::ApiGateway::BasePathMapping', 'AWS::Route53::RecordSet', 'AWS::CertificateManager::Certificate']) {
      expect(prod().ofType(type), type).toHaveLength(0);
    }
  });
});

// ---- table override and backups -------------------------------------------------------------

describe('backups', () => {
  const RESTORED = 'timebill-restored-2026-11-22';
  const RESTORED_STREAM = `arn:aws:dynamodb:eu-west-1:333333333333:table/${RESTORED}/stream/2026-11-22T10:00:00.000`;

  it('a table-name override without the restored table\'s stream is refused at synthesis, saying what to do', () => {
    const overridden = { ...ENVIRONMENTS.prod, table: { ...ENVIRONMENTS.prod.table, tableNameOverride: RESTORED } };
    // An imported table's stream is unknown to CDK; the events consumer needs it.
    expect(configurationErrors([overridden], functionKinds()).join('\n')).toMatch(/tableNameOverride needs table.tableStreamArnOverride.*StreamViewType=NEW_AND_OLD_IMAGES/);
    expect(() => buildApp(newApp(), [overridden])).toThrow(/tableNameOverride needs table.tableStreamArnOverride/);
    expect(() => withConfig(overridden)).toThrow(/tableNameOverride needs table.tableStreamArnOverride/);
    // A stream of another table, account or region, or not a stream ARN at all, is refused too.
    for (const wrong of [
      RESTORED_STREAM.replace(RESTORED, 'timebill-other'),
      RESTORED_STREAM.replace('333333333333', '111111111111'),
      RESTORED_STREAM.replace('eu-west-1', 'us-east-1'),
      `arn:aws:dynamodb:eu-west-1:333333333333:table/${RESTORED}`,
    ]) {
      const errors = configurationErrors([{ ...overridden, table: { ...overridden.table, tableStreamArnOverride: wrong } }], functionKinds());
      expect(errors.join('\n'), wrong).toMatch(/tableStreamArnOverride must be a stream of table timebill-restored-2026-11-22 in 333333333333\/eu-west-1/);
    }
    expect(configurationErrors([{ ...overridden, table: { ...overridden.table, tableStreamArnOverride: RESTORED_STREAM } }], functionKinds())).toEqual([]);
  });

  it('a table-name override points every function at that table and the events consumer at its stream, and creates no table', () => {
    const s = withConfig({ ...ENVIRONMENTS.prod, table: { ...ENVIRONMENTS.prod.table, tableNameOverride: RESTORED, tableStreamArnOverride: RESTORED_STREAM } });
    expect(s.ofType('AWS::DynamoDB::Table')).toHaveLength(0);
    const [, mapping] = s.ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.StartingPosition !== undefined)!;
    expect(mapping.Properties.EventSourceArn).toBe(RESTORED_STREAM);
    // The consumer reads that stream and no other.
    const streamGrants = s.ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement).filter((st: Json) => asArray<string>(st.Action).includes('dynamodb:GetRecords'));
    expect(streamGrants.map((st: Json) => st.Resource)).toEqual([RESTORED_STREAM]);
    for (const [id, fn] of s.ofType('AWS::Lambda::Function')) {
      const name = fn.Properties.Environment?.Variables?.TABLE_NAME; // a function without any variable has no Environment
      if (name !== undefined) expect(name, id).toBe('timebill-restored-2026-11-22');
    }
    const policies = JSON.stringify(s.ofType('AWS::IAM::Policy').map(([, p]) => p.Properties.PolicyDocument));
    expect(policies).toContain(':table/timebill-restored-2026-11-22');
    expect(policies).toContain(':table/timebill-restored-2026-11-22/index/');
    expect(s.outputs[OUTPUTS.tableName]!.Value).toBe('timebill-restored-2026-11-22');
  });

  it('prod has an AWS Backup plan of the table (daily, kept 35 days); dev has none', () => {
    const s = prod();
    const [, plan] = s.one('AWS::Backup::BackupPlan');
    const [rule] = plan.Properties.BackupPlan.BackupPlanRule;
    expect(rule).toMatchObject({ ScheduleExpression: 'cron(0 3 * * ? *)', Lifecycle: { DeleteAfterDays: 35 } });
    expect(rule.CopyActions).toBeUndefined();
    const [, selection] = s.one('AWS::Backup::BackupSelection');
    expect(JSON.stringify(selection.Properties.BackupSelection.Resources)).toContain(s.one('AWS::DynamoDB::Table')[0]);
    expect(dev().ofType('AWS::Backup::BackupPlan')).toHaveLength(0);
  });

  it('with a copy vault configured, every recovery point is copied to it', () => {
    const [rule] = fullyConfigured().synth.one('AWS::Backup::BackupPlan')[1].Properties.BackupPlan.BackupPlanRule;
    expect(rule.CopyActions).toEqual([{ DestinationBackupVaultArn: COPY_VAULT, Lifecycle: { DeleteAfterDays: 90 } }]);
  });
});

// ---- cost guards -----------------------------------------------------------------------------

describe('cost guards', () => {
  it('a monthly budget on the environment tags, alerting the configured addresses at 80 % actual and 100 % forecast', () => {
    for (const [name, s] of envs) {
      const config = ENVIRONMENTS[name as keyof typeof ENVIRONMENTS];
      const [, budget] = s.one('AWS::Budgets::Budget');
      expect(budget.Properties.Budget).toMatchObject({
        BudgetType: 'COST',
        TimeUnit: 'MONTHLY',
        BudgetLimit: { Amount: config.costs.monthlyBudgetUsd, Unit: 'USD' },
        CostFilters: { TagKeyValue: ['user:service$timebill-api', `user:environment$${name}`] },
      });
      const notifications = budget.Properties.NotificationsWithSubscribers;
      expect(notifications.map((n: Json) => `${n.Notification.NotificationType} ${n.Notification.Threshold}`)).toEqual(['ACTUAL 80', 'FORECASTED 100']);
      for (const n of notifications) expect(n.Subscribers.map((x: Json) => x.Address)).toEqual(config.costs.alertEmails);
    }
  });

  it('a Cost Anomaly Detection monitor on the same tags, with a subscription above the configured impact', () => {
    const s = prod();
    const [monitorId, monitor] = s.one('AWS::CE::AnomalyMonitor');
    expect(monitor.Properties.MonitorType).toBe('CUSTOM');
    expect(JSON.parse(monitor.Properties.MonitorSpecification)).toEqual({
      And: [
        { Tags: { Key: 'service', Values: ['timebill-api'], MatchOptions: ['EQUALS'] } },
        { Tags: { Key: 'environment', Values: ['prod'], MatchOptions: ['EQUALS'] } },
      ],
    });
    const [, subscription] = s.one('AWS::CE::AnomalySubscription');
    expect(refId(subscription.Properties.MonitorArnList[0])).toBe(monitorId);
    expect(subscription.Properties.Subscribers).toEqual(ENVIRONMENTS.prod.costs.alertEmails.map((address) => ({ Type: 'EMAIL', Address: address })));
    expect(JSON.parse(subscription.Properties.ThresholdExpression).Dimensions.Values).toEqual([String(ENVIRONMENTS.prod.costs.anomalyThresholdUsd)]);
  });

  it('a WAF rate rule on the user pool bounds token requests per source IP', () => {
    const s = prod();
    const [aclId, acl] = s.ofType('AWS::WAFv2::WebACL').find(([, a]) => a.Properties.Name === 'timebill-api-prod-token-endpoint')!;
    expect(acl.Properties.Scope).toBe('REGIONAL');
    const [rule] = acl.Properties.Rules;
    expect(rule.Statement.RateBasedStatement).toEqual({ Limit: ENVIRONMENTS.prod.costs.tokenRequestsPer5MinutesPerIp, EvaluationWindowSec: 300, AggregateKeyType: 'IP' });
    expect(rule.Action.Block.CustomResponse.ResponseCode).toBe(429);
    const [, association] = s.ofType('AWS::WAFv2::WebACLAssociation').find(([, a]) => refId(a.Properties.WebACLArn) === aclId)!;
    expect(refId(association.Properties.ResourceArn)).toBe(s.one('AWS::Cognito::UserPool')[0]);
    // The stage has its own web ACL (infra/limits.ts); this one guards only the user pool.
    expect(s.ofType('AWS::WAFv2::WebACLAssociation')).toHaveLength(2);
  });
});
