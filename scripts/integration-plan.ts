/**
 * Moves an integration to another usage plan (shared/core/plan-limits.ts):
 *
 *   npm run integration:plan -- --client-id <Cognito app client id> --plan <plan>
 *
 * The integration's API key leaves its usage plan and joins the new one (back to the old one if
 * that fails), and the registry item records the plan. API Gateway applies the new limits at
 * once: they belong to the plan that holds the key, not to the cached policy. An integration
 * registered before usage plans has no key: it gets one here, in the given plan.
 *
 * Where the stack is: as for `npm run integration:create` (cdk-outputs.json, TIMEBILL_*, flags).
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { findApiClient, setApiClientPlan } from '../shared/data/api-clients.ts';
import { DEFAULT_PLAN, PLAN_NAMES, describePlan, type PlanName } from '../shared/core/plan-limits.ts';
import { createIntegrationKey, moveKey, usagePlanIdOf } from './api-keys.ts';
import { UsageError, parseCommandLine, runWhenMain } from './cli.ts';
import { STACK_OPTIONS, resolveStackConfig, type StackConfig } from './integration-create.ts';

/** Cognito's rule for app client ids. */
export const CLIENT_ID = /^[\w+]{1,128}$/;

export interface PlanChange {
  clientId: string;
  from: PlanName | undefined;
  to: PlanName;
  apiKeyId: string;
  /** True when the integration had no API key yet (registered before usage plans). */
  keyCreated: boolean;
}

export async function changePlan(
  clients: { db: DynamoDBDocumentClient; apiGateway: APIGatewayClient },
  stack: StackConfig,
  request: { clientId: string; plan: string },
): Promise<PlanChange> {
  if (!CLIENT_ID.test(request.clientId)) throw new UsageError('--client-id must be a Cognito app client id (letters, digits, + and _)');
  const toPlanId = usagePlanIdOf(stack.usagePlanIds, request.plan);
  const to = request.plan as PlanName;
  const registration = await findApiClient(clients.db, stack.tableName, request.clientId);
  if (!registration) throw new UsageError(`No integration with client id ${request.clientId} is registered in ${stack.tableName}`);

  let key: { apiKeyId: string; usageKey: string };
  let keyCreated = false;
  if (registration.api_key_id && registration.usage_key) {
    key = { apiKeyId: registration.api_key_id, usageKey: registration.usage_key };
    await moveKey(clients.apiGateway, key.apiKeyId, stack.usagePlanIds[registration.plan ?? DEFAULT_PLAN], toPlanId);
  } else {
    key = await createIntegrationKey(clients.apiGateway, toPlanId, {
      clientId: request.clientId,
      workspaceId: registration.workspace_id,
      name: registration.name,
    });
    keyCreated = true;
  }
  const updated = await setApiClientPlan(clients.db, stack.tableName, request.clientId, { plan: to, api_key_id: key.apiKeyId, usage_key: key.usageKey });
  if (!updated) throw new Error(`Integration ${request.clientId} was revoked meanwhile; its API key ${key.apiKeyId} may remain: delete it`);
  return { clientId: request.clientId, from: registration.plan, to, apiKeyId: key.apiKeyId, keyCreated };
}

const USAGE = `Usage: npm run integration:plan -- --client-id <app client id> --plan <${PLAN_NAMES.join('|')}> [--outputs-file <file>] [--stack-name <name>]`;

runWhenMain(import.meta.url, async () => {
  const { 'client-id': clientId, plan, ...flags } = parseCommandLine(
    {
      options: {
        'client-id': { type: 'string' },
        plan: { type: 'string' },
        ...STACK_OPTIONS,
      },
    },
    USAGE,
  ).values;
  if (!clientId || !plan) throw new UsageError(USAGE);
  const stack = resolveStackConfig({ flags, env: process.env, cwd: process.cwd() });
  const dynamodb = new DynamoDBClient({ region: stack.region });
  const apiGateway = new APIGatewayClient({ region: stack.region });
  try {
    const change = await changePlan({ db: DynamoDBDocumentClient.from(dynamodb), apiGateway }, stack, { clientId, plan });
    console.log(
      `Integration ${change.clientId}: plan ${change.from ?? '(none)'} -> ${change.to} (${describePlan(change.to)}), API key ${change.apiKeyId}` +
        (change.keyCreated ? ' (created: its tokens get the key once the authorizer caches expire, within 6 minutes)' : ''),
    );
  } finally {
    dynamodb.destroy();
    apiGateway.destroy();
  }
});
