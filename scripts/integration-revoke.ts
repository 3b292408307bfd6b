/**
 * Revokes an integration:
 *
 *   npm run integration:revoke -- --client-id <Cognito app client id>
 *
 * 1. deletes its registry item: the authorizer answers its tokens 401 from its next evaluation;
 * 2. deletes its API key: it stops being metered, and API Gateway refuses requests that carry it;
 * 3. deletes its Cognito app client: it gets no new token.
 * Tokens issued before stay valid JWTs until they expire (Cognito cannot recall them from an
 * authorizer that verifies offline); what stops them is step 1, once two caches have expired:
 * API Gateway's policy cache (AUTHORIZER_CACHE_TTL_SECONDS) and the authorizer's registry cache
 * (REGISTRY_CACHE_SECONDS). REVOCATION_BOUND_SECONDS is their sum.
 * Each step is idempotent: run it again to finish a revocation that stopped half-way.
 *
 * Where the stack is: as for `npm run integration:create` (cdk-outputs.json, TIMEBILL_*, flags).
 */
import { APIGatewayClient, GetApiKeysCommand } from '@aws-sdk/client-api-gateway';
import {
  CognitoIdentityProviderClient,
  DeleteUserPoolClientCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { REGISTRY_CACHE_SECONDS, deleteApiClient } from '../shared/data/api-clients.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/names.ts';
import { deleteApiKey } from './api-keys.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { CLIENT_ID } from './integration-plan.ts';
import { STACK_OPTIONS, resolveStackConfig, type StackConfig } from './integration-create.ts';

/** At most this many seconds after a revocation, the integration's tokens are answered 401. */
export const REVOCATION_BOUND_SECONDS = AUTHORIZER_CACHE_TTL_SECONDS + REGISTRY_CACHE_SECONDS;

export interface Revocation {
  clientId: string;
  workspaceId: string | undefined;
  registrationDeleted: boolean;
  apiKeyDeleted: string | undefined;
  appClientDeleted: boolean;
}

export async function revokeIntegration(
  clients: { cognito: CognitoIdentityProviderClient; db: DynamoDBDocumentClient; apiGateway: APIGatewayClient },
  stack: StackConfig,
  clientId: string,
): Promise<Revocation> {
  if (!CLIENT_ID.test(clientId)) throw new UsageError('--client-id must be a Cognito app client id (letters, digits, + and _)');
  // First the registry item: it is what the authorizer checks on every policy evaluation.
  const registration = await deleteApiClient(clients.db, stack.tableName, clientId);

  // The key is named after the client (integration:create): found by name when the item is gone.
  const keyId = registration?.api_key_id ?? (await apiKeyNamed(clients.apiGateway, clientId));
  const apiKeyDeleted = keyId && (await deleteApiKey(clients.apiGateway, keyId)) ? keyId : undefined;

  let appClientDeleted = true;
  try {
    await clients.cognito.send(new DeleteUserPoolClientCommand({ UserPoolId: stack.userPoolId, ClientId: clientId }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    appClientDeleted = false;
  }
  if (!registration && !apiKeyDeleted && !appClientDeleted) {
    throw new UsageError(`Nothing to revoke: no registry item, API key or app client has the client id ${clientId}`);
  }
  return { clientId, workspaceId: registration?.workspace_id, registrationDeleted: registration !== undefined, apiKeyDeleted, appClientDeleted };
}

async function apiKeyNamed(apiGateway: APIGatewayClient, name: string): Promise<string | undefined> {
  let position: string | undefined;
  do {
    const page = await apiGateway.send(new GetApiKeysCommand({ nameQuery: name, limit: 500, ...(position ? { position } : {}) }));
    const found = page.items?.find((k) => k.name === name);
    if (found?.id) return found.id;
    position = page.position;
  } while (position);
  return undefined;
}

const USAGE = 'Usage: npm run integration:revoke -- --client-id <app client id> [--outputs-file <file>] [--stack-name <name>]';

runWhenMain(import.meta.url, async () => {
  const { 'client-id': clientId, ...flags } = parseCommandLine(
    {
      options: {
        'client-id': { type: 'string' },
        ...STACK_OPTIONS,
      },
    },
    USAGE,
  ).values;
  if (!clientId) throw new UsageError(USAGE);
  const stack = resolveStackConfig({ flags, env: process.env, cwd: process.cwd() });
  const cognito = new CognitoIdentityProviderClient({ region: stack.region });
  const dynamodb = new DynamoDBClient({ region: stack.region });
  const apiGateway = new APIGatewayClient({ region: stack.region });
  try {
    const r = await revokeIntegration({ cognito, db: DynamoDBDocumentClient.from(dynamodb), apiGateway }, stack, clientId);
    console.log(
      [
        `Integration ${r.clientId}${r.workspaceId ? ` of workspace ${r.workspaceId}` : ''} revoked:`,
        `  registry item  ${r.registrationDeleted ? 'deleted' : 'none'}`,
        `  API key        ${r.apiKeyDeleted ? `${r.apiKeyDeleted} deleted` : 'none'}`,
        `  app client     ${r.appClientDeleted ? 'deleted' : 'none'}`,
        `Its tokens are refused within ${REVOCATION_BOUND_SECONDS} s at the latest: API Gateway's policy cache (${AUTHORIZER_CACHE_TTL_SECONDS} s) plus the authorizer's registry cache (${REGISTRY_CACHE_SECONDS} s).`,
      ].join('\n'),
    );
  } finally {
    cognito.destroy();
    dynamodb.destroy();
    apiGateway.destroy();
  }
});
