/**
 * Onboards a third-party integration against a deployed stack:
 *
 *   npm run integration:create -- --workspace <id> --name <name> --scopes <comma list> [--plan <plan>] [--json]
 *
 * 1. creates a Cognito app client: client-credentials grant only, with a secret, allowed exactly
 *    the given scopes (as `<resource server>/<scope>`);
 * 2. creates its API Gateway API key and adds it to the usage plan of --plan (default `default`,
 *    shared/core/plan-limits.ts), which throttles and meters it;
 * 3. registers it in the table: `API_CLIENT#<clientId>` → workspace, plan and API key (the
 *    authorizer resolves the workspace and the key of every request from this item), and creates
 *    the workspace item unless it exists;
 * 4. prints the client id, the secret, the plan and the token endpoint.
 * If a step fails, what the earlier ones created is deleted again, so nothing half-made remains.
 *
 * Where the stack is (first found wins):
 *   flags    --user-pool-id --table-name --token-endpoint [--resource-server]
 *   env      TIMEBILL_USER_POOL_ID TIMEBILL_TABLE_NAME TIMEBILL_TOKEN_ENDPOINT [TIMEBILL_RESOURCE_SERVER]
 *            TIMEBILL_USAGE_PLAN_ID_<PLAN> (e.g. TIMEBILL_USAGE_PLAN_ID_DEFAULT)
 *   outputs  the file `npx cdk deploy` writes (cdk.json `outputsFile`: cdk-outputs.json), stack
 *            TimebillApi unless --stack-name; --outputs-file picks another file
 * The region is the user pool's (its id starts with it). Credentials: the usual AWS chain
 * (AWS_PROFILE, environment, SSO...).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_STACK_NAME, OUTPUTS, OUTPUTS_FILE, RESOURCE_SERVER_IDENTIFIER, usagePlanOutput } from '../infra/names.ts';
import { WORKSPACE_ID_PATTERN, registerApiClient } from '../shared/data/api-clients.ts';
import { DEFAULT_PLAN, PLAN_NAMES, describePlan, type PlanName } from '../shared/core/plan-limits.ts';
import { SCOPES, type Scope } from '../shared/api/routes.ts';
import { createIntegrationKey, deleteApiKey, usagePlanIdOf } from './api-keys.ts';
import { UsageError, describe, parseCommandLine, runWhenMain } from './cli.ts';

export { UsageError };

/** Cognito's rule for app client names. */
const CLIENT_NAME = /^[\w\s+=,.@-]{1,128}$/;
/** Lifetime of the access tokens of integrations. */
export const ACCESS_TOKEN_MINUTES = 60;

export interface StackConfig {
  userPoolId: string;
  tableName: string;
  tokenEndpoint: string;
  resourceServerIdentifier: string;
  region: string;
  /** The usage plan of each plan name (stack outputs UsagePlan<Plan>Id). */
  usagePlanIds: Partial<Record<PlanName, string>>;
}

export interface IntegrationRequest {
  workspaceId: string;
  name: string;
  /** Bare (`clients:read`) or resource-server form (`timebill-api/clients:read`). */
  scopes: readonly string[];
  /** A plan of shared/core/plan-limits.ts; `default` when absent. */
  plan?: string;
}

export interface Integration {
  clientId: string;
  clientSecret: string;
  workspaceId: string;
  name: string;
  /** Bare scopes, as registered. */
  scopes: Scope[];
  /** As requested from the token endpoint (`<resource server>/<scope>`). */
  oauthScopes: string[];
  tokenEndpoint: string;
  plan: PlanName;
  apiKeyId: string;
}

/** Validates and normalizes the requested scopes: each must be one of SCOPES; duplicates dropped. */
export function parseScopes(requested: readonly string[], resourceServerIdentifier: string): Scope[] {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const raw of requested.map((s) => s.trim()).filter(Boolean)) {
    const bare = raw.startsWith(`${resourceServerIdentifier}/`) ? raw.slice(resourceServerIdentifier.length + 1) : raw;
    if (!(SCOPES as readonly string[]).includes(bare)) unknown.push(raw);
    else if (!scopes.includes(bare as Scope)) scopes.push(bare as Scope);
  }
  if (unknown.length > 0) throw new UsageError(`Unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}`);
  if (scopes.length === 0) throw new UsageError(`Give at least one scope: ${SCOPES.join(', ')}`);
  return scopes;
}

