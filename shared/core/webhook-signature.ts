/**
 * Webhook signatures per Standard Webhooks (standardwebhooks.com; events.md), so that receivers
 * verify deliveries with that project's libraries in any language:
 * - `webhook-id`: the event id, the same on every retry of the event;
 * - `webhook-timestamp`: the attempt's unix seconds;
 * - `webhook-signature`: `v1,<standard base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`,
 *   keyed with the secret's bytes: the secret is `whsec_` + standard base64 of 32 random bytes.
 * Verification is the receivers' (and the tests') job, with the `standardwebhooks` library.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + standard base64 (with padding) of 32 random bytes (256 bits). */
export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The HMAC key of a secret: the bytes its base64 part decodes to. */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** `v1,<base64>`: the signature of a body sent with this id at these unix seconds. */
export function signature(secret: string, id: string, timestamp: number, rawBody: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(rawBody, 'utf8').digest('base64')}`;
}

/** The three headers of a delivery of `rawBody` (event `id`) sent at `now`. */
export function signatureHeaders(secret: string, id: string, rawBody: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signature(secret, id, timestamp, rawBody),
  };
}
