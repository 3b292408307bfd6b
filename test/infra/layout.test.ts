/**
 * The layout of the deployed stacks (infra/stack.ts, decisions 0014, 0031): five stacks per environment,
 * each far from CloudFormation's limits, the data-holding resources in the Data stack under logical
 * ids that never change, and docs/deploy.md's figures (stacks, functions, scopes, alarms, and how
 * many more routes fit) computed here from the synthesized templates: every environment's from the
 * infra project's cloud assembly (test/infra/support/assembly.ts), and prod with a single route,
 * synthesized here to measure what a route costs. Bundling skipped: templates only.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Stage } from 'aws-cdk-lib';
import { PROJECT_ROOT } from '../../infra/bundling.ts';
import { ENVIRONMENTS } from '../../infra/config/environments.ts';
import { STACK_ROLES, TimebillApi, constructName, functionStackOf, stackNameOf, type StackRole } from '../../infra/stack.ts';
import { templateContext } from './support/assembly.ts';
import { ROUTES, SCOPES, type Route } from '../../shared/api/routes.ts';
import { isPublished, readAssembly, templatesOf, type AssemblyStack } from './support/templates.ts';
import { tempApp } from './support/temp-app.ts';
import { removeTempDirs } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** CloudFormation's limits per stack, and the ceiling the tests hold every stack under. */
const CFN_MAX_RESOURCES = 500;
const CFN_MAX_OUTPUTS = 200;
const RESOURCE_CEILING = 400;
/** What every stack holds at most with today's routes. */
const TODAY_MAX = 350;

let environments: Map<string, Record<StackRole, AssemblyStack>>;
let templates: Map<string, Record<StackRole, Json>>;
/** prod with a single route: what the other routes cost, stack by stack. */
let oneRoute: Record<StackRole, Json>;

const resourceCount = (template: Json) => Object.keys(template.Resources ?? {}).length;
const outputCount = (template: Json) => Object.keys(template.Outputs ?? {}).length;

beforeAll(() => {
  environments = readAssembly(inject('infraAssembly'));
  templates = new Map([...environments].map(([name, stacks]) => [name, Object.fromEntries(STACK_ROLES.map((role) => [role, stacks[role].template]))] as const)) as Map<string, Record<StackRole, Json>>;
  const prod = ENVIRONMENTS.prod;
  const single = new TimebillApi(new Stage(tempApp({ context: templateContext() }), 'prod', { env: { account: prod.account, region: prod.region } }), {
    config: prod,
    stackName: prod.stackName,
    routes: ROUTES.slice(0, 1),
  });
  oneRoute = templatesOf(single);
});

/** The routes whose resources a stack holds: a stack of functions its own routes', the others every route's. */
const routesIn = (role: StackRole, routes: readonly Route[]) => (role === 'Functions' || role === 'Billing' ? routes.filter((r) => functionStackOf(r) === role) : routes).length;

/** Per stack of prod: resources and outputs today, and what one more route of its own adds (measured: all routes against one). */
function costs() {
  const prod = templates.get('prod')!;
  return STACK_ROLES.map((role) => {
    const added = routesIn(role, ROUTES) - routesIn(role, ROUTES.slice(0, 1));
    const perRoute = (count: (t: Json) => number) => Math.ceil((count(prod[role]) - count(oneRoute[role])) / added);
    return {
      role,
      resources: resourceCount(prod[role]),
      outputs: outputCount(prod[role]),
      resourcesPerRoute: perRoute(resourceCount),
      outputsPerRoute: perRoute(outputCount),
    };
  });
}

/** How many more routes fit before the first stack reaches the ceiling (resources) or CloudFormation's output limit. */
function routesThatFit(): number {
  return Math.min(
    ...costs().flatMap((c) => [
      c.resourcesPerRoute > 0 ? Math.floor((RESOURCE_CEILING - c.resources) / c.resourcesPerRoute) : Infinity,
      c.outputsPerRoute > 0 ? Math.floor((CFN_MAX_OUTPUTS - c.outputs) / c.outputsPerRoute) : Infinity,
    ]),
  );
}

