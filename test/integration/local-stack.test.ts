/**
 * `npm start` and `npm run token` as a developer runs them: separate processes, real ports, and
 * no Java process left behind however the stack ends. DATA_DIR persistence (a client made before
 * a stop is listed after the restart) is events-restart.test.ts's, on the stacks it starts anyway.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb.ts';
import { cleanUpStarted, ctrlC, lastLine, localToken, npmRunToken, npmStart, npmStartUntilExit, waitUntilClosed } from '../support/npm-start.ts';

afterAll(cleanUpStarted);

async function createClient(port: number, token: string, name: string) {
  return fetch(`http://127.0.0.1:${port}/api/v1/clients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ company_name: name, company_email: 'a@b.test' }),
  });
}

const listClients = async (port: number, token: string) =>
  (await (await fetch(`http://127.0.0.1:${port}/api/v1/clients`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
    data: { company_name: string }[];
  };

// Each test runs stacks of its own on ports of their own: they run side by side.
describe('npm start', { timeout: 180_000, concurrent: true }, () => {
  it('serves the API with tokens from npm run token, beside a second stack on another port', async ({ expect }) => {
    const [first, second] = await Promise.all([npmStart(), npmStart()]);
    // The first stack's token from the command; the second's from the endpoint the command calls.
    // Both runs of the command side by side (each is seconds of npm and tsx starting), the second
    // for a workspace of its own: the registry's scopes of a workspace are read, then written.
    const [token1, token2, foreign] = await Promise.all([
      npmRunToken(first.port, 'acme', 'clients:read,clients:write'),
      localToken(second.port, 'acme', 'clients:read,clients:write'),
      npmRunToken(first.port, 'foreign', 'other-api/clients:write,clients:read'),
    ]);
    expect(token1.code).toBe(0);
    // The banner's token hint names the PORT the stack runs on; the served OpenAPI document names it too.
    expect(first.output()).toContain(`PORT=${first.port} npm run token -- --workspace`);
    const served = (await (await fetch(`http://127.0.0.1:${first.port}/api/v1/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(served.servers).toEqual([{ url: `http://127.0.0.1:${first.port}` }]);
    // npm run token puts scopes into the token as given, warning about those that grant nothing.
    expect(foreign.code).toBe(0);
    expect(foreign.stderr).toMatch(/other-api\/clients:write grants nothing/);
    expect(JSON.parse(Buffer.from(lastLine(foreign.stdout).split('.')[1]!, 'base64url').toString()).scope).toBe('other-api/clients:write clients:read');
    expect((await createClient(first.port, lastLine(foreign.stdout), 'Refused')).status).toBe(403);
    expect((await createClient(first.port, lastLine(token1.stdout), 'On the first')).status).toBe(201);
    expect((await createClient(second.port, token2, 'On the second')).status).toBe(201);
    // Separate DynamoDB Locals: each stack sees only its own data.
    expect((await listClients(first.port, lastLine(token1.stdout))).data.map((c) => c.company_name)).toEqual(['On the first']);
    expect((await listClients(second.port, token2)).data.map((c) => c.company_name)).toEqual(['On the second']);

    // Ctrl-C: the stack stops and takes DynamoDB Local with it.
    ctrlC(first.child);
    expect(await waitUntilClosed(first.dynamoPort)).toBe(true);
    expect(await waitUntilClosed(first.port)).toBe(true);
    // A kill of npm, which it cannot forward: the stack notices and ends, Java with it.
    second.child.kill('SIGKILL');
    expect(await waitUntilClosed(second.port)).toBe(true);
    expect(await waitUntilClosed(second.dynamoPort)).toBe(true);
  });

  it('refuses a THROTTLE_RATE or THROTTLE_BURST that is no bucket, naming it, and exits 2', async ({ expect }) => {
    // One through npm start; the rules of each value are test/unit/client-limits.test.ts's.
    const result = await npmStartUntilExit({ THROTTLE_BURST: 'many' });
    expect(result.output).toContain(`THROTTLE_BURST must be a positive integer, not 'many'`);
    expect(result.code).toBe(2);
  });

  it('says at once that PORT is in use, before DynamoDB Local starts, and exits 2', async ({ expect }) => {
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = (busy.address() as AddressInfo).port;
      const result = await npmStartUntilExit({ PORT: String(port) });
      expect(result.output).toContain(`Port ${port} is in use`);
      expect(result.code).toBe(2);
    } finally {
      busy.close();
    }
  });

  it('npm run token explains when no stack runs on the port', async ({ expect }) => {
    const result = await npmRunToken(await freePort(), 'acme', 'clients:read');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/npm start/);
  });
});
