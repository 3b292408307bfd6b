/**
 * The SDK's types: sdk/src/openapi-types.ts is exactly what `npm run sdk:types` generates from
 * docs/openapi.json, and the SDK's bodies, parameters and results follow it. The type checks
 * below are compiled by the project's `tsc` (`npm test` runs it first): each `@ts-expect-error`
 * fails the compile if the line it marks ever compiles.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSdkTypes, SDK_TYPES_PATH } from '../../sdk/scripts/types.ts';
import type { Timebill } from '../../sdk/src/index.ts';

const root = resolve(import.meta.dirname, '../..');

describe('the SDK\'s generated types', () => {
  it('are exactly what openapi-typescript generates from docs/openapi.json (run `npm run sdk:types` after `npm run openapi`)', async () => {
    expect(readFileSync(SDK_TYPES_PATH, 'utf8')).toBe(await renderSdkTypes());
  });

  it('type the README\'s first lines, which are sdk/examples/quickstart.ts (compiled by tsc, run by test/integration/sdk.test.ts)', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The SDK'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    const example = readFileSync(resolve(root, 'sdk/examples/quickstart.ts'), 'utf8').replace("'../src/index.ts'", "'./sdk/src/index.ts'");
    expect(block).toBe(example);
  });

  it('are what the SDK\'s surface is typed with (compiled, never run)', () => {
    expect(typeof typeChecks).toBe('function');
  });
});

async function typeChecks(tb: Timebill) {
  await tb.clients.create({ company_name: 'Acme', company_email: 'billing@acme.test' }, { idempotencyKey: 'k' });
  // @ts-expect-error company_email is required
  await tb.clients.create({ company_name: 'Acme' });
  // @ts-expect-error no such field
  await tb.clients.update('cli_x', { nickname: 'A' });
  // @ts-expect-error a create takes no If-Match
  await tb.clients.create({ company_name: 'Acme', company_email: 'a@acme.test' }, { ifMatch: '"1"' });

  await tb.projects.create({ name: 'Site', billing_type: 'Monthly', client_id: 'cli_x' });
  // @ts-expect-error billing_type is one of the six values
  await tb.projects.create({ name: 'Site', billing_type: 'Hourly', client_id: 'cli_x' });
  // @ts-expect-error billing_type is one of the six values, in an update too
  await tb.projects.update('prj_x', { billing_type: 'Yearly' });
  // @ts-expect-error a project's client never changes
  await tb.projects.update('prj_x', { client_id: 'cli_y' });

  await tb.timeEntries.create({ project_id: 'prj_x', started_at: '2026-11-24T08:00:00Z', duration_minutes: 30 });
  await tb.timeEntries.create({ client_id: 'cli_x', started_at: '2026-11-24T08:00:00Z', duration_minutes: 30, billable: false });
  // @ts-expect-error started_at is required, with a project as with a client
  await tb.timeEntries.create({ project_id: 'prj_x', duration_minutes: 30 });
  // @ts-expect-error duration_minutes is required
  await tb.timeEntries.create({ client_id: 'cli_x', started_at: '2026-11-24T08:00:00Z' });
  // The create response alone carries the endpoint's secret (absent from a replay once the endpoint is deleted).
  const created = await tb.webhookEndpoints.create({ url: 'https://hooks.acme.test/timebill', enabled_events: ['*'] });
  const secret: string | undefined = created.secret;
  // @ts-expect-error the secret may be absent
  const alwaysSecret: string = created.secret;
  void [secret, alwaysSecret];

  for await (const client of tb.clients.list({ status: 'ACTIVE', limit: 50 })) {
    const name: string = client.company_name;
    // @ts-expect-error a client has no such field
    void client.project_id;
    void name;
  }
  // @ts-expect-error status is one of the client statuses
  tb.clients.list({ status: 'ARCHIVED' });
  // @ts-expect-error the SDK follows the cursor itself
  tb.clients.list({ cursor: 'c' });

  const entry = await tb.timeEntries.retrieve('te_x');
  const minutes: number = entry.duration_minutes;
  const deleted: true = (await tb.timeEntries.del('te_x', { ifMatch: entry })).deleted;
  for await (const event of tb.events.list({ after: 'evt_x', type: 'client.created' })) void event.data;
  // @ts-expect-error events are read-only
  void tb.events.create;
  void minutes;
  void deleted;
}
