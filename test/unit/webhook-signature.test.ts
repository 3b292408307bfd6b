import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeaders } from '../../shared/core/webhook-signature.ts';

/** Signatures per Standard Webhooks, checked with that project's own library (`standardwebhooks`). */
describe('webhook signatures', () => {
  const secret = newSecret();
  const id = 'evt_0000000001ABCDEFGHJKMNPQRS';
  const body = '{"object":"event","id":"evt_0000000001ABCDEFGHJKMNPQRS","note":"é ✓"}';

  it('are webhook-id (the event id), webhook-timestamp (unix seconds) and webhook-signature v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the decoded secret>', () => {
    const now = new Date('2026-11-22T10:00:00.900Z');
    const headers = signatureHeaders(secret, id, body, now);
    const t = Math.floor(now.getTime() / 1000);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(headers).toEqual({
      'webhook-id': id,
      'webhook-timestamp': String(t),
      'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64')}`,
    });
    // The reference implementation signs the same message identically.
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(id, now, body));
  });

  it('verify with the standardwebhooks library, which returns the parsed body', () => {
    expect(new Webhook(secret).verify(body, signatureHeaders(secret, id, body))).toEqual(JSON.parse(body));
    // Header names in any case, as a framework may hand them over.
    const shouted = Object.fromEntries(Object.entries(signatureHeaders(secret, id, body)).map(([k, v]) => [k.toUpperCase(), v]));
    expect(new Webhook(secret).verify(body, shouted)).toEqual(JSON.parse(body));
  });

  it('do not verify when the body, the timestamp, the id or the signature was changed, or with another secret', () => {
    const headers = signatureHeaders(secret, id, body);
    const refused = (payload: string, h: Record<string, string>, key = secret) => {
      expect(() => new Webhook(key).verify(payload, h)).toThrow(WebhookVerificationError);
    };
    const signed = headers['webhook-signature']!;
    // Its first base64 digit changed: still well formed, no longer the HMAC.
    const tampered = `v1,${signed[3] === 'A' ? 'B' : 'A'}${signed.slice(4)}`;
    refused(body.replace('evt_0000000001', 'evt_0000000002'), headers);
    refused(`${body} `, headers);
    refused(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) });
    refused(body, { ...headers, 'webhook-id': 'evt_0000000002ABCDEFGHJKMNPQRS' });
    refused(body, { ...headers, 'webhook-signature': tampered });
    refused(body, { ...headers, 'webhook-signature': signed.replace('v1,', 'v2,') });
    refused(body, headers, newSecret());
    // A replay of a captured delivery more than 5 minutes later, re-signed for its old time, is refused too.
    const old = new Date(Date.now() - 301_000);
    refused(body, signatureHeaders(secret, id, body, old));
  });

  it('are keyed with secrets of whsec_ + standard base64 of 32 random bytes', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(() => new Webhook(a)).not.toThrow();
    expect(newSecret()).not.toBe(a);
  });
});
