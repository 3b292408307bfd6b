/**
 * verifyWebhook against deliveries signed by the reference library of Standard Webhooks
 * (`standardwebhooks`): it accepts theirs, and refuses a tampered body, id or timestamp, another
 * secret, an old or future timestamp, and missing headers.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type Event } from '../../sdk/src/index.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const event: Event = {
  object: 'event',
  id: 'evt_01JD0000000000000000000000',
  type: 'client.created',
  created_at: '2026-11-24T08:00:00.000Z',
  workspace_id: 'ws-1',
  request_id: 'req-1',
  data: { object: { object: 'client', id: 'cli_01JD0000000000000000000000' } },
} as unknown as Event;
const body = JSON.stringify(event);

function delivery(at = new Date(), payload = body, id = event.id, key = secret) {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = new Webhook(key).sign(id, new Date(Number(timestamp) * 1000), payload);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed by the standardwebhooks library, from a string, bytes or Headers', () => {
    const headers = delivery();
    expect(verifyWebhook(body, headers, secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(event);
    // Node's IncomingHttpHeaders: lower-case names; any case is accepted.
    expect(verifyWebhook(body, { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] }, secret)).toEqual(event);
  });

  it('accepts any of several space-separated signatures (a secret being rotated)', () => {
    const headers = delivery();
    const other = delivery(new Date(), body, event.id, `whsec_${randomBytes(32).toString('base64')}`)['webhook-signature'];
    expect(verifyWebhook(body, { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` }, secret)).toEqual(event);
  });

  it('refuses a tampered body, id or timestamp, and another secret', () => {
    const headers = delivery();
    const refused = (raw: string, h: Record<string, string>, s = secret) => () => verifyWebhook(raw, h, s);
    expect(refused(body.replace('client.created', 'client.deleted'), headers)).toThrow(WebhookVerificationError);
    expect(refused(`${body} `, headers)).toThrow(/No matching signature/);
    expect(refused(body, { ...headers, 'webhook-id': 'evt_01JD0000000000000000000001' })).toThrow(/No matching signature/);
    expect(refused(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow(/No matching signature/);
    expect(refused(body, headers, `whsec_${randomBytes(32).toString('base64')}`)).toThrow(/No matching signature/);
    expect(refused(body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') })).toThrow(/No matching signature/);
  });

  it('refuses a delivery older or newer than 5 minutes, even correctly signed', () => {
    const now = Date.now();
    expect(verifyWebhook(body, delivery(new Date(now - 4 * 60_000)), secret)).toEqual(event);
    expect(() => verifyWebhook(body, delivery(new Date(now - 6 * 60_000)), secret)).toThrow(/too old/);
    expect(() => verifyWebhook(body, delivery(new Date(now + 6 * 60_000)), secret)).toThrow(/too new/);
    // The reference library agrees on the old one.
    expect(() => new Webhook(secret).verify(body, delivery(new Date(now - 6 * 60_000)))).toThrow();
  });

  it('refuses missing or malformed headers, and says a malformed secret is a programming error', () => {
    const { 'webhook-signature': _, ...unsigned } = delivery();
    expect(() => verifyWebhook(body, unsigned, secret)).toThrow(/Missing webhook-signature/);
    expect(() => verifyWebhook(body, { ...delivery(), 'webhook-timestamp': 'yesterday' }, secret)).toThrow(/Invalid webhook-timestamp/);
    expect(() => verifyWebhook(body, delivery(), 'whsec_not base64!')).toThrow(TypeError);
  });
});
