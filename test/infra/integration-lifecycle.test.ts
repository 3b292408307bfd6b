/**
 * The rest of an integration's life, for operators: `npm run integration:plan`,
 * `npm run integration:revoke` and `npm run usage`. Cognito and API Gateway are mocked
 * (aws-sdk-client-mock); the registry is a real DynamoDB Local table.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsageCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { CognitoIdentityProviderClient, DeleteUserPoolClientCommand, ResourceNotFoundException } from '@aws-sdk/client-cognito-identity-provider';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { findApiClient, registerApiClient } from '../../shared/data/api-clients.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/names.ts';
import { UsageError } from '../../scripts/api-keys.ts';
import type { StackConfig } from '../../scripts/integration-create.ts';
import { changePlan } from '../../scripts/integration-plan.ts';
import { REVOCATION_BOUND_SECONDS, revokeIntegration } from '../../scripts/integration-revoke.ts';
import { parseRange, renderUsage, usageReport } from '../../scripts/usage.ts';
import { startLocalTable, testStack, type LocalTable } from '../support/local-table.ts';

const TABLE_NAME = 'timebill-integration-lifecycle';
const stack: StackConfig = testStack(TABLE_NAME);
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };
const cognito = new CognitoIdentityProviderClient({ region: 'eu-west-1', credentials });
const apiGateway = new APIGatewayClient({ region: 'eu-west-1', credentials });
const cognitoMock = mockClient(cognito);
const apiGatewayMock = mockClient(apiGateway);

let table: LocalTable;
let db: DynamoDBDocumentClient;
let counter = 0;

beforeAll(async () => {
  table = await startLocalTable(TABLE_NAME);
  db = table.db;
});

afterAll(async () => {
  await table?.stop();
});

beforeEach(() => {
  cognitoMock.reset();
  apiGatewayMock.reset();
  cognitoMock.on(DeleteUserPoolClientCommand).resolves({});
  apiGatewayMock.on(CreateApiKeyCommand).resolves({ id: 'newkey', value: 'value-of-the-new-key-0123456789' });
  apiGatewayMock.on(CreateUsagePlanKeyCommand).resolves({});
  apiGatewayMock.on(DeleteUsagePlanKeyCommand).resolves({});
  apiGatewayMock.on(DeleteApiKeyCommand).resolves({});
  apiGatewayMock.on(GetApiKeysCommand).resolves({ items: [] });
});

/** A registered integration, as integration:create leaves it (or, without a key, as before usage plans). */
async function registered(options: { plan?: 'default' | 'large'; withKey?: boolean } = {}) {
  counter += 1;
  const clientId = `client${counter}`;
  await registerApiClient(db, TABLE_NAME, {
    api_client_id: clientId,
    workspace_id: `ws${counter}`,
    name: `Integration ${counter}`,
    scopes: ['clients:read'],
    ...(options.withKey === false ? {} : { plan: options.plan ?? 'default', api_key_id: `key${counter}`, usage_key: `value-of-key${counter}-0123456789` }),
  });
  return clientId;
}

