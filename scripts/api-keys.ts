/**
 * The API Gateway side of an integration, for the operator scripts: its API key, named after its
 * Cognito app client id, held by the usage plan of its plan (shared/core/plan-limits.ts). The authorizer
 * returns the key's value as usageIdentifierKey; the plan that holds the key throttles and meters
 * the integration.
 */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { PLAN_NAMES, isPlanName, type PlanName } from '../shared/core/plan-limits.ts';

import { UsageError } from './cli.ts';

export { UsageError };

export interface IntegrationKey {
  apiKeyId: string;
  /** The key's value: what the authorizer returns as usageIdentifierKey. */
  usageKey: string;
}

/** The usage-plan id of a plan, or a UsageError saying which plans exist and where ids come from. */
export function usagePlanIdOf(usagePlanIds: Partial<Record<PlanName, string>>, plan: string): string {
  if (!isPlanName(plan)) throw new UsageError(`Unknown plan ${plan}: use ${PLAN_NAMES.join(', ')}`);
  const id = usagePlanIds[plan];
  if (!id) {
    throw new UsageError(
      `The id of usage plan ${plan} is unknown: deploy the stack (its outputs name it) or set TIMEBILL_USAGE_PLAN_ID_${plan.toUpperCase()}`,
    );
  }
  return id;
}

/** Creates the integration's API key and puts it in the plan; deletes the key again if that fails. */
export async function createIntegrationKey(
  apiGateway: APIGatewayClient,
  usagePlanId: string,
  integration: { clientId: string; workspaceId: string; name: string },
): Promise<IntegrationKey> {
  const created = await apiGateway.send(
    new CreateApiKeyCommand({
      name: integration.clientId,
      description: `Integration "${integration.name}" of workspace ${integration.workspaceId}`,
      enabled: true,
      tags: { workspace: integration.workspaceId, api_client_id: integration.clientId },
    }),
  );
  if (!created.id || !created.value) throw new Error('API Gateway created no API key id or value');
  try {
    await apiGateway.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: created.id, keyType: 'API_KEY' }));
  } catch (error) {
    await deleteApiKey(apiGateway, created.id);
    throw error;
  }
  return { apiKeyId: created.id, usageKey: created.value };
}

/**
 * Moves a key from one plan to another. A key may be in one plan per API stage, so it leaves the
 * old plan first; if joining the new one fails, it goes back to the old one. In between (one API
 * call) its requests are answered 403.
 */
export async function moveKey(apiGateway: APIGatewayClient, keyId: string, fromPlanId: string | undefined, toPlanId: string): Promise<void> {
  if (fromPlanId === toPlanId) return;
  if (fromPlanId) {
    try {
      await apiGateway.send(new DeleteUsagePlanKeyCommand({ usagePlanId: fromPlanId, keyId }));
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw error; // not in that plan: nothing to leave
    }
  }
  try {
    await apiGateway.send(new CreateUsagePlanKeyCommand({ usagePlanId: toPlanId, keyId, keyType: 'API_KEY' }));
  } catch (error) {
    if (fromPlanId) await apiGateway.send(new CreateUsagePlanKeyCommand({ usagePlanId: fromPlanId, keyId, keyType: 'API_KEY' }));
    throw error;
  }
}

/** Deletes an API key; false when there was none (already deleted). */
export async function deleteApiKey(apiGateway: APIGatewayClient, apiKeyId: string): Promise<boolean> {
  try {
    await apiGateway.send(new DeleteApiKeyCommand({ apiKey: apiKeyId }));
    return true;
  } catch (error) {
    if (error instanceof NotFoundException) return false;
    throw error;
  }
}
