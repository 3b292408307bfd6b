/**
 * `npm run rotate-client-secret`: Cognito mocked with aws-sdk-client-mock as a small fake that
 * keeps an app client's secrets (at most two, as Cognito does). The rotation never leaves the
 * integration without a working secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AddUserPoolClientSecretCommand,
  CognitoIdentityProviderClient,
  DeleteUserPoolClientSecretCommand,
  ListUserPoolClientSecretsCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { MAX_SECRETS, addSecret, listSecrets, resolveUserPool, retireSecret } from '../../scripts/rotate-client-secret.ts';
import { UsageError } from '../../scripts/integration-create.ts';

const cognito = new CognitoIdentityProviderClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const mock = mockClient(cognito);
const target = { userPoolId: 'eu-west-1_AbCdEf123', clientId: 'client1' };

/** The fake app client's secrets: id -> value and creation time. */
let secrets: Array<{ id: string; value: string; created: Date }>;
let clock: number;

beforeEach(() => {
  clock = Date.parse('2026-11-01T00:00:00Z');
  secrets = [{ id: 'secret-original', value: 'original-value', created: new Date(clock) }];
  mock.reset();
  // Pages of one, to prove the listing follows NextToken.
  mock.on(ListUserPoolClientSecretsCommand).callsFake((input: { NextToken?: string }) => {
    const start = Number(input.NextToken ?? 0);
    const page = secrets.slice(start, start + 1);
    return {
      ClientSecrets: page.map((s) => ({ ClientSecretId: s.id, ClientSecretCreateDate: s.created })),
      ...(start + 1 < secrets.length ? { NextToken: String(start + 1) } : {}),
    };
  });
  mock.on(AddUserPoolClientSecretCommand).callsFake(() => {
    if (secrets.length >= 2) throw Object.assign(new Error('Too many secrets'), { name: 'LimitExceededException' });
    clock += 86_400_000;
    const added = { id: `secret-${secrets.length + 1}`, value: `value-${secrets.length + 1}`, created: new Date(clock) };
    secrets.push(added);
    return { ClientSecretDescriptor: { ClientSecretId: added.id, ClientSecretValue: added.value, ClientSecretCreateDate: added.created } };
  });
  mock.on(DeleteUserPoolClientSecretCommand).callsFake((input: { ClientSecretId: string }) => {
    secrets = secrets.filter((s) => s.id !== input.ClientSecretId);
    return {};
  });
});

const works = (value: string) => secrets.some((s) => s.value === value);

describe('rotating a client secret', () => {
  it('add, switch, retire: the integration always holds a working secret', async () => {
    let held = 'original-value';
    const added = await addSecret(cognito, target);
    expect(added).toMatchObject({ secretId: 'secret-2', secret: 'value-2', previous: [{ secretId: 'secret-original' }] });
    expect(works(held)).toBe(true); // the old secret still works while the integration switches
    held = added.secret;
    expect(works(held)).toBe(true);
    const retired = await retireSecret(cognito, target);
    expect(retired).toEqual({ retired: 'secret-original', remaining: [{ secretId: 'secret-2', createdAt: '2026-11-02T00:00:00.000Z' }] });
    expect(works(held)).toBe(true);
    expect(works('original-value')).toBe(false);
    expect(mock.commandCalls(DeleteUserPoolClientSecretCommand)[0]!.args[0].input).toEqual({ ...{ UserPoolId: target.userPoolId, ClientId: target.clientId }, ClientSecretId: 'secret-original' });
  });

  it('lists the secrets oldest first, across pages', async () => {
    await addSecret(cognito, target);
    secrets.reverse();
    expect((await listSecrets(cognito, target)).map((s) => s.secretId)).toEqual(['secret-original', 'secret-2']);
  });

  it(`refuses a third secret (Cognito allows ${MAX_SECRETS}) before asking Cognito`, async () => {
    await addSecret(cognito, target);
    await expect(addSecret(cognito, target)).rejects.toThrow(UsageError);
    expect(mock.commandCalls(AddUserPoolClientSecretCommand)).toHaveLength(1);
  });

  it('refuses to retire the last secret, or one the client does not have', async () => {
    await expect(retireSecret(cognito, target)).rejects.toThrow(/lock the integration out/);
    await addSecret(cognito, target);
    await expect(retireSecret(cognito, target, 'secret-unknown')).rejects.toThrow(/has no secret secret-unknown/);
    expect(mock.commandCalls(DeleteUserPoolClientSecretCommand)).toHaveLength(0);
    // Retiring the new one instead (the integration never switched) is allowed.
    expect((await retireSecret(cognito, target, 'secret-2')).remaining.map((s) => s.secretId)).toEqual(['secret-original']);
  });

  it('finds the user pool from the flag, TIMEBILL_USER_POOL_ID or cdk-outputs.json', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'timebill-rotate-'));
    try {
      writeFileSync(path.join(dir, 'cdk-outputs.json'), JSON.stringify({ 'TimebillApi-staging': { UserPoolId: 'eu-west-1_Staging1' } }));
      expect(resolveUserPool({ 'user-pool-id': 'eu-west-1_Flag1' }, { TIMEBILL_USER_POOL_ID: 'eu-west-1_Env1' }, dir)).toBe('eu-west-1_Flag1');
      expect(resolveUserPool({}, { TIMEBILL_USER_POOL_ID: 'eu-west-1_Env1' }, dir)).toBe('eu-west-1_Env1');
      expect(resolveUserPool({ 'stack-name': 'TimebillApi-staging' }, {}, dir)).toBe('eu-west-1_Staging1');
      expect(() => resolveUserPool({}, {}, dir)).toThrow(/No user pool/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