describe('npm run integration:plan', () => {
  it("moves the integration's key from its plan's usage plan to the new one and records the plan", async () => {
    const clientId = await registered({ plan: 'default' });
    const change = await changePlan({ db, apiGateway }, stack, { clientId, plan: 'large' });

    expect(change).toEqual({ clientId, from: 'default', to: 'large', apiKeyId: `key${counter}`, keyCreated: false });
    expect(apiGatewayMock.commandCalls(DeleteUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([{ usagePlanId: 'plan-default', keyId: `key${counter}` }]);
    expect(apiGatewayMock.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([
      { usagePlanId: 'plan-large', keyId: `key${counter}`, keyType: 'API_KEY' },
    ]);
    expect(await findApiClient(db, TABLE_NAME, clientId)).toMatchObject({ plan: 'large', api_key_id: `key${counter}`, usage_key: `value-of-key${counter}-0123456789` });
  });

  it('puts the key back in its old plan when the new one refuses it, and records nothing', async () => {
    const clientId = await registered({ plan: 'default' });
    apiGatewayMock.on(CreateUsagePlanKeyCommand, { usagePlanId: 'plan-large' }).rejects(new Error('LimitExceeded'));
    await expect(changePlan({ db, apiGateway }, stack, { clientId, plan: 'large' })).rejects.toThrow(/LimitExceeded/);
    expect(apiGatewayMock.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input.usagePlanId)).toEqual(['plan-large', 'plan-default']);
    expect((await findApiClient(db, TABLE_NAME, clientId))?.plan).toBe('default');
  });

  it('gives an integration registered before usage plans a key in the plan', async () => {
    const clientId = await registered({ withKey: false });
    const change = await changePlan({ db, apiGateway }, stack, { clientId, plan: 'default' });
    expect(change).toMatchObject({ from: undefined, to: 'default', apiKeyId: 'newkey', keyCreated: true });
    expect(apiGatewayMock.commandCalls(CreateApiKeyCommand)[0]!.args[0].input).toMatchObject({ name: clientId, enabled: true });
    expect(apiGatewayMock.commandCalls(DeleteUsagePlanKeyCommand)).toHaveLength(0);
    expect(await findApiClient(db, TABLE_NAME, clientId)).toMatchObject({ plan: 'default', api_key_id: 'newkey', usage_key: 'value-of-the-new-key-0123456789' });
  });

  it('refuses unknown plans, malformed client ids and unregistered integrations, changing nothing', async () => {
    const clientId = await registered();
    await expect(changePlan({ db, apiGateway }, stack, { clientId, plan: 'gold' })).rejects.toThrow(/Unknown plan gold/);
    await expect(changePlan({ db, apiGateway }, stack, { clientId: 'a/b', plan: 'large' })).rejects.toBeInstanceOf(UsageError);
    await expect(changePlan({ db, apiGateway }, stack, { clientId: 'nobody', plan: 'large' })).rejects.toThrow(/No integration with client id nobody/);
    expect(apiGatewayMock.calls()).toHaveLength(0);
  });
});

describe('npm run integration:revoke', () => {
  it('deletes the registry item, the API key and the Cognito app client', async () => {
    const clientId = await registered();
    const revocation = await revokeIntegration({ cognito, db, apiGateway }, stack, clientId);

    expect(revocation).toEqual({ clientId, workspaceId: `ws${counter}`, registrationDeleted: true, apiKeyDeleted: `key${counter}`, appClientDeleted: true });
    expect(await findApiClient(db, TABLE_NAME, clientId)).toBeUndefined();
    expect(apiGatewayMock.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input)).toEqual([{ apiKey: `key${counter}` }]);
    expect(cognitoMock.commandCalls(DeleteUserPoolClientCommand).map((c) => c.args[0].input)).toEqual([{ UserPoolId: stack.userPoolId, ClientId: clientId }]);
  });

  it('finishes a revocation that stopped half-way: the key is found by its name, what is gone already is skipped', async () => {
    const clientId = await registered();
    await revokeIntegration({ cognito, db, apiGateway }, stack, clientId).catch(() => undefined);
    apiGatewayMock.reset();
    apiGatewayMock.on(GetApiKeysCommand).resolves({ items: [{ id: 'orphan', name: clientId }, { id: 'other', name: `${clientId}0` }] });
    apiGatewayMock.on(DeleteApiKeyCommand).resolves({});
    cognitoMock.on(DeleteUserPoolClientCommand).rejects(new ResourceNotFoundException({ message: 'gone', $metadata: {} }));

    const again = await revokeIntegration({ cognito, db, apiGateway }, stack, clientId);
    expect(again).toMatchObject({ registrationDeleted: false, apiKeyDeleted: 'orphan', appClientDeleted: false });
    expect(apiGatewayMock.commandCalls(GetApiKeysCommand)[0]!.args[0].input).toMatchObject({ nameQuery: clientId });
  });

  it('says so when there is nothing to revoke', async () => {
    apiGatewayMock.on(DeleteApiKeyCommand).rejects(new NotFoundException({ message: 'gone', $metadata: {} }));
    cognitoMock.on(DeleteUserPoolClientCommand).rejects(new ResourceNotFoundException({ message: 'gone', $metadata: {} }));
    await expect(revokeIntegration({ cognito, db, apiGateway }, stack, 'neverexisted')).rejects.toThrow(/Nothing to revoke/);
  });

  it('states its bound as the policy cache plus the registry cache', () => {
    expect(REVOCATION_BOUND_SECONDS).toBe(AUTHORIZER_CACHE_TTL_SECONDS + 60);
  });
});

describe('npm run usage', () => {
  const keys = {
    items: [
      { id: 'k1', name: 'client-a', description: 'Integration "A" of workspace acme', value: 'value-k1' },
      { id: 'k2', name: 'client-b', description: 'Integration "B" of workspace globex', value: 'value-k2' },
    ],
  };

  it('reports requests per day per integration from every plan, paging, summing a plan change', async () => {
    apiGatewayMock.on(GetApiKeysCommand).resolves(keys);
    apiGatewayMock
      .on(GetUsageCommand, { usagePlanId: 'plan-default' })
      .resolvesOnce({ items: { k1: [[10, 990], [0, 990], [5, 985]] }, position: 'p2' })
      .resolvesOnce({ items: { k2: [[1, 999], [2, 997], [3, 994]] } });
    // client-a moved to large on the 2nd: its 2nd and 3rd day are also in this plan.
    apiGatewayMock.on(GetUsageCommand, { usagePlanId: 'plan-large' }).resolves({ items: { k1: [[0, 100], [7, 93], [1, 92]] } });

    const rows = await usageReport(apiGateway, stack.usagePlanIds, { from: '2026-10-31', to: '2026-11-02' });
    expect(rows.map((r) => [r.integration, r.date, r.requests, r.plans])).toEqual([
      ['client-a', '2026-10-31', 10, ['default']],
      ['client-a', '2026-11-01', 7, ['large']],
      ['client-a', '2026-11-02', 6, ['default', 'large']],
      ['client-b', '2026-10-31', 1, ['default']],
      ['client-b', '2026-11-01', 2, ['default']],
      ['client-b', '2026-11-02', 3, ['default']],
    ]);
    const calls = apiGatewayMock.commandCalls(GetUsageCommand).map((c) => c.args[0].input);
    expect(calls).toContainEqual({ usagePlanId: 'plan-default', startDate: '2026-10-31', endDate: '2026-11-02', limit: 500, position: 'p2' });
    expect(calls).toHaveLength(3);

    const text = renderUsage(rows, { from: '2026-10-31', to: '2026-11-02' });
    expect(text).toMatch(/client-a .*acme.* total 23/);
    expect(text).toMatch(/client-b .*globex.* total 6/);
  });

  it('names keys it cannot find (deleted since) by their reference, and pages through the keys', async () => {
    apiGatewayMock.on(GetApiKeysCommand).resolvesOnce({ items: [keys.items[0]!], position: 'next' }).resolvesOnce({ items: [keys.items[1]!] });
    apiGatewayMock.on(GetUsageCommand, { usagePlanId: 'plan-default' }).resolves({ items: { 'value-k2': [[4, 0]], gone: [[9, 0]] } });
    apiGatewayMock.on(GetUsageCommand, { usagePlanId: 'plan-large' }).resolves({ items: {} });
    const rows = await usageReport(apiGateway, stack.usagePlanIds, { from: '2026-11-05', to: '2026-11-05' });
    expect(rows.map((r) => [r.integration, r.apiKeyId, r.requests])).toEqual([
      ['client-b', 'k2', 4],
      ['gone', 'gone', 9],
    ]);
    expect(apiGatewayMock.commandCalls(GetApiKeysCommand)).toHaveLength(2);
  });

  it.each([
    [undefined, '2026-11-01', /--from must be a date/],
    ['2026-11-01', '2026-02-30', /--to 2026-02-30 is not a date/],
    ['2026-11-02', '2026-11-01', /not be before/],
    ['2025-01-01', '2026-11-01', /at most 366/],
  ])('refuses the range %s..%s before calling AWS', async (from, to, message) => {
    expect(() => parseRange(from, to)).toThrow(message);
    await expect(usageReport(apiGateway, stack.usagePlanIds, { from: from as string, to })).rejects.toBeInstanceOf(UsageError);
    expect(apiGatewayMock.calls()).toHaveLength(0);
  });

  it('needs the id of every plan', async () => {
    await expect(usageReport(apiGateway, { default: 'plan-default' }, { from: '2026-11-01', to: '2026-11-01' })).rejects.toThrow(/usage plan large is unknown/);
  });
});
