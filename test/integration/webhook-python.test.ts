/**
 * docs/events.md's Python verification code (its one python block, the standard library alone)
 * run by python3 against a real delivery of the local stack: it answers the event, and refuses
 * the delivery tampered with, under another endpoint's secret, or signed too long ago.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { workspace } from '../support/api.ts';
import { startReceiver, waitFor } from '../support/events.ts';

const root = resolve(import.meta.dirname, '../..');

/** The doc's one python block. */
function documentedPython(): string {
  const blocks = readFileSync(resolve(root, 'docs/events.md'), 'utf8').split('```python\n').slice(1);
  if (blocks.length !== 1) throw new Error(`docs/events.md should hold one python block, not ${blocks.length}`);
  return blocks[0]!.slice(0, blocks[0]!.indexOf('```'));
}

/** Reads cases from stdin, prints what verify_webhook answered for each. */
const HARNESS = `
import sys
results = []
for case in json.load(sys.stdin):
    try:
        event = verify_webhook(case["body"].encode(), case["headers"], case["secret"])
        results.append({"event": [event["id"], event["type"]]})
    except ValueError as error:
        results.append({"refused": str(error)})
print(json.dumps(results))
`;

interface Case {
  body: string;
  headers: Record<string, string>;
  secret: string;
}

function verifyInPython(cases: Case[]): Promise<unknown[]> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile('python3', ['-c', documentedPython() + HARNESS], (error, stdout, stderr) => {
      if (error) return reject(new Error(`python3 failed: ${stderr || error.message}`));
      resolvePromise(JSON.parse(stdout) as unknown[]);
    });
    child.stdin!.end(JSON.stringify(cases));
  });
}

describe('the Python verification of docs/events.md', () => {
  it('verifies a real delivery, and refuses it tampered, under another secret or too old', async () => {
    const { api } = await workspace('py-verify');
    const receiver = await startReceiver();
    try {
      const endpoint = (await api.post('/webhook_endpoints', { url: receiver.url, enabled_events: ['client.created'] })).body;
      const other = (await api.post('/webhook_endpoints', { url: receiver.url, enabled_events: ['client.deleted'] })).body;
      const client = (await api.post('/clients', { company_name: 'Pythonic', company_email: 'py@acme.test' })).body;
      const delivery = await waitFor(async () => receiver.received.find((r) => r.body.includes(client.id)), 'the delivery of client.created');
      const headers = delivery.headers as Record<string, string>;
      const eventId = headers['webhook-id']!;
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
      const cases: Case[] = [
        { body: delivery.body, headers, secret: endpoint.secret },
        // As Flask hands them: capitalized names; and a second signature, as while a secret rotates.
        {
          body: delivery.body,
          headers: { 'Webhook-Id': eventId, 'Webhook-Timestamp': headers['webhook-timestamp']!, 'Webhook-Signature': `v1,AAAA ${headers['webhook-signature']}` },
          secret: endpoint.secret,
        },
        { body: delivery.body.replace('Pythonic', 'Tampered'), headers, secret: endpoint.secret },
        { body: delivery.body, headers, secret: other.secret },
        {
          body: delivery.body,
          headers: {
            'webhook-id': eventId,
            'webhook-timestamp': String(Math.floor(tenMinutesAgo.getTime() / 1000)),
            'webhook-signature': new Webhook(endpoint.secret).sign(eventId, tenMinutesAgo, delivery.body),
          },
          secret: endpoint.secret,
        },
      ];
      expect(await verifyInPython(cases)).toEqual([
        { event: [eventId, 'client.created'] },
        { event: [eventId, 'client.created'] },
        { refused: 'no valid signature' },
        { refused: 'no valid signature' },
        { refused: 'webhook-timestamp missing or more than 5 minutes away' },
      ]);
    } finally {
      await receiver.close();
    }
  });
});