function validate(request: IntegrationRequest, stack: StackConfig): { scopes: Scope[]; plan: PlanName; usagePlanId: string } {
  if (!WORKSPACE_ID_PATTERN.test(request.workspaceId)) {
    throw new UsageError('--workspace must be 1 to 64 letters, digits, - or _');
  }
  if (!CLIENT_NAME.test(request.name)) {
    throw new UsageError('--name must be 1 to 128 letters, digits, spaces or + = , . @ - _');
  }
  const plan = (request.plan ?? DEFAULT_PLAN) as PlanName;
  const usagePlanId = usagePlanIdOf(stack.usagePlanIds, plan);
  return { scopes: parseScopes(request.scopes, stack.resourceServerIdentifier), plan, usagePlanId };
}

/**
 * Creates the app client and its API key, and registers both. Clients are injected (tests use a
 * mocked Cognito and API Gateway, and DynamoDB Local); nothing is called before every input is valid.
 */
export async function createIntegration(
  clients: { cognito: CognitoIdentityProviderClient; db: DynamoDBDocumentClient; apiGateway: APIGatewayClient },
  stack: StackConfig,
  request: IntegrationRequest,
  now: Date = new Date(),
): Promise<Integration> {
  const { scopes, plan, usagePlanId } = validate(request, stack);
  const oauthScopes = scopes.map((s) => `${stack.resourceServerIdentifier}/${s}`);

  const created = await clients.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId: stack.userPoolId,
      ClientName: request.name,
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: oauthScopes,
      // No user sign-in flows: the client only exchanges its credentials for access tokens.
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      AccessTokenValidity: ACCESS_TOKEN_MINUTES,
      TokenValidityUnits: { AccessToken: 'minutes' },
    }),
  );
  const clientId = created.UserPoolClient?.ClientId;
  const clientSecret = created.UserPoolClient?.ClientSecret;
  if (!clientId || !clientSecret) throw new Error('Cognito created no client id or secret');

  let apiKeyId: string | undefined;
  try {
    const key = await createIntegrationKey(clients.apiGateway, usagePlanId, { clientId, workspaceId: request.workspaceId, name: request.name });
    apiKeyId = key.apiKeyId;
    await registerApiClient(
      clients.db,
      stack.tableName,
      { api_client_id: clientId, workspace_id: request.workspaceId, name: request.name, scopes, plan, api_key_id: key.apiKeyId, usage_key: key.usageKey },
      now,
    );
  } catch (error) {
    // An app client without a key and a registration would only ever be refused: remove both.
    try {
      if (apiKeyId) await deleteApiKey(clients.apiGateway, apiKeyId);
      await clients.cognito.send(new DeleteUserPoolClientCommand({ UserPoolId: stack.userPoolId, ClientId: clientId }));
    } catch (cleanup) {
      throw new Error(
        `Setting up app client ${clientId} failed (${describe(error)}) and deleting it failed too (${describe(cleanup)}): ` +
          `delete the app client in the Cognito console${apiKeyId ? ` and API key ${apiKeyId} in the API Gateway console` : ''}`,
        { cause: error },
      );
    }
    throw new Error(`Setting up the app client failed (it was deleted again): ${describe(error)}`, { cause: error });
  }

  return {
    clientId,
    clientSecret,
    workspaceId: request.workspaceId,
    name: request.name,
    scopes,
    oauthScopes,
    tokenEndpoint: stack.tokenEndpoint,
    plan,
    apiKeyId,
  };
}

/** The region of a user pool is the prefix of its id (`eu-west-1_AbC123`). */
export function regionOfUserPool(userPoolId: string): string {
  const match = /^([a-z]{2}(?:-[a-z]+)+-\d)_[0-9A-Za-z]+$/.exec(userPoolId);
  if (!match) throw new UsageError(`Not a Cognito user pool id: ${userPoolId}`);
  return match[1]!;
}

export interface ConfigSources {
  flags: Partial<Record<'user-pool-id' | 'table-name' | 'token-endpoint' | 'resource-server' | 'outputs-file' | 'stack-name', string>>;
  env: Record<string, string | undefined>;
  /** Directory a relative --outputs-file is resolved against. */
  cwd: string;
}

