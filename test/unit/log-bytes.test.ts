/**
 * The log bytes of the bench's whole bill (docs/benchmarks.json, section 7) against the formats
 * and levels the stacks deploy (infra/logging.ts): each committed sample of an operation of the
 * mix is rendered again, so a change of the access-log format, the functions' levels or the
 * delivery function's lines fails here until `npm run bench -- --sections cost --merge` prices it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchResults } from '../bench/results.ts';
import type * as LogBytesModule from '../bench/log-bytes.ts';
import { WHOLE_BILL_VOLUME, tracesRecorded, wholeBill } from '../bench/cost.ts';
import { countFixedItems } from '../bench/fixed-items.ts';
import { ACCESS_LOG_FORMAT, FUNCTION_LOGGING } from '../../infra/logging.ts';
import { ENVIRONMENTS, configurationErrors } from '../../infra/config/environments.ts';

const repoRoot = join(import.meta.dirname, '../..');
const results = JSON.parse(readFileSync(join(repoRoot, 'docs/benchmarks.json'), 'utf8')) as BenchResults;
const cost = results.cost!;
const evidence = cost.logs!;
let lb: typeof LogBytesModule;

beforeAll(async () => {
  // The functions are deployed at INFO (FUNCTION_LOGGING); the test project runs at WARN. The
  // logger reads its level once at load, so the delivery lines are rendered at the deployed level.
  process.env.AWS_LAMBDA_LOG_LEVEL = FUNCTION_LOGGING.applicationLevel;
  lb = await import('../bench/log-bytes.ts');
});

describe('log bytes committed by the bench', () => {
  it('every operation of the mix renders to the bytes the bench committed (access log, platform, application)', () => {
    expect(evidence.samples.length).toBeGreaterThan(10);
    for (const sample of evidence.samples) {
      expect({ scenario: sample.scenario, ...lb.requestLogBytes(sample, evidence.memoryMb) }).toEqual({ scenario: sample.scenario, ...sample.bytes });
    }
  });

  it('a delivery invocation and an authorizer invocation render to the committed bytes', () => {
    const lines = lb.renderDeliveryBatch(evidence.deliveryBatch.batch);
    const platform = lb.billedBytes(lb.renderPlatformRecords(900, evidence.memoryMb), FUNCTION_LOGGING.systemLevel).bytes;
    expect(lb.billedBytes(lines, FUNCTION_LOGGING.applicationLevel).bytes + platform).toBe(evidence.deliveryBatch.bytes);
    expect(lines.filter((l) => l.kind === 'attempt')).toHaveLength(evidence.deliveryBatch.batch);
    expect(lb.billedBytes(lb.renderPlatformRecords(5, evidence.memoryMb), FUNCTION_LOGGING.systemLevel).bytes).toBe(evidence.authorizerBytes);
  });

  it('is sensitive to the format and the levels: one more field or platform records at INFO change the bytes', () => {
    const sample = evidence.samples[0]!;
    const wider = ACCESS_LOG_FORMAT.replace('{"status":$context.status,', '{"status":$context.status,"protocol":"$context.protocol",');
    expect(Buffer.byteLength(lb.renderAccessLog(sample, wider))).toBeGreaterThan(Buffer.byteLength(lb.renderAccessLog(sample)));
    const atInfo = lb.requestLogBytes(sample, evidence.memoryMb, { ...FUNCTION_LOGGING, systemLevel: 'INFO' });
    expect(atInfo.platform).toBeGreaterThan(200);
    expect(atInfo.events).toBe(sample.bytes.events + 2);
  });

  it('renders the access log as valid JSON with every variable of the format filled, status a number', () => {
    const line = JSON.parse(lb.renderAccessLog(evidence.samples[0]!)) as Record<string, unknown>;
    expect(typeof line.status).toBe('number');
    expect(Object.values(line).some((v) => String(v).includes('$context'))).toBe(false);
    expect(() => lb.renderAccessLog(evidence.samples[0]!, '{"x":"$context.somethingNew"}')).toThrow(/no sample value/);
  });

  it('keeps every access-log field a metric filter or a runbook row of docs/deploy.md reads', () => {
    const fields = Object.keys(JSON.parse(lb.renderAccessLog(evidence.samples[0]!)) as object);
    // Metric filters (infra/operations/alarms.ts, infra/stack.ts): $.status and $.errorType.
    const alarms = readFileSync(join(repoRoot, 'infra/operations/alarms.ts'), 'utf8') + readFileSync(join(repoRoot, 'infra/stack.ts'), 'utf8');
    const filtered = [...alarms.matchAll(/FilterPattern\.\w+\('\$\.(\w+)'/g)].map((m) => m[1]!);
    expect(new Set(filtered)).toEqual(new Set(['status', 'errorType']));
    const runbook = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
    for (const field of ['principalId', 'integrationStatus', 'status']) expect(runbook).toContain(`\`${field}\``);
    expect(fields).toEqual(expect.arrayContaining([...filtered, 'principalId', 'integrationStatus', 'requestId']));
  });

  it('the delivery function defines every custom metric it can write, beside the metric filters', () => {
    const names = lb.deliveryMetricNames();
    expect(names).toHaveLength(5);
    for (const name of names) expect(cost.bill!.input.fixed.customMetrics).toContain(name);
  });
});

describe('the whole bill', () => {
  it('is what the committed inputs price to (the bill and its whole-bill row)', () => {
    const bill = cost.bill!;
    const again = wholeBill(cost.total, bill.input);
    expect(again.volumes).toEqual(bill.volumes.map((v) => expect.objectContaining({ requestsPerMonth: v.requestsPerMonth, perMillion: expect.closeTo(v.perMillion, 2) })));
    // The committed figures are rounded to 1/1000 (run.ts), the inputs too: a cent of tolerance.
    expect(bill.whole).toBeCloseTo(again.whole, 2);
    expect(bill.volumes.map((v) => v.requestsPerMonth)).toContain(WHOLE_BILL_VOLUME);
  });

  it('spreads the fixed items over the volume and X-Ray\'s reservoir over the month', () => {
    const input = { ...cost.bill!.input, fixed: { ...cost.bill!.input.fixed, alarmMetrics: 1000 } };
    const [low, , high] = wholeBill(1, input).volumes;
    expect(low!.fixed).toBeCloseTo(high!.fixed * 100, 6);
    // One request a second fills the reservoir: 2.592 M traces a month, then the rate.
    expect(tracesRecorded(1_000_000, { reservoirPerSecond: 1, fixedRate: 0.01 })).toBe(1_000_000);
    expect(tracesRecorded(100_000_000, { reservoirPerSecond: 1, fixedRate: 0.01 })).toBeCloseTo(2_592_000 + 0.01 * (100_000_000 - 2_592_000), 3);
  });

  it('takes the X-Ray sampling of an environment only in range (a rate from 0 to 1, a whole reservoir)', () => {
    const withTracing = (tracing: { reservoirPerSecond: number; fixedRate: number }) => configurationErrors([{ ...ENVIRONMENTS.dev, tracing }], ['authorizer', 'read']);
    expect(withTracing({ reservoirPerSecond: 1, fixedRate: 0.05 })).toEqual([]);
    for (const bad of [{ reservoirPerSecond: 1, fixedRate: 1.5 }, { reservoirPerSecond: -1, fixedRate: 0.01 }, { reservoirPerSecond: 0.5, fixedRate: 0.01 }]) {
      expect(withTracing(bad)).toEqual([expect.stringMatching(/^dev: tracing needs a fixedRate from 0 to 1/)]);
    }
  });

  it('counts alarms by the metrics they evaluate, rules of every web ACL, distinct custom metrics', () => {
    const template = {
      Resources: {
        a: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
        b: { Type: 'AWS::CloudWatch::Alarm', Properties: { Metrics: [{ Id: 'e', Expression: 'a+b' }, { Id: 'a', MetricStat: {} }, { Id: 'b', MetricStat: {} }] } },
        c: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}] } },
        d: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}] } },
        e: { Type: 'AWS::Logs::MetricFilter', Properties: { MetricTransformations: [{ MetricNamespace: 'N', MetricName: 'M' }] } },
        f: { Type: 'AWS::Logs::MetricFilter', Properties: { MetricTransformations: [{ MetricNamespace: 'N', MetricName: 'M' }] } },
        g: { Type: 'AWS::KMS::Key', Properties: {} },
      },
    };
    expect(countFixedItems('prod', [template], ['X/Y (service=s)'])).toMatchObject({
      alarms: 2,
      alarmMetrics: 3,
      webAcls: 2,
      wafRules: 4,
      customMetrics: ['N/M', 'X/Y (service=s)'],
      kmsKeys: 1,
      secrets: 0,
    });
  });
});
