/**
 * The short version of `npm run check:contract`: Stoplight Prism's validating proxy in front of
 * the shared local stack, a walkthrough of the operations through it (the values validators got
 * wrong included: money with 2 and 4 decimal places, a replayed webhook create without its
 * secret), and not one violation of the OpenAPI document in a response, nor in a request sent
 * as valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb.ts';
import { baseUrl } from '../support/api.ts';
import { Traffic, startPrism, violationsOf, walkthrough, type Prism } from '../support/prism.ts';

let prism: Prism;
beforeAll(async () => {
  prism = await startPrism(baseUrl(), await freePort());
});
afterAll(() => prism?.stop());

describe("Prism's validating proxy", () => {
  it('finds no violation in the traffic of a walkthrough', async () => {
    const traffic = new Traffic(prism, baseUrl());
    await walkthrough(traffic, false);
    expect(traffic.sent.length).toBeGreaterThan(20);
    expect(await violationsOf(prism, traffic)).toEqual([]);
  });

  it('reports what it finds against the request that caused it: a request the document refuses counts unless sent wrong on purpose', async () => {
    const traffic = new Traffic(prism, baseUrl());
    const token = await traffic.token('contract-probe');
    await traffic.send('POST', '/clients', { token, status: 400, body: { company_email: 'nope' } });
    await traffic.send('POST', '/clients', { token, status: 400, body: { company_email: 'nope' }, wrong: true });
    const found = await violationsOf(prism, traffic);
    expect(found.some((v) => /request\.body .*company_name/.test(v))).toBe(true);
    for (const v of found) expect(v).toMatch(/^POST \/clients: request\.body/);
    // Each of the first request's violations once: none of the second's.
    expect(new Set(found).size).toBe(found.length);
  });
});
