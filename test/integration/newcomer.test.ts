/**
 * What a newcomer following the README meets on the local stack: the README's session, pasted
 * into bash as it is (in a directory of its own), answers what the README shows (down to the
 * month's invoice, created, finalized, saved as invoice.pdf and paid, and a TPS and TVQ invoice
 * paid in two instalments); a second token of the same workspace with more scopes works at once
 * (the authorizer's cached registration does not hold the new scopes back), and a 403 for a
 * missing scope says which route and what the token grants.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiFor, baseUrl, expectError, token } from '../support/api.ts';
import { randomUUID } from 'node:crypto';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const between = (start: string, end: string) => readme.slice(readme.indexOf(start), readme.indexOf(end));

interface Step {
  command: string;
  shown: string;
}

/** The session's commands (`$ ` and their indented continuation lines), each with the output the README shows after it. */
function sessionSteps(): Step[] {
  const session = between('### A session', '### Beyond the spec');
  const steps: Step[] = [];
  for (const [, block] of session.matchAll(/```console\n([\s\S]*?)```/g)) {
    for (const line of block!.split('\n')) {
      const last = steps.at(-1);
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: '' });
      else if (last && line.startsWith('    ') && last.shown === '') last.command += `\n${line}`;
      else if (last) last.shown += `${line}\n`;
    }
  }
  return steps;
}

/** Values that differ from run to run (ids, request ids, cursors, times, dates): the README shows one of them. */
const VARYING = /^("\w+_[0-9A-Z]{26}"|"[0-9a-f]{8}-[0-9a-f-]{27}"|"[\w-]{40,}\.[\w-]+"|"\d{4}-\d\d-\d\d(T[\d:.]+Z)?"|"acme")$/;
/** What the README's output says for sure: its status line, and its JSON members whose values do not vary (ids inside a message included). */
function claims(shown: string): string[] {
  const status = /^HTTP\/1\.1 \d{3} [\w ]+$/m.exec(shown)?.[0];
  const members = [...shown.matchAll(/"(\w+)":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g)]
    .filter(([, , value]) => !VARYING.test(value!) && !/_[0-9A-Z]{26}/.test(value!))
    .map(([member]) => member!);
  return [...(status ? [status] : []), ...members];
}

describe('the README\'s session, pasted into bash', () => {
  it('answers what the README shows, to the month\'s invoice created, finalized, saved as a PDF and paid, one paid in two instalments, and the month\'s billing run', { timeout: 120_000 }, async () => {
    const setup = between('## Run it locally', '### A session');
    const scopes = /--scopes\s+\\?\s*([\w:,]+)/.exec(setup)?.[1]?.split(',');
    expect(scopes).toContain('invoices:write');
    const json = /^json\(\) .*$/m.exec(setup)?.[0];
    expect(json).toBeDefined();
    const steps = sessionSteps();
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.some((step) => /\/invoices\/\$INVOICE\/pay /.test(step.command))).toBe(true);
    // Right after its finalize, the month's invoice is saved as its PDF.
    const finalized = steps.findIndex((step) => /\/invoices\/\$INVOICE\/finalize /.test(step.command));
    expect(steps[finalized + 1]?.command).toMatch(/^curl -s \$API\/invoices\/\$INVOICE\/document .*-o invoice\.pdf$/);
    // The instalments: a TPS and TVQ invoice, two payments, and the invoice read back paid.
    expect(steps.filter((step) => /\/invoices\/\$\w+\/payments /.test(step.command))).toHaveLength(2);
    expect(steps.find((step) => step.command.includes('TVQ'))?.command).toMatch(/TPS.*5\}.*TVQ.*9\.975\}/);
    const paid = steps.findLast((step) => /^curl -s \$API\/invoices\/\$\w+ /.test(step.command));
    expect(claims(paid!.shown)).toEqual(expect.arrayContaining(['"status":"paid"', '"amount_due":"0.00"']));
    // The month ends with a billing run of the whole workspace, read back with its outcomes.
    expect(steps.some((step) => /-X POST \$API\/billing_runs /.test(step.command))).toBe(true);
    expect(steps.at(-1)!.command).toMatch(/^curl -s "\$API\/billing_runs\/\$RUN\/results"/);
    expect(claims(steps.at(-1)!.shown)).toEqual(expect.arrayContaining(['"object":"billing_run_result"', '"outcome":"nothing_to_invoice"']));

    const script = ['set -o pipefail', json!, ...steps.flatMap((step, i) => [`printf '\\n@@@${i}@@@\\n'`, step.command])].join('\n');
    const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, TOKEN: await token(`readme-${randomUUID().slice(0, 8)}`, scopes), API: `${baseUrl()}/api/v1` };
    // Through a pipe, as in a terminal: `tee /dev/stderr` cannot open the socket Node gives a child.
    // In a directory of its own, where the session writes invoice.pdf.
    const cwd = mkdtempSync(join(tmpdir(), 'timebill-readme-'));
    let stdout: string;
    let saved: Buffer;
    try {
      ({ stdout } = await promisify(execFile)('bash', ['-c', `{\n${script}\n} 2>&1 | cat`], { env, cwd }));
      saved = readFileSync(join(cwd, 'invoice.pdf'));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    expect(saved.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const outputs = stdout.split(/\n@@@\d+@@@\n/).slice(1);
    expect(outputs).toHaveLength(steps.length);
    steps.forEach((step, i) => {
      const output = outputs[i]!.replace(/\r/g, '');
      for (const claim of claims(step.shown)) expect(output, `${step.command}\n  shows ${claim}`).toContain(claim);
    });
  });
});

const endpoint = { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'] };

describe('a workspace\'s local client given more scopes', () => {
  it('its next token uses them at once, and the 403 before named the route and the granted scopes', async () => {
    const workspace = `newcomer-${randomUUID().slice(0, 8)}`;
    const first = apiFor(await token(workspace, ['clients:read', 'clients:write']));
    // Used once, so the authorizer holds the registration (clients only) in its cache.
    expect((await first.get('/clients')).status).toBe(200);
    const refused = expectError(await first.post('/webhook_endpoints', endpoint), 403, 'insufficient_scope');
    expect(refused.message).toContain('POST /api/v1/webhook_endpoints');
    expect(refused.message).toMatch(/grants here: clients:read clients:write$/);

    const second = apiFor(await token(workspace, ['clients:read', 'webhook_endpoints:read', 'webhook_endpoints:write']));
    const created = await second.post('/webhook_endpoints', endpoint);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await second.get(`/webhook_endpoints/${created.body.id}`)).status).toBe(200);

    // The first token keeps only what it was given.
    expectError(await first.get('/webhook_endpoints'), 403, 'insufficient_scope');
    expect((await first.get('/clients')).status).toBe(200);
  });
});
