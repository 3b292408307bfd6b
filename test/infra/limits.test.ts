/**
 * The limits of infra/limits.ts in the synthesized template: API keys from the authorizer, every
 * authorized method requiring one, the usage plans with the throttles and quotas of
 * shared/core/plan-limits.ts (or of the stack properties), the invalid-token key given to the authorizer,
 * and the web ACL (rules, custom responses, association with the stage): prod's stacks from the
 * infra project's cloud assembly (test/infra/support/assembly.ts), and a variant with other limits.
 * Bundling is skipped: these assertions do not look at the functions' code (stack.test.ts does).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Template } from 'aws-cdk-lib/assertions';
import { usagePlanOutput } from '../../infra/names.ts';
import { COUNTED_RULES, WAF_MAX_REGEX_LENGTH, WAF_RATE_LIMIT_PER_IP, WAF_RESPONSE_BODIES, WAF_RETRY_AFTER_SECONDS } from '../../infra/limits.ts';
import { TimebillApi, type TimebillApiProps } from '../../infra/stack.ts';
import { environmentTemplate, mergedFromAssembly, readAssembly } from './support/templates.ts';
import { templateContext } from './support/assembly.ts';
import { INVALID_TOKEN_PLAN, PLAN_NAMES, USAGE_PLANS, usagePlanName } from '../../shared/core/plan-limits.ts';
import { PROTECTED_ROUTES, ROUTES } from '../../shared/api/routes.ts';
import { tempApp } from './support/temp-app.ts';
import { removeTempDirs } from '../support/temp-dirs.ts';

afterAll(removeTempDirs);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let resources: Record<string, { Type: string; Properties: Json }>;
let template: Template;
let custom: Template;

const synth = (props: TimebillApiProps) => environmentTemplate(new TimebillApi(tempApp({ context: templateContext() }), props));

beforeAll(() => {
  template = Template.fromJSON(mergedFromAssembly(readAssembly(inject('infraAssembly')).get('prod')!));
  resources = template.toJSON().Resources;
  custom = synth({
    usagePlans: { large: { rateLimit: 200, burstLimit: 400, monthlyQuota: 50_000_000 } },
    invalidTokenPlan: { rateLimit: 1, burstLimit: 2, monthlyQuota: undefined },
    wafRateLimitPerIp: 5000,
  });
});

const ofType = (type: string, from = resources) => Object.entries(from).filter(([, r]) => r.Type === type);
const planNamed = (name: string, t: Template = template) =>
  Object.values(t.findResources('AWS::ApiGateway::UsagePlan')).find((r: Json) => r.Properties.UsagePlanName === name) as Json;
const webAcl = (t: Template = template) => Object.values(t.findResources('AWS::WAFv2::WebACL'))[0] as Json;
const rule = (name: string, t: Template = template) => webAcl(t).Properties.Rules.find((r: Json) => r.Name === name);

describe('API keys', () => {
  it('come from the authorizer (apiKeySourceType AUTHORIZER)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('are required by every method behind the authorizer, and only by those', () => {
    const methods = ofType('AWS::ApiGateway::Method');
    expect(methods).toHaveLength(ROUTES.length);
    const custom = methods.filter(([, m]) => m.Properties.AuthorizationType === 'CUSTOM');
    expect(custom).toHaveLength(PROTECTED_ROUTES.length);
    for (const [id, m] of methods) {
      expect(m.Properties.ApiKeyRequired ?? false, id).toBe(m.Properties.AuthorizationType === 'CUSTOM');
    }
  });
});

describe('usage plans', () => {
  it('one per plan of shared/core/plan-limits.ts, on the stage, with its rate, burst and monthly quota', () => {
    for (const plan of PLAN_NAMES) {
      const found = planNamed(usagePlanName(plan));
      expect(found, plan).toBeDefined();
      expect(found.Properties.Throttle).toEqual({ RateLimit: USAGE_PLANS[plan].rateLimit, BurstLimit: USAGE_PLANS[plan].burstLimit });
      expect(found.Properties.Quota).toEqual({ Limit: USAGE_PLANS[plan].monthlyQuota, Period: 'MONTH' });
      expect(found.Properties.ApiStages).toHaveLength(1);
      expect(found.Properties.ApiStages[0].Stage).toEqual({ Ref: expect.stringMatching(/^ApiDeploymentStage/) });
      const planId = Object.entries(resources).find(([, r]) => r === found)![0];
      expect(template.toJSON().Outputs[usagePlanOutput(plan)].Value).toEqual({ Ref: planId });
    }
    expect(USAGE_PLANS.large.rateLimit).toBeGreaterThan(USAGE_PLANS.default.rateLimit);
  });

  it('the invalid-token plan is small, has no quota, and holds the key the authorizer returns', () => {
    const found = planNamed(usagePlanName('invalid-token'));
    expect(found.Properties.Throttle).toEqual({ RateLimit: INVALID_TOKEN_PLAN.rateLimit, BurstLimit: INVALID_TOKEN_PLAN.burstLimit });
    expect(found.Properties.Quota).toBeUndefined();
    expect(INVALID_TOKEN_PLAN.rateLimit).toBeLessThan(USAGE_PLANS.default.rateLimit);

    const [[keyId, key]] = ofType('AWS::ApiGateway::ApiKey') as [[string, Json]];
    expect(key.Properties.Enabled).toBe(true);
    const [[, planKey]] = ofType('AWS::ApiGateway::UsagePlanKey') as [[string, Json]];
    expect(planKey.Properties).toEqual({ KeyId: { Ref: keyId }, KeyType: 'API_KEY', UsagePlanId: { Ref: expect.stringMatching(/InvalidToken/) } });

    // The authorizer gets the same value as the key's.
    const authorizer = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (f: Json) => f.Properties.Environment?.Variables?.INVALID_TOKEN_API_KEY !== undefined,
    ) as Json;
    expect(authorizer.Properties.Environment.Variables.INVALID_TOKEN_API_KEY).toEqual(key.Properties.Value);
    expect(authorizer.Properties.Description).toMatch(/authorizer/);
  });

  it('take their rates, bursts and quotas from the stack properties', () => {
    expect(planNamed(usagePlanName('large'), custom).Properties.Throttle).toEqual({ RateLimit: 200, BurstLimit: 400 });
    expect(planNamed(usagePlanName('large'), custom).Properties.Quota).toEqual({ Limit: 50_000_000, Period: 'MONTH' });
    expect(planNamed(usagePlanName('default'), custom).Properties.Throttle.RateLimit).toBe(USAGE_PLANS.default.rateLimit);
    expect(planNamed(usagePlanName('invalid-token'), custom).Properties.Throttle).toEqual({ RateLimit: 1, BurstLimit: 2 });
    expect(rule('RateLimitPerIp', custom).Statement.RateBasedStatement.Limit).toBe(5000);
  });
});

describe('web ACL', () => {
  it('is regional, allows by default, and is associated with the stage', () => {
    const [[aclId, acl]] = ofType('AWS::WAFv2::WebACL') as [[string, Json]];
    expect(acl.Properties.Scope).toBe('REGIONAL');
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    const [[, association]] = ofType('AWS::WAFv2::WebACLAssociation') as [[string, Json]];
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const arn = JSON.stringify(association.Properties.ResourceArn);
    expect(arn).toMatch(/restapis/);
    expect(arn).toMatch(/stages/);
    expect(arn).toMatch(/ApiDeploymentStage/);
  });

  it('blocks over the per-IP rate with 429 rate_limited, Retry-After and the contract body', () => {
    const r = rule('RateLimitPerIp');
    expect(r.Statement.RateBasedStatement).toEqual({ Limit: WAF_RATE_LIMIT_PER_IP, EvaluationWindowSec: 300, AggregateKeyType: 'IP' });
    expect(r.Action.Block.CustomResponse.ResponseCode).toBe(429);
    expect(r.Action.Block.CustomResponse.CustomResponseBodyKey).toBe('rate_limited');
    expect(r.Action.Block.CustomResponse.ResponseHeaders).toContainEqual({ Name: 'Retry-After', Value: String(WAF_RETRY_AFTER_SECONDS) });    // The firewall's answers carry nosniff and HSTS too, as every response does.
    expect(r.Action.Block.CustomResponse.ResponseHeaders).toContainEqual({ Name: 'X-Content-Type-Options', Value: 'nosniff' });
    expect(r.Action.Block.CustomResponse.ResponseHeaders).toContainEqual({ Name: 'Strict-Transport-Security', Value: 'max-age=31536000; includeSubDomains' });
  });

  it('refuses a protected route without a bearer token with 401 before the stage counts it; the public document and unknown routes pass', () => {
    const r = rule('RequireBearerToken');
    expect(r.Priority).toBeGreaterThan(rule('RateLimitPerIp').Priority);
    expect(r.Priority).toBeLessThan(rule('AWSManagedRulesCommonRuleSet').Priority);
    expect(r.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 401, CustomResponseBodyKey: 'authentication_required' });
    expect(r.Action.Block.CustomResponse.ResponseHeaders).toContainEqual({ Name: 'WWW-Authenticate', Value: 'Bearer realm="timebill-api"' });
    type Request = { method: string; path: string; authorization?: string };
    // The rule's statement evaluated as WAF does (matches after their text transformations).
    const fieldOf = (field: Json, request: Request) =>
      field.UriPath ? request.path : field.Method ? request.method : field.SingleHeader?.Name === 'authorization' ? request.authorization : undefined;
    const transformed = (value: string, transformations: Json[]) => transformations.reduce((v, t) => (t.Type === 'LOWERCASE' ? v.toLowerCase() : v), value);
    const matches = (statement: Json, request: Request): boolean => {
      if (statement.AndStatement) return statement.AndStatement.Statements.every((s: Json) => matches(s, request));
      if (statement.OrStatement) return statement.OrStatement.Statements.some((s: Json) => matches(s, request));
      if (statement.NotStatement) return !matches(statement.NotStatement.Statement, request);
      const match = statement.ByteMatchStatement ?? statement.RegexMatchStatement;
      const raw = fieldOf(match.FieldToMatch, request);
      if (raw === undefined) return false;
      const value = transformed(raw, match.TextTransformations);
      if (statement.RegexMatchStatement) {
        expect(match.RegexString.length).toBeLessThanOrEqual(WAF_MAX_REGEX_LENGTH);
        return new RegExp(match.RegexString).test(value);
      }
      const wanted = match.SearchString;
      return { STARTS_WITH: value.startsWith(wanted), ENDS_WITH: value.endsWith(wanted), EXACTLY: value === wanted }[match.PositionalConstraint as string]!;
    };
    const blocked = (method: string, path: string, authorization?: string) => matches(r.Statement, { method, path, ...(authorization === undefined ? {} : { authorization }) });
    // Every protected route, under the stage or a custom domain's mapping, with an id where it takes one.
    for (const route of ROUTES.filter((x) => x.scope !== null)) {
      const path = route.path.replace('{id}', 'te_01KABC');
      expect(blocked(route.method, `/prod${path}`), route.operation).toBe(true);
      expect(blocked(route.method, path), `${route.operation} without the stage`).toBe(true);
      expect(blocked(route.method, `/prod${path}`, 'Bearer eyJ.x.y'), `${route.operation} with a token`).toBe(false);
    }
    expect(blocked('DELETE', '/prod/api/v1/time_entries/te_1', 'Basic dXNlcjpwYXNz')).toBe(true);
    expect(blocked('GET', '/prod/api/v1/clients', 'bearer eyJ.x.y')).toBe(false);
    // The public document; unknown paths, methods and deeper paths go on to the gateway's 404.
    expect(blocked('GET', '/prod/api/v1/openapi.json')).toBe(false);
    expect(blocked('GET', '/api/v1/openapi.json')).toBe(false);
    expect(blocked('GET', '/prod/api/v1/nope')).toBe(false);
    expect(blocked('PUT', '/prod/api/v1/clients/cli_1')).toBe(false);
    expect(blocked('DELETE', '/prod/api/v1/clients')).toBe(false);
    expect(blocked('GET', '/prod/api/v1/clients/cli_1/projects')).toBe(false);
    expect(blocked('GET', '/a/b/api/v1/clients')).toBe(false);
  });

  it('runs the common and known-bad-inputs managed groups, the body-size rule counted only', () => {
    const common = rule('AWSManagedRulesCommonRuleSet');
    expect(common.Statement.ManagedRuleGroupStatement.VendorName).toBe('AWS');
    expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual(
      COUNTED_RULES.map((name) => ({ Name: name, ActionToUse: { Count: {} } })),
    );
    expect(COUNTED_RULES).toContain('SizeRestrictions_BODY');
    const badInputs = rule('AWSManagedRulesKnownBadInputsRuleSet');
    expect(badInputs.Statement.ManagedRuleGroupStatement).toEqual({ VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' });
    // The groups label; the next rule blocks on their labels with the custom response.
    for (const group of [common, badInputs]) expect(group.OverrideAction).toEqual({ Count: {} });
  });

  it('blocks what the managed rules match (but the counted body-size rule) with 403 forbidden', () => {
    const r = rule('BlockManagedRuleMatches');
    for (const group of ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']) {
      expect(r.Priority, `after ${group}: labels are only seen by later rules`).toBeGreaterThan(rule(group).Priority);
    }
    const [anyManaged, notCounted] = r.Statement.AndStatement.Statements;
    expect(anyManaged.OrStatement.Statements.map((s: Json) => s.LabelMatchStatement)).toEqual([
      { Scope: 'NAMESPACE', Key: 'awswaf:managed:aws:core-rule-set:' },
      { Scope: 'NAMESPACE', Key: 'awswaf:managed:aws:known-bad-inputs:' },
    ]);
    expect(notCounted.NotStatement.Statement.LabelMatchStatement).toEqual({ Scope: 'LABEL', Key: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body' });
    expect(r.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 403, CustomResponseBodyKey: 'forbidden' });
  });

  it('answers in the contract error body (JSON), for every custom response', () => {
    const bodies = webAcl().Properties.CustomResponseBodies;
    expect(Object.keys(bodies).sort()).toEqual(Object.keys(WAF_RESPONSE_BODIES).sort());
    for (const [type, body] of Object.entries(bodies) as [string, Json][]) {
      expect(body.ContentType).toBe('APPLICATION_JSON');
      const parsed = JSON.parse(body.Content);
      expect(Object.keys(parsed)).toEqual(['error']);
      expect(parsed.error.type).toBe(type);
      expect(parsed.error.message.length).toBeGreaterThan(10);
    }
    const keysUsed = webAcl()
      .Properties.Rules.map((r: Json) => r.Action?.Block?.CustomResponse?.CustomResponseBodyKey)
      .filter(Boolean)
      .sort();
    expect(keysUsed).toEqual(['authentication_required', 'forbidden', 'rate_limited']);
  });
});