/** Finds the deployed stack's names: flags, then TIMEBILL_* environment variables, then cdk-outputs.json. */
export function resolveStackConfig({ flags, env, cwd }: ConfigSources): StackConfig {
  const outputsPath = path.resolve(cwd, flags['outputs-file'] ?? OUTPUTS_FILE);
  const stackName = flags['stack-name'] ?? DEFAULT_STACK_NAME;
  let outputs: Record<string, string> = {};
  if (existsSync(outputsPath)) {
    const all = JSON.parse(readFileSync(outputsPath, 'utf8')) as Record<string, Record<string, string>>;
    outputs = all[stackName] ?? {};
  } else if (flags['outputs-file']) {
    throw new UsageError(`No such outputs file: ${outputsPath}`);
  }
  const pick = (flag: keyof ConfigSources['flags'], envName: string, output: string) => flags[flag] ?? env[envName] ?? outputs[output];

  const userPoolId = pick('user-pool-id', 'TIMEBILL_USER_POOL_ID', OUTPUTS.userPoolId);
  const tableName = pick('table-name', 'TIMEBILL_TABLE_NAME', OUTPUTS.tableName);
  const tokenEndpoint = pick('token-endpoint', 'TIMEBILL_TOKEN_ENDPOINT', OUTPUTS.tokenEndpoint);
  const resourceServerIdentifier =
    pick('resource-server', 'TIMEBILL_RESOURCE_SERVER', OUTPUTS.resourceServerIdentifier) ?? RESOURCE_SERVER_IDENTIFIER;

  const missing = [
    userPoolId ? undefined : '--user-pool-id / TIMEBILL_USER_POOL_ID',
    tableName ? undefined : '--table-name / TIMEBILL_TABLE_NAME',
    tokenEndpoint ? undefined : '--token-endpoint / TIMEBILL_TOKEN_ENDPOINT',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new UsageError(
      `The deployed stack is unknown: set ${missing.join(', ')}, or deploy with \`npx cdk deploy\` ` +
        `so that ${path.relative(cwd, outputsPath) || outputsPath} holds the outputs of stack ${stackName}`,
    );
  }
  const usagePlanIds: Partial<Record<PlanName, string>> = {};
  for (const plan of PLAN_NAMES) {
    const id = env[`TIMEBILL_USAGE_PLAN_ID_${plan.toUpperCase()}`] ?? outputs[usagePlanOutput(plan)];
    if (id) usagePlanIds[plan] = id;
  }
  return {
    userPoolId: userPoolId!,
    tableName: tableName!,
    tokenEndpoint: tokenEndpoint!,
    resourceServerIdentifier,
    region: regionOfUserPool(userPoolId!),
    usagePlanIds,
  };
}

function report(integration: Integration): string {
  const scope = integration.oauthScopes.join(' ');
  return [
    `Integration "${integration.name}" created for workspace ${integration.workspaceId}.`,
    '',
    `  client_id       ${integration.clientId}`,
    `  client_secret   ${integration.clientSecret}`,
    `  scopes          ${scope}`,
    `  plan            ${integration.plan} (${describePlan(integration.plan)})`,
    `  token endpoint  ${integration.tokenEndpoint}`,
    '',
    'The secret is shown once here: hand it over through a secret manager, not by email or chat.',
    `Access tokens last ${ACCESS_TOKEN_MINUTES} minutes; get one with:`,
    '',
    `  curl -s -X POST '${integration.tokenEndpoint}' \\`,
    `    -u '${integration.clientId}:<client_secret>' \\`,
    `    -H 'Content-Type: application/x-www-form-urlencoded' \\`,
    `    -d grant_type=client_credentials --data-urlencode 'scope=${scope}'`,
  ].join('\n');
}

const USAGE =
  `Usage: npm run integration:create -- --workspace <id> --name <name> --scopes <comma-separated scopes> [--plan <${PLAN_NAMES.join('|')}>] [--json]\n` +
  '         [--user-pool-id <id> --table-name <name> --token-endpoint <url>] [--resource-server <identifier>]\n' +
  `         [--outputs-file <cdk-outputs.json>] [--stack-name <${DEFAULT_STACK_NAME}>]`;

/** The options that say where the deployed stack is (every operator script takes them). */
export const STACK_OPTIONS = {
  'user-pool-id': { type: 'string' },
  'table-name': { type: 'string' },
  'token-endpoint': { type: 'string' },
  'outputs-file': { type: 'string' },
  'stack-name': { type: 'string' },
} as const;

const OPTIONS = {
  workspace: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  plan: { type: 'string', default: DEFAULT_PLAN },
  json: { type: 'boolean', default: false },
  'resource-server': { type: 'string' },
  ...STACK_OPTIONS,
} as const;

runWhenMain(import.meta.url, async () => {
  const { values } = parseCommandLine({ options: OPTIONS }, USAGE);
  if (!values.workspace || !values.name || !values.scopes) throw new UsageError(USAGE);

  const { json, workspace, name, scopes, plan, ...flags } = values;
  const stack = resolveStackConfig({ flags, env: process.env, cwd: process.cwd() });
  const cognito = new CognitoIdentityProviderClient({ region: stack.region });
  const dynamodb = new DynamoDBClient({ region: stack.region });
  const apiGateway = new APIGatewayClient({ region: stack.region });
  const db = DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } });
  try {
    const integration = await createIntegration({ cognito, db, apiGateway }, stack, { workspaceId: workspace, name, scopes: scopes.split(','), plan });
    console.log(json ? JSON.stringify(integration, null, 2) : report(integration));
  } finally {
    cognito.destroy();
    dynamodb.destroy();
    apiGateway.destroy();
  }
});
