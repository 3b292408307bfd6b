/**
 * Configuration of the functions, read once from the environment and checked at load:
 * a misconfigured function fails its cold start instead of its first request.
 */
import { get } from 'node:http';
import * as v from 'valibot';

/** The functions' configuration (TABLE_NAME; DYNAMODB_ENDPOINT locally; AWS_REGION). */
export interface FunctionConfig {
  TABLE_NAME: string;
  /** Set only locally (DynamoDB Local). */
  DYNAMODB_ENDPOINT?: string;
  AWS_REGION: string;
}

let loaded: FunctionConfig | undefined;

/**
 * Checked by hand, not with valibot: its object schema and URL check would stay in every
 * function's bundle for these three variables.
 */
export function config(): FunctionConfig {
  if (loaded) return loaded;
  const { TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION } = process.env;
  const wrong = [
    ...(TABLE_NAME === undefined || TABLE_NAME.length < 3 ? ['TABLE_NAME'] : []),
    ...(DYNAMODB_ENDPOINT !== undefined && !URL.canParse(DYNAMODB_ENDPOINT) ? ['DYNAMODB_ENDPOINT'] : []),
  ];
  if (wrong.length > 0) throw new Error(`Invalid function configuration: check ${wrong.join(', ')}`);
  loaded = { TABLE_NAME: TABLE_NAME!, ...(DYNAMODB_ENDPOINT === undefined ? {} : { DYNAMODB_ENDPOINT }), AWS_REGION: AWS_REGION ?? 'us-east-1' };
  return loaded;
}

/** The port of the AWS Parameters and Secrets Lambda Extension's local HTTP server (its default). */
const EXTENSION_PORT = '2773';
/** How long the first request waits for the extension (it asks Secrets Manager on a cache miss). */
const EXTENSION_TIMEOUT_MS = 2000;

let cursorKey: Promise<string> | undefined;

/**
 * The HMAC key of list cursors (the list functions only), read once per execution environment:
 * in AWS from Secrets Manager through the Parameters and Secrets extension, by the secret's ARN in
 * CURSOR_SIGNING_KEY_SECRET (no function's environment holds the key itself, decision 0021);
 * locally, where no extension runs, from CURSOR_SIGNING_KEY. A failed read is tried again by the
 * next request; one that the extension or Secrets Manager could not answer is a 503.
 */
export function cursorSigningKey(): Promise<string> {
  cursorKey ??= readCursorKey().catch((error: unknown) => {
    cursorKey = undefined;
    throw error;
  });
  return cursorKey;
}

/**
 * Starts reading the cursor key as a list function loads (Lambda's init phase), so that its first
 * request finds it read; a failure is left to the first request that needs the key to meet again.
 */
export function readCursorKeyAtLoad(): void {
  cursorSigningKey().catch(() => undefined);
}

async function readCursorKey(): Promise<string> {
  const secret = process.env.CURSOR_SIGNING_KEY_SECRET;
  const key = secret === undefined ? process.env.CURSOR_SIGNING_KEY : await secretString(secret);
  if (key === undefined || key.length < 32) throw new Error('Invalid function configuration: the cursor signing key must hold at least 32 characters');
  return key;
}

async function secretString(secretId: string): Promise<string | undefined> {
  let response: { status: number; body: string };
  try {
    response = await extensionGet(`/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`);
  } catch (cause) {
    throw unavailable('the Parameters and Secrets extension did not answer', cause);
  }
  // 5xx and throttling: Secrets Manager (or the extension) is busy or down; anything else is this deployment's fault.
  if (response.status >= 500 || response.status === 429) throw unavailable(`the Parameters and Secrets extension answered ${response.status}`);
  if (response.status !== 200) throw new Error(`Invalid function configuration: the cursor signing key could not be read (${response.status})`);
  return (JSON.parse(response.body) as { SecretString?: string }).SecretString;
}

/**
 * A GET to the extension, over node:http: the SDK has loaded it already, where the first `fetch`
 * of a process loads its own HTTP client (tens of milliseconds of a cold start).
 */
function extensionGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(
      {
        host: 'localhost',
        port: process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? EXTENSION_PORT,
        path,
        headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' },
        timeout: EXTENSION_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${EXTENSION_TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });
}

/** A dependency's failure, as shared/data/faults.ts classifies one: a 503 with Retry-After. */
const unavailable = (message: string, cause?: unknown) =>
  Object.assign(new Error(`Cursor signing key: ${message}`, { cause }), { name: 'ServiceUnavailable', dependency: 'secretsmanager' });

const authorizerEnvSchema = () =>
  v.union([
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

/** The Cognito resource server of this API, unless the stack names another (RESOURCE_SERVER_IDENTIFIER). */
export const DEFAULT_RESOURCE_SERVER_IDENTIFIER = 'timebill-api';

const resourceServerEnvSchema = () =>
  v.object({
    /** The resource server whose `<identifier>/<scope>` scopes grant access (Cognito's identifier charset). */
    RESOURCE_SERVER_IDENTIFIER: v.optional(v.pipe(v.string(), v.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/)), DEFAULT_RESOURCE_SERVER_IDENTIFIER),
  });

export type AuthorizerConfig = v.InferOutput<ReturnType<typeof authorizerEnvSchema>> & v.InferOutput<ReturnType<typeof resourceServerEnvSchema>>;

export function authorizerConfig(): AuthorizerConfig {
  const result = v.safeParse(authorizerEnvSchema(), process.env);
  if (!result.success) {
    throw new Error('Invalid authorizer configuration: set COGNITO_USER_POOL_ID, or LOCAL_JWT_ISSUER and LOCAL_JWKS_URI');
  }
  const resourceServer = v.safeParse(resourceServerEnvSchema(), process.env);
  if (!resourceServer.success) throw new Error('Invalid authorizer configuration: RESOURCE_SERVER_IDENTIFIER is not a Cognito resource-server identifier');
  return { ...result.output, ...resourceServer.output };
}

const usageKeyEnvSchema = () =>
  v.object({
    /**
     * Value of the API key that all invalid-token traffic is metered on (infra/limits.ts creates
     * it in its own small usage plan). API Gateway's rule for key values: 20 to 128 characters.
     */
    INVALID_TOKEN_API_KEY: v.pipe(v.string(), v.minLength(20), v.maxLength(128)),
  });

/** The authorizer's usage key for invalid tokens; checked at the authorizer's load. */
export function invalidTokenUsageKey(): string {
  const result = v.safeParse(usageKeyEnvSchema(), process.env);
  if (!result.success) throw new Error('Invalid authorizer configuration: INVALID_TOKEN_API_KEY must hold 20 to 128 characters');
  return result.output.INVALID_TOKEN_API_KEY;
}
