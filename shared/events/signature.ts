/**
 * Webhook signatures (events.md): `Timebill-Signature: t=<unix seconds>,v1=<hex>`, where hex is
 * the lowercase HMAC-SHA256, keyed with the whole `whsec_…` secret as UTF-8, of `<t>.<raw body>`.
 * The scheme is Stripe's, so integrators' existing verification code carries over.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Timebill-Signature';
export const EVENT_ID_HEADER = 'Timebill-Event-Id';
export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes (256 bits), base64url. */
export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;

export function signatureHex(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(rawBody, 'utf8').digest('hex');
}

/** The header value for a body sent at `now`. */
export function signatureHeader(secret: string, rawBody: string, now = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${signatureHex(secret, t, rawBody)}`;
}

/**
 * What a receiver does (and the README shows): true when one `v1` of the header matches and `t`
 * is within `toleranceSeconds` of now, which bounds replays of a captured delivery.
 */
export function verifySignature(secret: string, rawBody: string, header: string, options: { toleranceSeconds?: number; now?: Date } = {}): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureHex(secret, t, rawBody), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}