describe('stacks', () => {
  it('five per environment, in deploy order Data, Functions, Billing, Api, Operations, each depending only on those before it', () => {
    expect([...environments.keys()].sort()).toEqual(Object.keys(ENVIRONMENTS).sort());
    for (const [name, stacks] of environments) {
      const config = ENVIRONMENTS[name as keyof typeof ENVIRONMENTS];
      expect(Object.keys(stacks).sort()).toEqual([...STACK_ROLES].sort());
      expect(STACK_ROLES.map((role) => stacks[role].stackName)).toEqual(STACK_ROLES.map((role) => stackNameOf(config.stackName, role)));
      STACK_ROLES.forEach((role, i) => {
        const before = STACK_ROLES.slice(0, i);
        for (const dependency of stacks[role].dependsOn) expect(before, `${name}/${role} -> ${dependency}`).toContain(dependency);
        if (i > 0) expect(stacks[role].dependsOn).toContain(STACK_ROLES[i - 1]);
      });
    }
  });

  it(`every stack holds at most ${TODAY_MAX} resources with today's routes, and fails this test past ${RESOURCE_CEILING}`, () => {
    for (const [name, byRole] of templates) {
      for (const role of STACK_ROLES) {
        const count = resourceCount(byRole[role]);
        expect(count, `${name}/${role}: ${count} resources`).toBeLessThanOrEqual(RESOURCE_CEILING);
        expect(count, `${name}/${role}: ${count} resources`).toBeLessThanOrEqual(TODAY_MAX);
        expect(outputCount(byRole[role]), `${name}/${role} outputs`).toBeLessThanOrEqual(CFN_MAX_OUTPUTS);
      }
    }
    expect(RESOURCE_CEILING).toBeLessThan(CFN_MAX_RESOURCES);
  });

  it('each route costs resources in the Functions and Api stacks, and more routes still fit', () => {
    const byRole = new Map(costs().map((c) => [c.role, c]));
    expect(byRole.get('Functions')!.resourcesPerRoute).toBeGreaterThanOrEqual(8); // function, role, policy, version, alias, group, 2 rollback alarms
    expect(byRole.get('Api')!.resourcesPerRoute).toBeGreaterThanOrEqual(2); // method, invoke permission
    expect(routesThatFit()).toBeGreaterThanOrEqual(10);
  });
});

/**
 * The resources that hold data, by logical id, in the Data stack of every environment. A changed
 * logical id (a moved or renamed construct) would make CloudFormation create a new one and retain
 * or delete the old: the table and its items, the key that decrypts the logs, the integrations'
 * user pool, the backups. Never change these without a migration (decision 0014).
 */
const DATA_HOLDING: Record<string, { type: string; retained: boolean; environments?: readonly string[] }> = {
  TableCD117FA1: { type: 'AWS::DynamoDB::Table', retained: true },
  LogsKeyB5D1D597: { type: 'AWS::KMS::Key', retained: true },
  CursorSigningKey255C5A33: { type: 'AWS::SecretsManager::Secret', retained: false },
  UserPool6BA7E5F2: { type: 'AWS::Cognito::UserPool', retained: true },
  BackupVaultADF21B19: { type: 'AWS::Backup::BackupVault', retained: true, environments: ['prod'] },
  BackupPlan14914BEB: { type: 'AWS::Backup::BackupPlan', retained: false, environments: ['prod'] },
  BackupPlanTable14FFB280: { type: 'AWS::Backup::BackupSelection', retained: false, environments: ['prod'] },
};

