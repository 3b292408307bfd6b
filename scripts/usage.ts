/**
 * Requests per day of each integration, from the usage plans' records in API Gateway (what the
 * API is billed on):
 *
 *   npm run usage -- --from 2026-11-01 --to 2026-11-30 [--json]
 *
 * Every plan of shared/core/plan-limits.ts is read (GetUsage, all pages); an integration that changed
 * plans in the range is summed over them. Integrations are named by their API key (named after
 * the Cognito app client id by `npm run integration:create`, described with the workspace).
 * Days are UTC. Requests refused by the usage plan (429) or by WAF are not counted; requests with
 * an invalid token are metered on the invalid-token key, which is in none of these plans.
 *
 * Where the stack is: as for `npm run integration:create` (cdk-outputs.json, TIMEBILL_*, flags).
 */
import { APIGatewayClient, GetApiKeysCommand, GetUsageCommand } from '@aws-sdk/client-api-gateway';
import { PLAN_NAMES, type PlanName } from '../shared/core/plan-limits.ts';
import { usagePlanIdOf } from './api-keys.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { STACK_OPTIONS, resolveStackConfig } from './integration-create.ts';

/** The longest range one report covers. */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export interface UsageRow {
  date: string;
  /** The API key's name: the integration's app client id. */
  integration: string;
  description: string;
  apiKeyId: string;
  plans: PlanName[];
  requests: number;
}

/** Validates a `YYYY-MM-DD` range: real dates, from <= to, at most MAX_DAYS days. */
export function parseRange(from: string | undefined, to: string | undefined): { from: string; to: string; days: number } {
  const parse = (value: string | undefined, flag: string) => {
    if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new UsageError(`${flag} must be a date as YYYY-MM-DD`);
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw new UsageError(`${flag} ${value} is not a date`);
    return ms;
  };
  const start = parse(from, '--from');
  const end = parse(to, '--to');
  if (end < start) throw new UsageError('--to must not be before --from');
  const days = (end - start) / DAY_MS + 1;
  if (days > MAX_DAYS) throw new UsageError(`The range covers ${days} days; at most ${MAX_DAYS}`);
  return { from: from!, to: to!, days };
}

const dayAfter = (from: string, offset: number) => new Date(Date.parse(`${from}T00:00:00Z`) + offset * DAY_MS).toISOString().slice(0, 10);

/** Requests per day per integration over [from, to], from every plan's usage records. */
export async function usageReport(
  apiGateway: APIGatewayClient,
  usagePlanIds: Partial<Record<PlanName, string>>,
  range: { from: string; to: string },
): Promise<UsageRow[]> {
  const { from, to, days } = parseRange(range.from, range.to);
  const planIds = PLAN_NAMES.map((plan) => [plan, usagePlanIdOf(usagePlanIds, plan)] as const);

  // API key id (and value: GetUsage documents its map as keyed by "API key") -> the key.
  const keys = new Map<string, { id: string; name: string; description: string }>();
  let position: string | undefined;
  do {
    const page = await apiGateway.send(new GetApiKeysCommand({ includeValues: true, limit: 500, ...(position ? { position } : {}) }));
    for (const k of page.items ?? []) {
      if (!k.id) continue;
      const key = { id: k.id, name: k.name ?? k.id, description: k.description ?? '' };
      keys.set(k.id, key);
      if (k.value) keys.set(k.value, key);
    }
    position = page.position;
  } while (position);

  const rows = new Map<string, UsageRow>();
  for (const [plan, usagePlanId] of planIds) {
    let page: string | undefined;
    do {
      const usage = await apiGateway.send(new GetUsageCommand({ usagePlanId, startDate: from, endDate: to, limit: 500, ...(page ? { position: page } : {}) }));
      for (const [keyRef, daily] of Object.entries(usage.items ?? {})) {
        const key = keys.get(keyRef) ?? { id: keyRef, name: keyRef, description: '(API key deleted)' };
        daily.slice(0, days).forEach((entry, i) => {
          const date = dayAfter(from, i);
          const id = `${key.id}|${date}`;
          const row = rows.get(id) ?? { date, integration: key.name, description: key.description, apiKeyId: key.id, plans: [], requests: 0 };
          row.requests += entry[0] ?? 0;
          if ((entry[0] ?? 0) > 0 && !row.plans.includes(plan)) row.plans.push(plan);
          rows.set(id, row);
        });
      }
      page = usage.position;
    } while (page);
  }
  return [...rows.values()].sort((a, b) => a.integration.localeCompare(b.integration) || a.date.localeCompare(b.date));
}

/** A text table: one line per integration and day with requests, and each integration's total. */
export function renderUsage(rows: readonly UsageRow[], range: { from: string; to: string }): string {
  const lines = [`Requests per day, ${range.from} to ${range.to} (UTC), from the usage plans' records`, ''];
  const byIntegration = new Map<string, UsageRow[]>();
  for (const row of rows) byIntegration.set(row.integration, [...(byIntegration.get(row.integration) ?? []), row]);
  if (byIntegration.size === 0) lines.push('No integration has an API key in any usage plan.');
  for (const [integration, list] of byIntegration) {
    const total = list.reduce((sum, r) => sum + r.requests, 0);
    lines.push(`${integration}  ${list[0]!.description}  total ${total}`);
    for (const r of list) if (r.requests > 0) lines.push(`  ${r.date}  ${String(r.requests).padStart(10)}  ${r.plans.join(', ')}`);
  }
  return lines.join('\n');
}

const USAGE = 'Usage: npm run usage -- --from <YYYY-MM-DD> --to <YYYY-MM-DD> [--json] [--outputs-file <file>] [--stack-name <name>]';

runWhenMain(import.meta.url, async () => {
  const { from, to, json, ...flags } = parseCommandLine(
    {
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean', default: false },
        ...STACK_OPTIONS,
      },
    },
    USAGE,
  ).values;
  const range = parseRange(from, to);
  const stack = resolveStackConfig({ flags, env: process.env, cwd: process.cwd() });
  const apiGateway = new APIGatewayClient({ region: stack.region });
  try {
    const rows = await usageReport(apiGateway, stack.usagePlanIds, range);
    console.log(json ? JSON.stringify(rows, null, 2) : renderUsage(rows, range));
  } finally {
    apiGateway.destroy();
  }
});
