/**
 * AWS Control Tower proactive controls, checked by AWS's own rules (cfn-guard through
 * @cdklabs/cdk-validator-cfnguard) on the templates of prod's five stacks, from the cloud assembly
 * the infra project synthesizes once (test/infra/support/assembly.ts). cfn-guard runs once per
 * template, without exemptions, with every rule of the package that names a resource type that
 * template holds: each rule selects its resources by the types it names (`Resources.*[ Type ==
 * ... ]`), so on a template with none of them it selects nothing and can only skip; leaving those
 * pairs out saves most of cfn-guard's time (it costs per rule and per template, whether the rule
 * selects anything or not). The tests read its reports. Two controls are exempt, each for a
 * reason:
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { STACK_ROLES } from '../../infra/stack.ts';
import { readAssembly } from './support/templates.ts';
import { tempApp } from './support/temp-app.ts';
import { removeTempDirs } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

const CONTROL_TOWER_EXEMPTIONS: Record<string, string> = {
  // CT.LAMBDA.PR.3 asks that functions run in a VPC. Nothing here lives in a VPC: the functions
  // reach DynamoDB, Cognito and CloudWatch through their public AWS endpoints, and a VPC would add
  // NAT or endpoint costs and cold-start time for no resource to reach.
  'ct-lambda-pr-3': 'Functions in a VPC: nothing here lives in a VPC',
  // CT.LAMBDA.PR.2 checks that a Lambda permission for a service names its SourceArn, but reads
  // SourceArn only as a plain string or a local reference; CDK writes the stage ARN, correctly
  // scoped to the API, stage, method and path, as an Fn::Join (see the test of the invoke permissions).
  'ct-lambda-pr-2': 'The rule reads SourceArn only as a string or a local reference; CDK writes the scoped stage ARN as an Fn::Join',
};

/** CT.LAMBDA.PR.3 (in the description of a violation) -> ct-lambda-pr-3. */
const controlOf = (description: string) => /\[(CT\.\w+\.PR\.\d+)\]/.exec(description)![1]!.toLowerCase().replaceAll('.', '-');

/** The Control Tower rules the package ships (what `controlTowerRulesEnabled` runs), each with the resource types it names. */
const RULES_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')), 'rules/control-tower/cfn-guard');
const RULES = readdirSync(RULES_DIR, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.guard'))
  .map((file) => ({ file: path.join(RULES_DIR, file), types: new Set(readFileSync(path.join(RULES_DIR, file), 'utf8').match(/AWS::\w+::\w+/g)) }));

let report: { violations: ReturnType<CfnGuardValidator['validate']>['violations'] };
/** The rules that name a resource type of at least one of prod's templates. */
let applicable: typeof RULES;

beforeAll(() => {
  const prod = readAssembly(inject('infraAssembly')).get('prod')!;
  const runs = STACK_ROLES.map((role) => {
    const present = new Set(Object.values<{ Type: string }>(prod[role].template.Resources).map((r) => r.Type));
    return { templateFile: prod[role].templateFile, rules: RULES.filter((rule) => [...rule.types].some((type) => present.has(type))) };
  });
  applicable = RULES.filter((rule) => runs.some((run) => run.rules.includes(rule)));
  report = {
    violations: runs.flatMap(({ templateFile, rules }) =>
      new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: rules.map((r) => r.file), maxBuffer: 64 * 1024 * 1024 }).validate({ templatePaths: [templateFile], appConstruct: tempApp() })
        .violations,
    ),
  };
});

describe('AWS Control Tower proactive controls (cfn-guard)', () => {
  it(`pass, with only the exemptions ${Object.keys(CONTROL_TOWER_EXEMPTIONS).join(' and ')}`, () => {
    const violations = report.violations
      .filter((v) => !(controlOf(v.description) in CONTROL_TOWER_EXEMPTIONS))
      .map((v) => `${v.ruleName}: ${v.description} at ${v.violatingResources.map((r) => r.resourceLogicalId).join(', ')}`);
    expect(violations).toEqual([]);
  });

  it('runs on each template every rule that names a resource type it holds (a rule that names none of them can only skip there)', () => {
    // The package's whole set (some 240 rules), each naming the types it selects: were one to name
    // none, leaving it out would not be safe.
    expect(RULES.length).toBeGreaterThan(200);
    for (const rule of RULES) expect(rule.types.size, rule.file).toBeGreaterThan(0);
    // The templates' services are all covered: functions, API, table, keys, logs and alarms, queues, IAM.
    for (const dir of ['lambda', 'apigateway', 'dynamodb', 'keymanagementservice', 'cloudwatch', 'sqs', 'identityandaccessmanagement']) {
      expect(applicable.some((r) => r.file.startsWith(path.join(RULES_DIR, dir, path.sep))), dir).toBe(true);
    }
  });

  it('exempts exactly two controls, each still failing without its exemption', () => {
    // Violations name the guard rule (lambda_inside_vpc_check); the control id is in the description.
    const failing = new Set(report.violations.map((v) => controlOf(v.description)));
    expect([...failing].sort()).toEqual(Object.keys(CONTROL_TOWER_EXEMPTIONS).sort());
  });
});
