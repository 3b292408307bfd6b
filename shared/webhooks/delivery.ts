/**
 * One delivery attempt (events.md): POST the event's JSON to the endpoint's URL with the
 * Standard Webhooks headers (core/webhook-signature.ts). 2xx within 10 s acknowledges it; anything else fails
 * the attempt.
 *
 * - The URL is checked again here (SSRF), and the connection goes to the address that was
 *   checked: the request's `lookup` is pinned to it, so no second DNS answer is used.
 * - Redirects are not followed (node:http never follows them; a 3xx is a failed attempt).
 * - The response body is ignored: the attempt ends at the status line, reading at most
 *   RESPONSE_READ_CAP_BYTES of what arrived with it, then the connection is dropped.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { signatureHeaders } from '../core/webhook-signature.ts';
import { checkWebhookUrl, type Resolver, type UrlPolicy } from '../core/ssrf.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_READ_CAP_BYTES = 4096;
export const USER_AGENT = 'Timebill-Webhooks/1.0';

export interface DeliveryRequest {
  url: string;
  secret: string;
  /** The event id: the `webhook-id` of every attempt of this event. */
  eventId: string;
  /** The raw body: the event's JSON, exactly as signed. */
  body: string;
  policy: UrlPolicy;
  timeoutMs?: number;
  resolver?: Resolver;
  now?: Date;
}

export interface DeliveryOutcome {
  ok: boolean;
  /** The HTTP status, when the receiver answered. */
  status?: number;
  /** Why the attempt failed, in a few words (never the response body). */
  error?: string;
  durationMs: number;
}

export async function deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
  const started = Date.now();
  const done = (outcome: Omit<DeliveryOutcome, 'durationMs'>): DeliveryOutcome => ({ ...outcome, durationMs: Date.now() - started });
  const target = await checkWebhookUrl(req.url, req.policy, req.resolver);
  if (!target.ok) return done({ ok: false, error: `refused: ${target.reason}` });
  const { url, address, family } = target;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const timeoutMs = req.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<DeliveryOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(outcome));
    };
    const outgoing = request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(req.body, 'utf8'),
          'User-Agent': USER_AGENT,
          ...signatureHeaders(req.secret, req.eventId, req.body, req.now),
        },
        agent: false, // a fresh connection to the pinned address, never a pooled one to another
      },
      (response: IncomingMessage) => {
        // The status is the answer; the body is ignored. Read at most the cap (what is already
        // buffered), then drop the connection, so a slow or endless body neither holds the attempt
        // nor fills memory.
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= RESPONSE_READ_CAP_BYTES) response.destroy();
        });
        response.on('error', () => undefined);
        finishWith(status);
        setImmediate(() => response.destroy());
      },
    );
    const finishWith = (status: number) =>
      finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `HTTP ${status}` });
    const timer = setTimeout(() => {
      finish({ ok: false, error: `timeout after ${timeoutMs} ms` });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, error: error.code ?? error.message }));
    outgoing.end(req.body);
  });
}