describe('data-holding resources', () => {
  it('keep their logical ids, in the Data stack, retained where deleting them loses data', () => {
    for (const [name, byRole] of templates) {
      for (const [logicalId, expected] of Object.entries(DATA_HOLDING)) {
        if (expected.environments && !expected.environments.includes(name)) continue;
        const resource = byRole.Data.Resources[logicalId];
        expect(resource?.Type, `${name}: ${logicalId}`).toBe(expected.type);
        if (expected.retained) expect([resource.DeletionPolicy, resource.UpdateReplacePolicy], `${name}: ${logicalId}`).toEqual(['Retain', 'Retain']);
        for (const role of STACK_ROLES.filter((r) => r !== 'Data')) expect(byRole[role].Resources[logicalId], `${name}/${role}: ${logicalId}`).toBeUndefined();
      }
      // The stream is the table's (StreamSpecification): it lives and dies with it.
      expect(byRole.Data.Resources.TableCD117FA1.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
      // Exactly one of each kind, so no second table or key hides beside them.
      for (const type of new Set(Object.values(DATA_HOLDING).map((d) => d.type))) {
        const all = STACK_ROLES.flatMap((role) => Object.values<Json>(byRole[role].Resources).filter((r) => r.Type === type));
        expect(all.length, `${name}: ${type}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('every log group, the access log too, is in the Data stack', () => {
    for (const [name, byRole] of templates) {
      const groups = (role: StackRole) => Object.entries<Json>(byRole[role].Resources).filter(([, r]) => r.Type === 'AWS::Logs::LogGroup');
      expect(groups('Data').length, name).toBeGreaterThan(ROUTES.length);
      expect(groups('Data').map(([id]) => id), name).toContainEqual(expect.stringMatching(/^ApiAccessLogs/));
      expect(groups('Api'), name).toEqual([]);
      expect(groups('Functions'), name).toEqual([]);
      expect(groups('Operations'), name).toEqual([]);
    }
  });

  it('the operator scripts find every output in the Api stack (the environment\'s stack name)', () => {
    for (const [, byRole] of templates) {
      for (const role of STACK_ROLES.filter((r) => r !== 'Api')) {
        expect(Object.keys(byRole[role].Outputs ?? {}).filter((id) => !isPublished(id)), role).toEqual([]);
      }
    }
  });
});

// ---- docs/deploy.md ----------------------------------------------------------------------------

/** The figures block of docs/deploy.md, as the templates give it. */
function figuresBlock(): string {
  const prod = templates.get('prod')!;
  const all = STACK_ROLES.flatMap((role) => Object.values<Json>(prod[role].Resources));
  const count = (type: string) => all.filter((r) => r.Type === type).length;
  const reserved = all.reduce((sum, r) => sum + (typeof r.Properties?.ReservedConcurrentExecutions === 'number' ? r.Properties.ReservedConcurrentExecutions : 0), 0);
  const rows = costs().map((c) => `| ${c.role} | ${c.resources} | ${c.resourcesPerRoute} | ${c.outputs} | ${c.outputsPerRoute} |`);
  return [
    '<!-- figures: checked by test/infra/layout.test.ts against the synthesized prod stacks -->',
    `${ROUTES.length} routes, ${count('AWS::Lambda::Function')} functions, ${SCOPES.length} scopes, ${count('AWS::CloudWatch::Alarm')} alarms and ${count('AWS::CloudWatch::CompositeAlarm')} composite alarms; ${all.length} resources in ${STACK_ROLES.length} stacks; the functions reserve ${reserved} concurrent executions.`,
    '',
    '| Stack | Resources | Per route | Outputs | Per route |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `**${routesThatFit()} more routes fit** before a stack reaches the ${RESOURCE_CEILING} resources the tests allow (CloudFormation's limit is ${CFN_MAX_RESOURCES} resources and ${CFN_MAX_OUTPUTS} outputs).`,
    '<!-- end figures -->',
  ].join('\n');
}

describe('docs/deploy.md', () => {
  it('states the figures of the synthesized stacks: functions, scopes, alarms, resources and how many more routes fit', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
    const block = figuresBlock();
    const start = doc.indexOf('<!-- figures:');
    const end = doc.indexOf('<!-- end figures -->');
    // On a mismatch the diff shows the block to paste (between the two comments).
    expect(start >= 0 && end > start ? doc.slice(start, end + '<!-- end figures -->'.length) : '(no figures block)').toBe(block);
  });

  it('the runbook has a row for every alarm of prod (per-function alarms as <Function>…)', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
    const runbook = doc.slice(doc.indexOf('\n## Alarms'), doc.indexOf('\n## ', doc.indexOf('\n## Alarms') + 1));
    const deployed = ['Authorizer', ...ROUTES.map((r) => constructName(r.operation))];
    const generic = (id: string) => {
      const fn = deployed.find((name) => id.startsWith(name) && /^(Throttles|ErrorsAlarm|LatencyAlarm)$/.test(id.slice(name.length)));
      return fn ? `<Function>${id.slice(fn.length)}` : id;
    };
    const prod = templates.get('prod')!;
    const alarms = STACK_ROLES.flatMap((role) => Object.entries<Json>(prod[role].Resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(ROUTES.length);
    for (const [logicalId, alarm] of alarms) {
      const description: string = alarm.Properties.AlarmDescription;
      // Paging alarms name their construct id; the rollback alarms say what they watch; one notice.
      const id = /Runbook: docs\/deploy.md#alarms, (\w+)\./.exec(description)?.[1]
        ?? (/\(live alias\) failed/.test(description) ? '<Function>ErrorsAlarm' : /\(live alias\) p99/.test(description) ? '<Function>LatencyAlarm' : logicalId.replace(/[0-9A-F]{8}$/, ''));
      expect(runbook, `${logicalId}: ${description}`).toContain(`\`${generic(id)}\``);
    }
  });
});
