/**
 * CodeDeploy pre-traffic hook: before any traffic shifts to a new version of a function, invoke
 * that version once with a real request and report Succeeded or Failed. A version that cannot
 * load, or answers 5xx, never receives traffic (CodeDeploy stops the deployment and
 * CloudFormation rolls the stack back).
 *
 * The request goes through the whole handler: list routes query the table (IAM, table name and
 * network are exercised); the others get a request that ends as a 4xx before writing anything
 * (an id that cannot exist, no body). The caller is a workspace no integration can be registered
 * to, so nothing of a tenant's is ever read or written. The authorizer gets an invalid token and
 * must answer its invalid-token policy.
 */
import { CodeDeployClient, GetDeploymentCommand, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import * as logger from '../../shared/core/log.ts';
import { ROUTES } from '../../shared/api/routes.ts';

/** The operation that stands for the authorizer in SMOKE_TARGETS. */
export const AUTHORIZER_TARGET = 'authorizer';
/** Not a valid workspace id (registry ids never start with `.`), so it holds no tenant's data. */
export const SMOKE_WORKSPACE = '.smoke-test';
/** Not a valid resource id (ids never contain `.`): every by-id route answers 404 before writing. */
export const SMOKE_ID = 'smoke.test.id';

export interface SmokeTarget {
  readonly functionName: string;
  readonly operation: string;
}

export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

const codedeploy = new CodeDeployClient({});
const lambda = new LambdaClient({});

/** Which function each deployment group deploys, and so which request to send it (set by the stack). */
function targets(): SmokeTarget[] {
  const raw = process.env.SMOKE_TARGETS;
  if (!raw) throw new Error('SMOKE_TARGETS is not set');
  return JSON.parse(raw) as SmokeTarget[];
}

/**
 * The function and target version of a Lambda deployment, from its AppSpec (JSON when
 * CloudFormation starts the deployment; YAML is read too, for deployments started by hand).
 */
export function deploymentTarget(appSpecContent: string): { name: string; version: string } {
  try {
    const spec = JSON.parse(appSpecContent) as { Resources?: Array<Record<string, { Properties?: Record<string, unknown> }>> };
    const properties = Object.values(spec.Resources?.[0] ?? {})[0]?.Properties ?? {};
    if (typeof properties.Name === 'string' && properties.TargetVersion !== undefined) {
      return { name: properties.Name, version: String(properties.TargetVersion) };
    }
  } catch {
    // not JSON: YAML below
  }
  const name = /\bName:\s*["']?([\w:.-]+)/.exec(appSpecContent)?.[1];
  const version = /\bTargetVersion:\s*["']?([\w$.-]+)/.exec(appSpecContent)?.[1];
  if (!name || !version) throw new Error('The deployment names no function and target version');
  return { name, version };
}

/** The request the smoke test sends to a function. */
export function smokeEvent(operation: string, now = Date.now()): Record<string, unknown> {
  if (operation === AUTHORIZER_TARGET) {
    return {
      type: 'TOKEN',
      authorizationToken: 'Bearer smoke.test.token',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:smoke/stage/GET/api/v1/clients',
    };
  }
  const route = ROUTES.find((r) => r.operation === operation);
  if (!route) throw new Error(`No route ${operation}`);
  const byId = route.path.includes('{id}');
  const path = route.path.replace('{id}', SMOKE_ID);
  const requestId = `smoke-${now}`;
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: { 'User-Agent': 'timebill-smoke-test' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: byId ? { id: SMOKE_ID } : null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      path,
      httpMethod: route.method,
      resourcePath: route.path,
      ...(route.scope === null
        ? {}
        : {
            authorizer: {
              workspaceId: SMOKE_WORKSPACE,
              apiClientId: 'smoke-test',
              scopes: route.scope,
              tokenExpiresAt: Math.floor(now / 1000) + 300,
            },
          }),
    },
  };
}

/** Why an answer fails the smoke test, or undefined when it passes. */
export function smokeFailure(operation: string, functionError: string | undefined, payload: unknown): string | undefined {
  if (operation === AUTHORIZER_TARGET) {
    if (functionError) return `the authorizer failed: ${JSON.stringify(payload)}`;
    const result = payload as { principalId?: unknown; policyDocument?: { Statement?: unknown } } | null;
    if (typeof result?.principalId !== 'string' || !Array.isArray(result.policyDocument?.Statement)) return 'the authorizer answered no policy';
    return undefined;
  }
  if (functionError) return `the function failed (${functionError}): ${JSON.stringify(payload)}`;
  const response = payload as { statusCode?: unknown; body?: unknown } | null;
  if (typeof response?.statusCode !== 'number') return 'the function answered no HTTP response';
  if (response.statusCode >= 500) return `the function answered ${response.statusCode}: ${String(response.body)}`;
  try {
    JSON.parse(String(response.body));
  } catch {
    return `the function answered ${response.statusCode} without a JSON body`;
  }
  return undefined;
}

/** Smoke-tests the deployment's target version; throws with the reason on failure. */
async function smokeTest(deploymentId: string): Promise<void> {
  const out = await codedeploy.send(new GetDeploymentCommand({ deploymentId }));
  const content = out.deploymentInfo?.revision?.appSpecContent?.content;
  if (!content) throw new Error('The deployment has no AppSpec content');
  const { name, version } = deploymentTarget(content);
  const target = targets().find((t) => t.functionName === name || name.endsWith(`:function:${t.functionName}`));
  if (!target) throw new Error(`No smoke test for function ${name}`);
  const invoked = await lambda.send(
    new InvokeCommand({ FunctionName: name, Qualifier: version, Payload: Buffer.from(JSON.stringify(smokeEvent(target.operation))) }),
  );
  const text = invoked.Payload ? Buffer.from(invoked.Payload).toString('utf8') : 'null';
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = text;
  }
  const failure = smokeFailure(target.operation, invoked.FunctionError, payload);
  if (failure) throw new Error(`${target.operation} version ${version}: ${failure}`);
  logger.info('Smoke test passed', { operation: target.operation, function: name, version });
}

export const handler = async (event: HookEvent): Promise<void> => {
  let status: 'Succeeded' | 'Failed' = 'Failed';
  try {
    await smokeTest(event.DeploymentId);
    status = 'Succeeded';
  } catch (error) {
    logger.error('Smoke test failed: the new version gets no traffic', { deploymentId: event.DeploymentId, error: error as Error });
  }
  // Always report: CodeDeploy otherwise waits for the hook's timeout (one hour) before failing.
  await codedeploy.send(
    new PutLifecycleEventHookExecutionStatusCommand({
      deploymentId: event.DeploymentId,
      lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
      status,
    }),
  );
};
