/**
 * The CodeDeploy pre-traffic hook (functions/operations/smoke-test.ts).
 * - Its requests, sent to the real handlers over DynamoDB Local: every route answers below 500
 *   through its whole code path, and nothing is written.
 * - The hook itself, with CodeDeploy and Lambda mocked (aws-sdk-client-mock): it tests the target
 *   version named in the deployment and always reports Succeeded or Failed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { CodeDeployClient, GetDeploymentCommand, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { startLocalTable, type LocalTable } from '../support/local-table.ts';
import { AUTHORIZER_ENTRY, ROUTES } from '../../shared/api/routes.ts';
import { captureLogs } from './support/logs.ts';
import {
  AUTHORIZER_TARGET,
  deploymentTarget,
  handler,
  smokeEvent,
  smokeFailure,
} from '../../functions/operations/smoke-test.ts';

const TABLE_NAME = 'timebill-smoke-test';
let localTable: LocalTable | undefined;
let data: DynamoDBClient;

const codedeploy = mockClient(CodeDeployClient);
const lambda = mockClient(LambdaClient);

beforeAll(async () => {
  localTable = await startLocalTable(TABLE_NAME);
  data = localTable.client;
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME,
    DYNAMODB_ENDPOINT: localTable.local.endpoint,
    CURSOR_SIGNING_KEY: 'k'.repeat(64),
    COGNITO_USER_POOL_ID: 'eu-west-1_AbCdEf123',
    INVALID_TOKEN_API_KEY: 'invalid-token-smoke-test-key',
    HAND_OVER_FUNCTION: 'arn:aws:lambda:us-east-1:000000000000:function:retrieveInvoiceDocument:live',
    SMOKE_TARGETS: JSON.stringify([
      { functionName: 'TimebillApi-ListClientsFunction-abc', operation: 'listClients' },
      { functionName: 'TimebillApi-AuthorizerFunction-def', operation: AUTHORIZER_TARGET },
    ]),
  });
});

afterAll(async () => {
  await localTable?.stop();
});

describe('the smoke requests, sent to the real handlers', () => {
  it('every route answers below 500 with a JSON body, and the table stays empty', async () => {
    for (const route of ROUTES) {
      const mod = (await import(/* @vite-ignore */ `../../${route.entry}`)) as { handler: (event: unknown) => Promise<unknown> };
      const answer = await mod.handler(smokeEvent(route.operation));
      expect(smokeFailure(route.operation, undefined, answer), `${route.operation}: ${JSON.stringify(answer)}`).toBeUndefined();
    }
    expect((await data.send(new ScanCommand({ TableName: TABLE_NAME }))).Count).toBe(0);
  });

  it('list routes really reach the table (200 with an empty page)', async () => {
    const mod = (await import('../../functions/clients/list.ts')) as { handler: (event: unknown) => Promise<{ statusCode: number; body: string }> };
    const answer = await mod.handler(smokeEvent('listClients'));
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ data: [] });
  });

  it('the authorizer answers its invalid-token policy for the smoke token (no network: the token does not parse)', async () => {
    const mod = (await import(/* @vite-ignore */ `../../${AUTHORIZER_ENTRY}`)) as { handler: (event: unknown) => Promise<unknown> };
    const answer = await mod.handler(smokeEvent(AUTHORIZER_TARGET));
    expect(smokeFailure(AUTHORIZER_TARGET, undefined, answer)).toBeUndefined();
  });

  it('what fails the smoke test: a function error, a 5xx, no HTTP response, no JSON body, no policy', () => {
    expect(smokeFailure('listClients', 'Unhandled', { errorMessage: 'boom' })).toMatch(/failed \(Unhandled\)/);
    expect(smokeFailure('listClients', undefined, { statusCode: 503, body: '{}' })).toMatch(/answered 503/);
    expect(smokeFailure('listClients', undefined, null)).toMatch(/no HTTP response/);
    expect(smokeFailure('listClients', undefined, { statusCode: 200, body: '<html>' })).toMatch(/without a JSON body/);
    expect(smokeFailure(AUTHORIZER_TARGET, undefined, { principalId: 'x' })).toMatch(/no policy/);
    expect(smokeFailure(AUTHORIZER_TARGET, 'Unhandled', {})).toMatch(/authorizer failed/);
    expect(smokeFailure('listClients', undefined, { statusCode: 404, body: '{"error":{}}' })).toBeUndefined();
  });
});

