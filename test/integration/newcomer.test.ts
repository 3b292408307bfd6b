/**
 * What a newcomer following the README meets on the local stack: a second token of the same
 * workspace with more scopes works at once (the authorizer's cached registration does not hold
 * the new scopes back), and a 403 for a missing scope says which route and what the token grants.
 */
import { describe, expect, it } from 'vitest';
import { apiFor, expectError, token } from '../support/api.ts';
import { randomUUID } from 'node:crypto';

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
