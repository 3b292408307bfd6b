/**
 * `npm run integration:create`: Cognito mocked (aws-sdk-client-mock), the table a real
 * DynamoDB Local created from the same definition the stack deploys.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { findApiClient } from '../../shared/data/api-clients.ts';
import { keys } from '../../shared/data/keys.ts';
import {
  UsageError,
  createIntegration,
  parseScopes,
  regionOfUserPool,
  resolveStackConfig,
  type StackConfig,
} from '../../scripts/integration-create.ts';
import { startLocalTable, testStack, type LocalTable } from '../support/local-table.ts';

const TABLE_NAME = 'timebill-integration-create';
const stack: StackConfig = testStack(TABLE_NAME);

let table: LocalTable;
let db: DynamoDBDocumentClient;
const cognito = new CognitoIdentityProviderClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const cognitoMock = mockClient(cognito);
const apiGateway = new APIGatewayClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const apiGatewayMock = mockClient(apiGateway);
let clientCounter = 0;
let keyCounter = 0;

beforeAll(async () => {
  table = await startLocalTable(TABLE_NAME);
  ({ db } = table);
});

afterAll(async () => {
  await table?.stop();
});

beforeEach(() => {
  cognitoMock.reset();
  cognitoMock.on(CreateUserPoolClientCommand).callsFake(() => {
    clientCounter += 1;
    return { UserPoolClient: { ClientId: `client${clientCounter}`, ClientSecret: `secret${clientCounter}` } };
  });
  cognitoMock.on(DeleteUserPoolClientCommand).resolves({});
  apiGatewayMock.reset();
  apiGatewayMock.on(CreateApiKeyCommand).callsFake(() => {
    keyCounter += 1;
    return { id: `key${keyCounter}`, value: `value-of-key-${keyCounter}-0123456789` };
  });
  apiGatewayMock.on(CreateUsagePlanKeyCommand).resolves({});
  apiGatewayMock.on(DeleteApiKeyCommand).resolves({});
});

const getItem = async (key: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: TABLE_NAME, Key: key }))).Item;

describe('createIntegration', () => {
  it('creates a client-credentials app client with a secret and exactly the requested scopes', async () => {
    const result = await createIntegration({ cognito, db, apiGateway }, stack, {
      workspaceId: 'acme',
      name: 'Acme billing sync',
      scopes: ['clients:read', 'projects:write'],
    });

    const calls = cognitoMock.commandCalls(CreateUserPoolClientCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      UserPoolId: stack.userPoolId,
      ClientName: 'Acme billing sync',
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: ['timebill-api/clients:read', 'timebill-api/projects:write'],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      AccessTokenValidity: 60,
      TokenValidityUnits: { AccessToken: 'minutes' },
    });
    expect(result).toMatchObject({
      clientSecret: expect.stringMatching(/^secret\d+$/),
      workspaceId: 'acme',
      scopes: ['clients:read', 'projects:write'],
      oauthScopes: ['timebill-api/clients:read', 'timebill-api/projects:write'],
      tokenEndpoint: stack.tokenEndpoint,
    });
  });

  it('registers the app client to its workspace (the item the authorizer reads) and creates the workspace', async () => {
    const now = new Date('2026-11-21T09:30:00.000Z');
    const { clientId } = await createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: 'globex', name: 'Globex', scopes: ['time_entries:write'] }, now);

    expect(await getItem(keys.apiClient(clientId))).toEqual({
      PK: `API_CLIENT#${clientId}`,
      SK: 'API_CLIENT',
      api_client_id: clientId,
      workspace_id: 'globex',
      name: 'Globex',
      scopes: ['time_entries:write'],
      created_at: '2026-11-21T09:30:00.000Z',
      plan: 'default',
      api_key_id: `key${keyCounter}`,
      usage_key: `value-of-key-${keyCounter}-0123456789`,
    });
    expect(await getItem(keys.workspace('globex'))).toEqual({
      PK: 'WORKSPACE#globex',
      SK: 'WORKSPACE',
      workspace_id: 'globex',
      created_at: '2026-11-21T09:30:00.000Z',
    });
    // Exactly what the authorizer looks up.
    expect((await findApiClient(db, TABLE_NAME, clientId))?.workspace_id).toBe('globex');
  });

  it('a second integration of a workspace keeps the workspace item as it was', async () => {
    await createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: 'initech', name: 'First', scopes: ['clients:read'] }, new Date('2026-01-01T00:00:00.000Z'));
    const second = await createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: 'initech', name: 'Second', scopes: ['projects:read'] }, new Date('2026-06-01T00:00:00.000Z'));

    expect((await getItem(keys.workspace('initech')))?.created_at).toBe('2026-01-01T00:00:00.000Z');
    expect(await getItem(keys.apiClient(second.clientId))).toMatchObject({ workspace_id: 'initech', name: 'Second', created_at: '2026-06-01T00:00:00.000Z' });
  });

  it('accepts scopes in the resource-server form and drops duplicates', async () => {
    const result = await createIntegration({ cognito, db, apiGateway }, stack, {
      workspaceId: 'acme',
      name: 'Mixed',
      scopes: ['timebill-api/clients:read', ' clients:read ', 'clients:write'],
    });
    expect(result.scopes).toEqual(['clients:read', 'clients:write']);
  });

  it.each([
    [{ workspaceId: 'acme', name: 'X', scopes: ['clients:read', 'payments:read'] }, /Unknown scope payments:read/],
    [{ workspaceId: 'acme', name: 'X', scopes: ['other-api/clients:read'] }, /Unknown scope other-api\/clients:read/],
    [{ workspaceId: 'acme', name: 'X', scopes: [' '] }, /at least one scope/],
    [{ workspaceId: 'ac me', name: 'X', scopes: ['clients:read'] }, /--workspace/],
    [{ workspaceId: 'acme', name: 'Bad/name', scopes: ['clients:read'] }, /--name/],
    [{ workspaceId: 'acme', name: 'X', scopes: ['clients:read'], plan: 'gold' }, /Unknown plan gold: use default, large/],
  ])('refuses %j before calling AWS', async (request, message) => {
    await expect(createIntegration({ cognito, db, apiGateway }, stack, request)).rejects.toThrow(message);
    await expect(createIntegration({ cognito, db, apiGateway }, stack, request)).rejects.toBeInstanceOf(UsageError);
    expect(cognitoMock.calls()).toHaveLength(0);
    expect(apiGatewayMock.calls()).toHaveLength(0);
  });

  it('refuses a plan whose usage plan id the stack outputs do not give, before calling AWS', async () => {
    const request = { workspaceId: 'acme', name: 'X', scopes: ['clients:read'], plan: 'large' };
    await expect(createIntegration({ cognito, db, apiGateway }, { ...stack, usagePlanIds: { default: 'p' } }, request)).rejects.toThrow(
      /usage plan large is unknown.*TIMEBILL_USAGE_PLAN_ID_LARGE/,
    );
    expect(cognitoMock.calls()).toHaveLength(0);
  });

  it('creates an API key named after the app client and adds it to the usage plan of --plan', async () => {
    const result = await createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: 'acme', name: 'Bulk import', scopes: ['clients:write'], plan: 'large' });
    const [createKey] = apiGatewayMock.commandCalls(CreateApiKeyCommand);
    expect(createKey!.args[0].input).toMatchObject({ name: result.clientId, enabled: true, tags: { workspace: 'acme', api_client_id: result.clientId } });
    const [planKey] = apiGatewayMock.commandCalls(CreateUsagePlanKeyCommand);
    expect(planKey!.args[0].input).toEqual({ usagePlanId: 'plan-large', keyId: result.apiKeyId, keyType: 'API_KEY' });
    // What the authorizer returns as usageIdentifierKey.
    expect(await findApiClient(db, TABLE_NAME, result.clientId)).toMatchObject({ plan: 'large', api_key_id: result.apiKeyId, usage_key: expect.stringMatching(/^value-of-key-/) });
    expect(result.plan).toBe('large');
  });

  it('deletes the app client and the API key again when the registration fails', async () => {
    const missingTable = { ...stack, tableName: 'no-such-table' };
    await expect(
      createIntegration({ cognito, db, apiGateway }, missingTable, { workspaceId: 'acme', name: 'Doomed', scopes: ['clients:read'] }),
    ).rejects.toThrow(/Setting up the app client failed \(it was deleted again\): ResourceNotFoundException/);

    const created = cognitoMock.commandCalls(CreateUserPoolClientCommand);
    const deleted = cognitoMock.commandCalls(DeleteUserPoolClientCommand);
    expect(created).toHaveLength(1);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.args[0].input).toEqual({ UserPoolId: stack.userPoolId, ClientId: `client${clientCounter}` });
    expect(apiGatewayMock.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input)).toEqual([{ apiKey: `key${keyCounter}` }]);
  });

  it('deletes the API key and the app client when the key cannot join its plan, and registers nothing', async () => {
    apiGatewayMock.on(CreateUsagePlanKeyCommand).rejects(new Error('TooManyRequests'));
    await expect(createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: 'acme', name: 'No plan', scopes: ['clients:read'] })).rejects.toThrow(
      /deleted again/,
    );
    expect(apiGatewayMock.commandCalls(DeleteApiKeyCommand)).toHaveLength(1);
    expect(cognitoMock.commandCalls(DeleteUserPoolClientCommand)).toHaveLength(1);
    expect(await findApiClient(db, TABLE_NAME, `client${clientCounter}`)).toBeUndefined();
  });

  it('names the orphan app client when deleting it fails too', async () => {
    cognitoMock.on(DeleteUserPoolClientCommand).rejects(new Error('AccessDenied'));
    const error = await createIntegration({ cognito, db, apiGateway }, { ...stack, tableName: 'no-such-table' }, { workspaceId: 'acme', name: 'Doomed', scopes: ['clients:read'] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const deleted = cognitoMock.commandCalls(DeleteUserPoolClientCommand);
    expect(deleted).toHaveLength(1);
    expect(error?.message).toMatch(
      new RegExp(`app client ${deleted[0]!.args[0].input.ClientId} failed .*deleting it failed too .*delete the app client in the Cognito console and API key key\\d+`),
    );
  });
});

describe('scopes', () => {
  it('are validated against the route table scopes', () => {
    expect(parseScopes(['time_entries:read'], 'timebill-api')).toEqual(['time_entries:read']);
    expect(() => parseScopes(['clients:admin'], 'timebill-api')).toThrow(UsageError);
  });
});

describe('resolveStackConfig', () => {
  let dir: string;
  const outputs = {
    TimebillApi: {
      UserPoolId: 'us-east-2_FromFile1',
      TableName: 'table-from-file',
      TokenEndpoint: 'https://file.auth.us-east-2.amazoncognito.com/oauth2/token',
      ResourceServerIdentifier: 'timebill-api',
      UsagePlanDefaultId: 'abc123',
      UsagePlanLargeId: 'def456',
    },
    Staging: { UserPoolId: 'eu-central-1_Staging1', TableName: 'staging-table', TokenEndpoint: 'https://staging/oauth2/token' },
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'timebill-outputs-'));
    writeFileSync(path.join(dir, 'cdk-outputs.json'), JSON.stringify(outputs));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads cdk-outputs.json (written by npx cdk deploy) by default; the region is the user pool’s', () => {
    expect(resolveStackConfig({ flags: {}, env: {}, cwd: dir })).toEqual({
      userPoolId: 'us-east-2_FromFile1',
      tableName: 'table-from-file',
      tokenEndpoint: 'https://file.auth.us-east-2.amazoncognito.com/oauth2/token',
      resourceServerIdentifier: 'timebill-api',
      region: 'us-east-2',
      usagePlanIds: { default: 'abc123', large: 'def456' },
    });
    expect(resolveStackConfig({ flags: {}, env: { TIMEBILL_USAGE_PLAN_ID_LARGE: 'fromenv' }, cwd: dir }).usagePlanIds.large).toBe('fromenv');
    expect(resolveStackConfig({ flags: { 'stack-name': 'Staging' }, env: {}, cwd: dir }).tableName).toBe('staging-table');
  });

  it('environment variables override the outputs file, flags override both', () => {
    const env = { TIMEBILL_TABLE_NAME: 'table-from-env', TIMEBILL_USER_POOL_ID: 'eu-west-3_FromEnv1' };
    const fromEnv = resolveStackConfig({ flags: {}, env, cwd: dir });
    expect(fromEnv).toMatchObject({ tableName: 'table-from-env', userPoolId: 'eu-west-3_FromEnv1', region: 'eu-west-3', tokenEndpoint: outputs.TimebillApi.TokenEndpoint });
    const fromFlags = resolveStackConfig({ flags: { 'table-name': 'table-from-flag', 'resource-server': 'custom-api' }, env, cwd: dir });
    expect(fromFlags).toMatchObject({ tableName: 'table-from-flag', userPoolId: 'eu-west-3_FromEnv1', resourceServerIdentifier: 'custom-api' });
  });

  it('says what is missing when nothing tells where the stack is', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'timebill-empty-'));
    try {
      expect(() => resolveStackConfig({ flags: {}, env: {}, cwd: empty })).toThrow(
        /--user-pool-id \/ TIMEBILL_USER_POOL_ID, --table-name \/ TIMEBILL_TABLE_NAME, --token-endpoint \/ TIMEBILL_TOKEN_ENDPOINT.*npx cdk deploy/,
      );
      expect(() => resolveStackConfig({ flags: { 'outputs-file': 'nope.json' }, env: {}, cwd: empty })).toThrow(/No such outputs file/);
      const flags = { 'user-pool-id': 'ap-southeast-2_Flag1', 'table-name': 't', 'token-endpoint': 'https://x/oauth2/token' };
      expect(resolveStackConfig({ flags, env: {}, cwd: empty }).resourceServerIdentifier).toBe('timebill-api');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('derives the region from the user pool id', () => {
    expect(regionOfUserPool('us-gov-west-1_Abc123')).toBe('us-gov-west-1');
    expect(regionOfUserPool('ap-southeast-2_Abc123')).toBe('ap-southeast-2');
    expect(() => regionOfUserPool('not-a-pool')).toThrow(UsageError);
  });
});
