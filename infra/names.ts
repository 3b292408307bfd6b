/**
 * Names shared by the CDK stack and the scripts that talk to a deployed stack
 * (scripts/integration-create.ts). Plain constants: importing them does not load aws-cdk-lib.
 */

/**
 * CloudFormation name of prod's Api stack, which holds every output the scripts read (the Data,
 * Functions and Operations stacks append their role: infra/stack.ts). infra/config/environments.ts
 * names the other environments'.
 */
export const DEFAULT_STACK_NAME = 'TimebillApi';

import { DEFAULT_RESOURCE_SERVER_IDENTIFIER } from '../shared/core/config.ts';

/**
 * The Cognito resource server by default (stack property `resourceServerIdentifier`): tokens
 * carry scopes as `timebill-api/clients:read`. The local issuer uses the same one.
 */
export const RESOURCE_SERVER_IDENTIFIER = DEFAULT_RESOURCE_SERVER_IDENTIFIER;

/** The prod environment's API Gateway stage: every stage is named after its environment (the routes carry the version, /api/v1). */
export const STAGE_NAME = 'prod';

/** CloudFormation output names (also the keys of `cdk-outputs.json`, see cdk.json `outputsFile`). */
export const OUTPUTS = {
  apiUrl: 'ApiUrl',
  apiV1Url: 'ApiV1Url',
  tokenEndpoint: 'TokenEndpoint',
  userPoolId: 'UserPoolId',
  tableName: 'TableName',
  resourceServerIdentifier: 'ResourceServerIdentifier',
  region: 'Region',
  alarmTopicArn: 'AlarmTopicArn',
} as const;

/** Where `npx cdk deploy` writes the stack outputs (cdk.json `outputsFile`). */
export const OUTPUTS_FILE = 'cdk-outputs.json';

/** The CloudFormation output with the id of a usage plan (`UsagePlanDefaultId`); the integration scripts read it. */
export const usagePlanOutput = (plan: string) => `UsagePlan${plan.charAt(0).toUpperCase()}${plan.slice(1)}Id`;

/** Stage-wide throttling (API Gateway's token bucket); the local gateway applies the same. */
export const STAGE_THROTTLING = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * Media types API Gateway passes to the functions as bytes (base64), not as text it decoded:
 * every type, so the handler frame sees a body that is not UTF-8 and refuses it rather than
 * storing U+FFFD. The local gateway does the same.
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

/** Seconds API Gateway caches an authorizer's policy for a token (the local gateway does the same). */
export const AUTHORIZER_CACHE_TTL_SECONDS = 300;

/** CPU scales with memory: 512 MB keeps cold starts (module parse, JWT crypto) short at low cost. */
export const FUNCTION_MEMORY_MB = 512;
