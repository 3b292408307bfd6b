/**
 * What an environment pays each month whatever its traffic, counted from its synthesized
 * templates (prod by default, as `cdk synth` builds it, bundling skipped): web ACLs and their
 * rules, alarms (by the metrics each one evaluates, as CloudWatch bills them), composite alarms,
 * dashboards, custom metrics (metric filters' and the EMF metrics the functions write), KMS keys
 * and secrets. The bench's cost section prices them (cost.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface FixedCounts {
  environment: string;
  webAcls: number;
  /** Rules of every web ACL (a managed rule group is one rule). */
  wafRules: number;
  alarms: number;
  /** Metrics the standard alarms evaluate (a metric-math alarm is billed per metric it reads). */
  alarmMetrics: number;
  compositeAlarms: number;
  dashboards: number;
  /** Distinct custom metrics: `namespace/name` of the metric filters, and the EMF metrics given. */
  customMetrics: string[];
  kmsKeys: number;
  secrets: number;
}

/** Counts the billed fixed items of an environment's templates (`emfMetrics`: what the functions write as EMF). */
export function countFixedItems(environment: string, templates: readonly Json[], emfMetrics: readonly string[]): FixedCounts {
  const resources = templates.flatMap((t) => Object.values<Json>(t.Resources ?? {}));
  const ofType = (type: string) => resources.filter((r) => r.Type === type);
  const webAcls = ofType('AWS::WAFv2::WebACL');
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const metricsOf = (alarm: Json) =>
    alarm.Properties.Metrics ? (alarm.Properties.Metrics as Json[]).filter((m) => m.MetricStat !== undefined).length : 1;
  const filterMetrics = ofType('AWS::Logs::MetricFilter').flatMap((f) =>
    (f.Properties.MetricTransformations as Json[]).map((m) => `${String(m.MetricNamespace)}/${String(m.MetricName)}`),
  );
  return {
    environment,
    webAcls: webAcls.length,
    wafRules: webAcls.reduce((s, acl) => s + (acl.Properties.Rules ?? []).length, 0),
    alarms: alarms.length,
    alarmMetrics: alarms.reduce((s, a) => s + metricsOf(a), 0),
    compositeAlarms: ofType('AWS::CloudWatch::CompositeAlarm').length,
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    customMetrics: [...new Set([...filterMetrics, ...emfMetrics])].sort(),
    kmsKeys: ofType('AWS::KMS::Key').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
  };
}

/** Synthesizes one environment's five stacks (templates only) and counts their fixed items. */
export async function fixedItemsOf(repoRoot: string, environment: 'dev' | 'staging' | 'prod', emfMetrics: readonly string[]): Promise<FixedCounts> {
  const { TimebillApi } = await import('../../infra/stack.ts');
  const { ENVIRONMENTS } = await import('../../infra/config/environments.ts');
  const config = ENVIRONMENTS[environment];
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
  const service = new TimebillApi(new Stage(app, config.name, { env: { account: config.account, region: config.region } }), {
    stackName: config.stackName,
    config,
  });
  const templates = Object.values(service.stacks).map((stack) => Template.fromStack(stack).toJSON());
  return countFixedItems(environment, templates, emfMetrics);
}
