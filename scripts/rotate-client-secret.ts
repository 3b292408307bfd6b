/**
 * Rotates an integration's client secret without downtime, using Cognito's two active secrets
 * per app client:
 *
 *   npm run rotate-client-secret -- add    --client-id <id>   # a second secret; prints it once
 *   (the integration switches to the new secret; both work meanwhile)
 *   npm run rotate-client-secret -- retire --client-id <id> [--secret-id <old id>]
 *   npm run rotate-client-secret -- list   --client-id <id>
 *
 * `add` refuses when the client already has two secrets (retire one first); `retire` deletes the
 * given secret, by default the older one, and refuses to delete the last, which would lock the
 * integration out. Tokens already issued stay valid until they expire (60 minutes): a secret
 * only authenticates token requests.
 *
 * The user pool comes from the same places as for `npm run integration:create`: --user-pool-id,
 * TIMEBILL_USER_POOL_ID, or cdk-outputs.json (`--stack-name`, `--outputs-file`). The operator needs
 * cognito-idp:AddUserPoolClientSecret, ListUserPoolClientSecrets and DeleteUserPoolClientSecret.
 */
import {
  AddUserPoolClientSecretCommand,
  CognitoIdentityProviderClient,
  DeleteUserPoolClientSecretCommand,
  ListUserPoolClientSecretsCommand,
  type ClientSecretDescriptorType,
} from '@aws-sdk/client-cognito-identity-provider';
import { regionOfUserPool } from './integration-create.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { OUTPUTS } from '../infra/names.ts';
import { stackOutput, type OutputFlags } from './stack-outputs.ts';

/** Cognito keeps at most this many active secrets per app client. */
export const MAX_SECRETS = 2;

export interface SecretSummary {
  readonly secretId: string;
  readonly createdAt: string;
}

export interface Target {
  readonly userPoolId: string;
  readonly clientId: string;
}

const summary = (s: ClientSecretDescriptorType): SecretSummary => ({ secretId: s.ClientSecretId ?? '?', createdAt: s.ClientSecretCreateDate?.toISOString() ?? '?' });

/** The client's active secrets, oldest first (Cognito never returns their values). */
export async function listSecrets(cognito: CognitoIdentityProviderClient, target: Target): Promise<SecretSummary[]> {
  const secrets: ClientSecretDescriptorType[] = [];
  let NextToken: string | undefined;
  do {
    const page = await cognito.send(new ListUserPoolClientSecretsCommand({ UserPoolId: target.userPoolId, ClientId: target.clientId, NextToken }));
    secrets.push(...(page.ClientSecrets ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return secrets
    .sort((a, b) => (a.ClientSecretCreateDate?.getTime() ?? 0) - (b.ClientSecretCreateDate?.getTime() ?? 0))
    .map(summary);
}

/** Adds a second secret (Cognito generates it) and returns it: the only time its value is shown. */
export async function addSecret(cognito: CognitoIdentityProviderClient, target: Target): Promise<{ secretId: string; secret: string; previous: SecretSummary[] }> {
  const previous = await listSecrets(cognito, target);
  if (previous.length >= MAX_SECRETS) {
    throw new UsageError(
      `Client ${target.clientId} already has ${previous.length} secrets (${previous.map((s) => s.secretId).join(', ')}): ` +
        'retire the one no longer used first (retire --secret-id <id>).',
    );
  }
  const out = await cognito.send(new AddUserPoolClientSecretCommand({ UserPoolId: target.userPoolId, ClientId: target.clientId }));
  const descriptor = out.ClientSecretDescriptor;
  if (!descriptor?.ClientSecretId || !descriptor.ClientSecretValue) throw new Error('Cognito returned no secret');
  return { secretId: descriptor.ClientSecretId, secret: descriptor.ClientSecretValue, previous };
}

/** Deletes one secret (default: the oldest); never the last one. */
export async function retireSecret(cognito: CognitoIdentityProviderClient, target: Target, secretId?: string): Promise<{ retired: string; remaining: SecretSummary[] }> {
  const secrets = await listSecrets(cognito, target);
  if (secrets.length < 2) {
    throw new UsageError(`Client ${target.clientId} has ${secrets.length} secret(s): retiring it would lock the integration out. Add a new one first.`);
  }
  const retired = secretId ?? secrets[0]!.secretId;
  if (!secrets.some((s) => s.secretId === retired)) throw new UsageError(`Client ${target.clientId} has no secret ${retired}`);
  await cognito.send(new DeleteUserPoolClientSecretCommand({ UserPoolId: target.userPoolId, ClientId: target.clientId, ClientSecretId: retired }));
  return { retired, remaining: secrets.filter((s) => s.secretId !== retired) };
}

/** The user pool: --user-pool-id, then TIMEBILL_USER_POOL_ID, then cdk-outputs.json. */
export function resolveUserPool(flags: { 'user-pool-id'?: string } & OutputFlags, env: NodeJS.ProcessEnv, cwd: string): string {
  return stackOutput({ flag: flags['user-pool-id'], envName: 'TIMEBILL_USER_POOL_ID', output: OUTPUTS.userPoolId, what: 'user pool' }, flags, env, cwd);
}

const USAGE = 'Usage: npm run rotate-client-secret -- add|retire|list --client-id <id> [--secret-id <id>] [--user-pool-id <id>] [--stack-name <name>] [--outputs-file <file>] [--json]';

runWhenMain(import.meta.url, async () => {
  const { values, positionals } = parseCommandLine({
    allowPositionals: true,
    options: {
      'client-id': { type: 'string' },
      'secret-id': { type: 'string' },
      'user-pool-id': { type: 'string' },
      'stack-name': { type: 'string' },
      'outputs-file': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  }, USAGE);
  const [action] = positionals;
  if (!values['client-id'] || !['add', 'retire', 'list'].includes(action ?? '')) throw new UsageError(USAGE);
  const userPoolId = resolveUserPool(values, process.env, process.cwd());
  const target = { userPoolId, clientId: values['client-id'] };
  const cognito = new CognitoIdentityProviderClient({ region: regionOfUserPool(userPoolId) });
  const print = (result: unknown, text: string) => console.log(values.json ? JSON.stringify(result, null, 2) : text);
  try {
    if (action === 'list') {
      const secrets = await listSecrets(cognito, target);
      print(secrets, secrets.map((s) => `${s.secretId}  created ${s.createdAt}`).join('\n'));
    } else if (action === 'add') {
      const added = await addSecret(cognito, target);
      print(added, [
        `New secret for client ${target.clientId} (shown once; hand it over through a secret manager):`,
        '',
        `  secret_id       ${added.secretId}`,
        `  client_secret   ${added.secret}`,
        '',
        `The old secret (${added.previous.map((s) => s.secretId).join(', ')}) keeps working. Once the integration uses the new one:`,
        `  npm run rotate-client-secret -- retire --client-id ${target.clientId}${added.previous[0] ? ` --secret-id ${added.previous[0].secretId}` : ''}`,
      ].join('\n'));
    } else {
      const result = await retireSecret(cognito, target, values['secret-id']);
      print(result, `Retired secret ${result.retired}; remaining: ${result.remaining.map((s) => s.secretId).join(', ')}`);
    }
  } finally {
    cognito.destroy();
  }
});
