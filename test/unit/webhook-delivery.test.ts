import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, RESPONSE_READ_CAP_BYTES } from '../../shared/webhooks/delivery.ts';
import { Webhook } from 'standardwebhooks';
import { newSecret } from '../../shared/core/webhook-signature.ts';

/** A receiver whose behaviour each test picks by path. */
let server: Server;
let port: number;
const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
let bytesSent = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/ok') res.writeHead(204).end();
      else if (req.url === '/fail') res.writeHead(500).end('nope');
      else if (req.url === '/redirect') res.writeHead(302, { Location: `http://127.0.0.1:${port}/ok` }).end();
      // Answers long after the attempt's timeout (so a loaded machine cannot blur the two); unref'd, not to hold the run.
      else if (req.url === '/slow') setTimeout(() => !res.destroyed && res.writeHead(200).end(), 20_000).unref();
      else if (req.url === '/huge') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (bytesSent < 50 * 1024 * 1024 && res.write(chunk)) bytesSent += chunk.length;
          if (bytesSent < 50 * 1024 * 1024 && !res.destroyed) res.once('drain', pump);
          else res.end();
        };
        pump();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const local = { allowLoopback: true };
const base = { secret: newSecret(), eventId: 'evt_0000000001ABCDEFGHJKMNPQRS', body: '{"object":"event"}', policy: local };

describe('a delivery attempt', () => {
  it('posts the body with the content type and Standard Webhooks headers (webhook-id: the event id) that standardwebhooks verifies', async () => {
    const outcome = await deliver({ ...base, url: `http://127.0.0.1:${port}/ok` });
    expect(outcome).toMatchObject({ ok: true, status: 204 });
    const got = received.find((r) => r.path === '/ok')!;
    expect(got.body).toBe(base.body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(base.eventId);
    expect(new Webhook(base.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(base.body));
  });

  it('fails on a non-2xx answer and does not follow redirects', async () => {
    expect(await deliver({ ...base, url: `http://127.0.0.1:${port}/fail` })).toMatchObject({ ok: false, status: 500 });
    const before = received.filter((r) => r.path === '/ok').length;
    expect(await deliver({ ...base, url: `http://127.0.0.1:${port}/redirect` })).toMatchObject({ ok: false, status: 302 });
    expect(received.filter((r) => r.path === '/ok').length).toBe(before);
  });

  it('gives up at its timeout', async () => {
    const outcome = await deliver({ ...base, url: `http://127.0.0.1:${port}/slow`, timeoutMs: 200 });
    expect(outcome).toMatchObject({ ok: false, error: 'timeout after 200 ms' });
    expect(outcome.durationMs).toBeLessThan(10_000); // gave up: the receiver answers only after 20 s
  });

  it('does not read an endless body: it stops long before the receiver has sent it', async () => {
    const outcome = await deliver({ ...base, url: `http://127.0.0.1:${port}/huge` });
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    await new Promise((r) => setTimeout(r, 200));
    expect(bytesSent).toBeLessThan(50 * 1024 * 1024);
    expect(RESPONSE_READ_CAP_BYTES).toBeLessThanOrEqual(64 * 1024);
  });

  it('fails a refused connection, and refuses a forbidden address without connecting', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect(await deliver({ ...base, url: `http://127.0.0.1:${closed}/` })).toMatchObject({ ok: false, error: 'ECONNREFUSED' });
    const refused = await deliver({ ...base, url: `http://127.0.0.1:${port}/ok`, policy: { allowLoopback: false } });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/^refused: /);
    const rebinding = await deliver({ ...base, url: 'https://hooks.example.com/', policy: { allowLoopback: false }, resolver: async () => [{ address: '10.0.0.8', family: 4 }] });
    expect(rebinding.error).toMatch(/^refused: .*10\.0\.0\.8/);
  });
});