describe('the deployment target', () => {
  it('is read from the AppSpec, JSON or YAML', () => {
    const json = JSON.stringify({
      version: 0.0,
      Resources: [{ fn: { Type: 'AWS::Lambda::Function', Properties: { Name: 'f-abc', Alias: 'live', CurrentVersion: '3', TargetVersion: '4' } } }],
    });
    expect(deploymentTarget(json)).toEqual({ name: 'f-abc', version: '4' });
    const yaml = 'version: 0.0\nResources:\n  - fn:\n      Type: AWS::Lambda::Function\n      Properties:\n        Name: f-abc\n        Alias: live\n        CurrentVersion: 3\n        TargetVersion: 4\n';
    expect(deploymentTarget(yaml)).toEqual({ name: 'f-abc', version: '4' });
    expect(() => deploymentTarget('{}')).toThrow(/names no function/);
  });
});

describe('the hook', () => {
  const appSpec = (name: string, version: string) =>
    JSON.stringify({ version: 0.0, Resources: [{ fn: { Type: 'AWS::Lambda::Function', Properties: { Name: name, Alias: 'live', CurrentVersion: '1', TargetVersion: version } } }] });
  const event = { DeploymentId: 'd-123', LifecycleEventHookExecutionId: 'h-456' };
  const reported = () => codedeploy.commandCalls(PutLifecycleEventHookExecutionStatusCommand).map((c) => c.args[0].input);
  const payload = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  beforeEach(() => {
    codedeploy.reset();
    lambda.reset();
    codedeploy.on(PutLifecycleEventHookExecutionStatusCommand).resolves({});
  });

  it('invokes the target version with its smoke request and reports Succeeded', async () => {
    codedeploy.on(GetDeploymentCommand).resolves({ deploymentInfo: { revision: { appSpecContent: { content: appSpec('TimebillApi-ListClientsFunction-abc', '7') } } } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ statusCode: 200, body: '{"data":[]}' }) as never });
    await handler(event);
    const [invoke] = lambda.commandCalls(InvokeCommand);
    expect(invoke!.args[0].input).toMatchObject({ FunctionName: 'TimebillApi-ListClientsFunction-abc', Qualifier: '7' });
    const sent = JSON.parse(Buffer.from(invoke!.args[0].input.Payload as Uint8Array).toString('utf8'));
    expect(sent).toMatchObject({ httpMethod: 'GET', path: '/api/v1/clients', requestContext: { authorizer: { scopes: 'clients:read' } } });
    expect(reported()).toEqual([{ deploymentId: 'd-123', lifecycleEventHookExecutionId: 'h-456', status: 'Succeeded' }]);
  });

  it('reports Failed when the new version fails, answers 5xx, or the deployment cannot be read', async () => {
    const { lines } = await captureLogs(async () => {
      codedeploy.on(GetDeploymentCommand).resolves({ deploymentInfo: { revision: { appSpecContent: { content: appSpec('TimebillApi-AuthorizerFunction-def', '2') } } } });
      lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Runtime.ImportModuleError' }) as never });
      await handler(event);
      lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ statusCode: 500, body: '{}' }) as never });
      codedeploy.on(GetDeploymentCommand).resolves({ deploymentInfo: { revision: { appSpecContent: { content: appSpec('TimebillApi-ListClientsFunction-abc', '2') } } } });
      await handler(event);
      codedeploy.on(GetDeploymentCommand).rejects(new Error('AccessDenied'));
      await handler(event);
      codedeploy.on(GetDeploymentCommand).resolves({ deploymentInfo: { revision: { appSpecContent: { content: appSpec('SomeOtherFunction', '2') } } } });
      await handler(event);
    });
    expect(reported().map((r) => r.status)).toEqual(['Failed', 'Failed', 'Failed', 'Failed']);
    // Each failure is one ERROR line for the operator, with the deployment and why.
    expect(lines.map((l) => [l.level, l.message, l.deploymentId])).toEqual(
      Array.from({ length: 4 }, () => ['ERROR', 'Smoke test failed: the new version gets no traffic', 'd-123']),
    );
    const reasons = lines.map((l) => (l.error as { message: string }).message);
    expect(reasons[0]).toMatch(/^authorizer version 2/);
    expect(reasons[1]).toMatch(/^listClients version 2/);
    expect(reasons[2]).toBe('AccessDenied');
    expect(reasons[3]).toMatch(/SomeOtherFunction/);
  });
});
