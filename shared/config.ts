/**
 * Configuration of the functions, read once from the environment and checked at load:
 * a misconfigured function fails its cold start instead of its first request.
 */
import * as v from 'valibot';
import { DEFAULT_RESOURCE_SERVER_IDENTIFIER } from './auth/scopes.ts';

const EnvSchema = v.object({
  TABLE_NAME: v.pipe(v.string(), v.minLength(3)),
  /** Set only locally (DynamoDB Local). */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
});

export type FunctionConfig = v.InferOutput<typeof EnvSchema>;

let loaded: FunctionConfig | undefined;

export function config(): FunctionConfig {
  if (loaded) return loaded;
  const result = v.safeParse(EnvSchema, process.env);
  if (!result.success) {
    const names = result.issues.map((i) => v.getDotPath(i) ?? '?').join(', ');
    throw new Error(`Invalid function configuration: check ${names}`);
  }
  loaded = result.output;
  return loaded;
}

const CursorKeySchema = v.object({
  /** HMAC key for list cursors; at least 32 characters. Needed by the list functions only. */
  CURSOR_SIGNING_KEY: v.pipe(v.string(), v.minLength(32)),
});

let cursorKey: string | undefined;

export function cursorSigningKey(): string {
  if (cursorKey) return cursorKey;
  const result = v.safeParse(CursorKeySchema, process.env);
  if (!result.success) throw new Error('Invalid function configuration: CURSOR_SIGNING_KEY must hold at least 32 characters');
  cursorKey = result.output.CURSOR_SIGNING_KEY;
  return cursorKey;
}

const AuthorizerEnvSchema = v.union([
  v.object({
    /** In AWS: the Cognito user pool that issues the access tokens. */
    COGNITO_USER_POOL_ID: v.pipe(v.string(), v.regex(/^[\w-]+_[0-9a-zA-Z]+$/)),
  }),
  v.object({
    /** Locally: the local issuer and its JWKS (see infra/local/issuer.ts). */
    LOCAL_JWT_ISSUER: v.pipe(v.string(), v.minLength(1)),
    /** Loopback only: the local issuer's JWKS is served over plain http. */
    LOCAL_JWKS_URI: v.pipe(v.string(), v.regex(/^http:\/\/(127\.0\.0\.1|localhost):\d+\//)),
  }),
]);

const ResourceServerEnvSchema = v.object({
  /** The resource server whose `<identifier>/<scope>` scopes grant access (Cognito's identifier charset). */
  RESOURCE_SERVER_IDENTIFIER: v.optional(v.pipe(v.string(), v.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/)), DEFAULT_RESOURCE_SERVER_IDENTIFIER),
});

export type AuthorizerConfig = v.InferOutput<typeof AuthorizerEnvSchema> & v.InferOutput<typeof ResourceServerEnvSchema>;

export function authorizerConfig(): AuthorizerConfig {
  const result = v.safeParse(AuthorizerEnvSchema, process.env);
  if (!result.success) {
    throw new Error('Invalid authorizer configuration: set COGNITO_USER_POOL_ID, or LOCAL_JWT_ISSUER and LOCAL_JWKS_URI');
  }
  const resourceServer = v.safeParse(ResourceServerEnvSchema, process.env);
  if (!resourceServer.success) throw new Error('Invalid authorizer configuration: RESOURCE_SERVER_IDENTIFIER is not a Cognito resource-server identifier');
  return { ...result.output, ...resourceServer.output };
}

const UsageKeyEnvSchema = v.object({
  /**
   * Value of the API key that all invalid-token traffic is metered on (infra/limits.ts creates
   * it in its own small usage plan). API Gateway's rule for key values: 20 to 128 characters.
   */
  INVALID_TOKEN_API_KEY: v.pipe(v.string(), v.minLength(20), v.maxLength(128)),
});

/** The authorizer's usage key for invalid tokens; checked at the authorizer's load. */
export function invalidTokenUsageKey(): string {
  const result = v.safeParse(UsageKeyEnvSchema, process.env);
  if (!result.success) throw new Error('Invalid authorizer configuration: INVALID_TOKEN_API_KEY must hold 20 to 128 characters');
  return result.output.INVALID_TOKEN_API_KEY;
}
