/**
 * Verifying a webhook delivery, per Standard Webhooks (standardwebhooks.com): the signature in
 * `webhook-signature` (space-separated `v1,<base64>`) is the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the bytes of the endpoint's secret
 * (`whsec_` + standard base64). The only Node-specific part of the SDK (node:crypto).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';
import type { Event } from './types.ts';

/** Deliveries older or newer than this are refused (replays, skewed clocks). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text === '') throw new WebhookVerificationError(`Missing ${name} header`);
  return text;
}

function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new TypeError('verifyWebhook: the secret is not whsec_ followed by standard base64');
  return Buffer.from(encoded, 'base64');
}

/**
 * The event of a delivery, once its signature and timestamp check out; otherwise throws
 * WebhookVerificationError. Pass the body exactly as received (a string or the raw bytes), not
 * a re-serialized object: the signature covers its bytes.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Event {
  const key = keyOf(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');

  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp header');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Number(timestamp) < now - tolerance) throw new WebhookVerificationError('The delivery is too old (webhook-timestamp)');
  if (Number(timestamp) > now + tolerance) throw new WebhookVerificationError('The delivery is too new (webhook-timestamp)');

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching signature in webhook-signature');

  try {
    return JSON.parse(body.toString('utf8')) as Event;
  } catch {
    throw new WebhookVerificationError('The delivery body is not JSON');
  }
}
