/**
 * The whole local stack: DynamoDB Local with the table, the local issuer, the local gateway in
 * front of the same handlers and authorizer, and the events pipeline (the same stream consumer
 * and webhook delivery code, on a local stream poller and delivery scheduler). Used by
 * `npm start` and by the tests.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { WORKSPACE_ID_PATTERN, findApiClient, registerApiClient } from '../../shared/data/api-clients.ts';
import { DEFAULT_PLAN, PLAN_NAMES } from '../../shared/core/plan-limits.ts';
import type { ClientLimitOptions } from './client-limits.ts';
import { LOCAL_AWS_ENV, createTable, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb.ts';
import { createLocalGateway, type LocalRoute } from './gateway.ts';
import { LOCAL_ISSUER, loadOrCreateIssuer, type LocalIssuer } from './issuer.ts';
import { RESOURCE_SERVER_IDENTIFIER } from '../names.ts';
import { superviseDynamoDbLocal } from './supervisor.ts';
import { startStreamPoller } from './stream-poller.ts';
import { readOrCreateOnce } from './state-file.ts';
import { startLocalDeliveries, type LocalDeliveries } from './deliveries.ts';
import { startLocalBillingQueue, type LocalBillingQueue } from './billing-queue.ts';
import { waitAtMost } from './wait.ts';
import { BACKGROUND_FUNCTIONS, type BackgroundFunction } from '../../shared/api/background.ts';
import { AUTHORIZER_ENTRY } from '../../shared/api/routes.ts';
import { AWS_RETRY_BASE_MS, retrySchedule } from '../../shared/core/retry-schedule.ts';
import type { DynamoDBStreamEvent } from 'aws-lambda';

export const LOCAL_TABLE_NAME = 'timebill-local';
export const JWKS_PATH = '/.well-known/jwks.json';
export const TOKEN_PATH = '/_local/token';
/** What `npm run billing-schedule -- --at <date-time>` posts: a sweep of the billing schedules at that instant. */
export const BILLING_SCHEDULE_PATH = '/_local/billing-schedule';
/** The local value of the invalid-token API key (INVALID_TOKEN_API_KEY); in AWS, infra/limits.ts makes one per stack. */
export const LOCAL_INVALID_TOKEN_API_KEY = 'local-invalid-token-traffic';
/** The local API key of an API client (API Gateway would generate one); at least 20 characters, as there. */
export const localUsageKey = (clientId: string) => `local-api-key-${clientId}`;

export interface LocalStackOptions {
  repoRoot: string;
  port: number;
  host?: string;
  /** Keep DynamoDB Local's data here; in memory when absent. */
  dataDir?: string;
  /**
   * A DynamoDB Local that already runs (the test suite shares one between its projects): used
   * instead of starting one (`dataDir` is then its own business), and left running by stop().
   */
  dynamoDbLocal?: DynamoDbLocal;
  /** Where the issuer's key pair and the cursor key live (git-ignored). */
  stateDir: string;
  throttling?: { rateLimit: number; burstLimit: number };
  /**
   * Called once if DynamoDB Local exits or stops answering while the stack runs, with the message
   * to print (see supervisor.ts). Unwatched when absent.
   */
  onDynamoDbDeath?: (message: string) => void;
  /** Per-API-client limits (usage plans); the plans of shared/core/plan-limits.ts by default. */
  clientLimits?: ClientLimitOptions;
  /** First webhook retry delay (ms); each later one doubles. Default: AWS's 60 s (main.ts reads WEBHOOK_RETRY_BASE_MS). */
  webhookRetryBaseMs?: number;
  /** How long failed billing work waits before its next receive (ms; SQS's visibility timeout in AWS). Default 1 s. */
  billingRetryMs?: number;
}

export interface LocalStack {
  baseUrl: string;
  dynamo: DynamoDbLocal;
  tableName: string;
  issuer: LocalIssuer;
  deliveries: LocalDeliveries;
  /** The billing runs' queue (decision 0033): `idle()` once every run's work is done. */
  billing: LocalBillingQueue;
  /** The stream poller: paused, it reads nothing until resumed (the benchmark measures without it). */
  events: { pause(): Promise<void>; resume(): void };
  /** Stops everything; requests under way get up to `graceMs` to finish first. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

const TokenRequest = v.strictObject({
  workspace: v.pipe(v.string(), v.regex(WORKSPACE_ID_PATTERN, 'workspace must be 1 to 64 letters, digits, - or _')),
  // Any scope string, unchanged (prefixed, foreign or unknown ones too): so refusals can be tried locally.
  scopes: v.pipe(
    v.array(v.pipe(v.string(), v.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/, 'each scope must be 1 to 256 visible ASCII characters, without spaces, " or \\'))),
    v.minLength(1, 'give at least one scope'),
  ),
  expires_in: v.optional(v.pipe(v.number(), v.integer(), v.minValue(-86_400), v.maxValue(86_400)), 3600),
  plan: v.optional(v.picklist(PLAN_NAMES, `plan must be one of ${PLAN_NAMES.join(', ')}`), DEFAULT_PLAN),
});

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const host = options.host ?? '127.0.0.1';
  const baseUrl = `http://${host}:${options.port}`;
  const issuer = loadOrCreateIssuer(join(options.stateDir, 'issuer'));
  const dynamo = options.dynamoDbLocal ?? (await startDynamoDbLocal(options.dataDir ? { dataDir: options.dataDir } : {}));
  const stopDynamo = () => (options.dynamoDbLocal ? Promise.resolve() : dynamo.stop());
  let events: LocalEvents | undefined;
  try {
    Object.assign(process.env, {
      ...LOCAL_AWS_ENV,
      TABLE_NAME: LOCAL_TABLE_NAME,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      CURSOR_SIGNING_KEY: cursorKey(options.stateDir),
      LOCAL_JWT_ISSUER: LOCAL_ISSUER,
      LOCAL_JWKS_URI: `${baseUrl}${JWKS_PATH}`,
      // The same resource server as the deployed stack's default: `timebill-api/clients:read`.
      RESOURCE_SERVER_IDENTIFIER,
      INVALID_TOKEN_API_KEY: LOCAL_INVALID_TOKEN_API_KEY,
      // Webhooks to http://127.0.0.1:<port>/ and http://localhost:<port>/ are allowed here only.
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      // Attempt metrics are CloudWatch EMF lines; locally the attempt log lines say the same.
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: LOCAL_AWS_ENV.AWS_REGION });
    await createTable(client, LOCAL_TABLE_NAME);
    const db = DynamoDBDocumentClient.from(client);
    events = await startEvents(options, client, dynamo.endpoint);
    const started = events;

    const localRoutes: LocalRoute[] = [
      {
        method: 'GET',
        path: JWKS_PATH,
        handle: async (_req, _body, res) => {
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify(issuer.jwks));
        },
      },
      {
        // The local stand-in for onboarding an integration and its token request.
        method: 'POST',
        path: TOKEN_PATH,
        handle: async (_req, body, res) => {
          res.setHeader('Content-Type', 'application/json');
          let parsed: v.InferOutput<typeof TokenRequest>;
          try {
            parsed = v.parse(TokenRequest, JSON.parse(body.toString('utf8') || '{}'));
          } catch (error) {
            res.statusCode = 400;
            res.end(JSON.stringify({ error: { type: 'invalid_request', message: error instanceof Error ? error.message : 'invalid' } }));
            return;
          }
          const clientId = `local-${parsed.workspace}`;
          // The registry bounds a client's scopes (as an app client's allowed scopes do): the local
          // client of a workspace is allowed every scope it was ever given a token for, so tokens
          // handed out before keep what they were granted.
          const before = await findApiClient(db, LOCAL_TABLE_NAME, clientId);
          const scopes = [...new Set([...(before?.scopes ?? []), ...parsed.scopes])];
          await registerApiClient(db, LOCAL_TABLE_NAME, {
            api_client_id: clientId,
            workspace_id: parsed.workspace,
            name: `Local integration of ${parsed.workspace}`,
            scopes,
            plan: parsed.plan,
            api_key_id: clientId,
            usage_key: localUsageKey(clientId),
          });
          // The authorizer (in this process) caches registrations for a minute: without this, a
          // token with newly added scopes would get 403 on them for up to that long.
          const authorizer = (await import(pathToFileURL(resolve(options.repoRoot, AUTHORIZER_ENTRY)).href)) as { forgetRegistration(id: string): void };
          authorizer.forgetRegistration(clientId);
          const token = issuer.mint({ clientId, scopes: parsed.scopes, ttlSeconds: parsed.expires_in });
          res.end(
            JSON.stringify({
              access_token: token,
              token_type: 'Bearer',
              expires_in: parsed.expires_in,
              scope: parsed.scopes.join(' '),
              workspace_id: parsed.workspace,
              client_id: clientId,
            }),
          );
        },
      },
      {
        method: 'POST',
        path: BILLING_SCHEDULE_PATH,
        // What the EventBridge Scheduler schedule's invocation does in AWS, at the instant given.
        handle: async (_req, body, res) => {
          res.setHeader('Content-Type', 'application/json');
          const at = new Date(String((JSON.parse(body.toString('utf8') || '{}') as { at?: unknown }).at));
          if (Number.isNaN(at.getTime())) {
            res.statusCode = 400;
            res.end(JSON.stringify({ error: { type: 'invalid_request', message: 'at must be a date-time, such as 2026-12-01T05:00:00Z' } }));
            return;
          }
          const { sweepBillingSchedules } = await import(pathToFileURL(resolve(options.repoRoot, 'shared/domain/billing-runs.ts')).href) as typeof import('../../shared/domain/billing-runs.ts');
          res.end(JSON.stringify({ at: at.toISOString(), started: await sweepBillingSchedules(at) }));
        },
      },
    ];
    const server: Server = createLocalGateway({
      repoRoot: options.repoRoot,
      localRoutes,
      ...(options.throttling ? { throttling: options.throttling } : {}),
      ...(options.clientLimits ? { clientLimits: options.clientLimits } : {}),
      invalidTokenKey: LOCAL_INVALID_TOKEN_API_KEY,
      // Its writes are in the stream now: the poller reads them within 100 ms of its last read, not after an idle pause of up to 1 s.
      afterWriteRequest: started.nudge,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => resolve());
    });
    const { onDynamoDbDeath } = options;
    const supervisor = onDynamoDbDeath ? superviseDynamoDbLocal(dynamo, { dataDir: options.dataDir }, onDynamoDbDeath) : undefined;
    return {
      baseUrl,
      dynamo,
      tableName: LOCAL_TABLE_NAME,
      issuer,
      deliveries: started.deliveries,
      billing: started.billing,
      events: { pause: started.pause, resume: started.resume },
      stop: async ({ graceMs = 0 } = {}) => {
        supervisor?.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        if (graceMs > 0) await waitAtMost(closed, graceMs);
        server.closeAllConnections();
        await closed;
        // The poller and the deliveries, then the table.
        await started.stop();
        client.destroy();
        await stopDynamo();
      },
    };
  } catch (error) {
    await events?.stop();
    await stopDynamo();
    throw error;
  }
}

type LocalEvents = Awaited<ReturnType<typeof startEvents>>;

/**
 * The events pipeline, as in AWS: the stream consumer (the same handler, fed by a local stream
 * poller) and webhook deliveries (the same attempt code and retry schedule, on a local scheduler
 * standing in for SQS). Loaded after the environment is set, as Lambda would load them.
 */
async function startEvents(options: LocalStackOptions, client: DynamoDBClient, endpoint: string) {
  const baseMs = options.webhookRetryBaseMs ?? AWS_RETRY_BASE_MS;
  const background = BACKGROUND_FUNCTIONS as readonly BackgroundFunction[];
  const streamConsumer = background.find((f) => f.trigger === 'table-stream');
  if (streamConsumer?.trigger !== 'table-stream') throw new Error('No stream consumer in BACKGROUND_FUNCTIONS');
  // The same module instances as the handlers the gateway loads (same URLs), so useDeliveryQueue reaches the consumer's.
  const load = <T>(entry: string) => import(pathToFileURL(join(options.repoRoot, entry)).href) as Promise<T>;
  const { attemptDelivery } = await load<typeof import('../../shared/webhooks/attempt.ts')>('shared/webhooks/attempt.ts');
  const { useDeliveryQueue } = await load<typeof import('../../shared/webhooks/queue.ts')>('shared/webhooks/queue.ts');
  const consumer = await load<{ handler: (event: DynamoDBStreamEvent) => Promise<void> }>(streamConsumer.entry);
  const { workOn, giveUp } = await load<typeof import('../../shared/billing/work.ts')>('shared/billing/work.ts');
  const { useBillingQueue } = await load<typeof import('../../shared/billing/run-queue.ts')>('shared/billing/run-queue.ts');
  const billingWorker = background.find((f) => f.trigger === 'queue' && f.queue === 'billing');
  const billing = startLocalBillingQueue({
    work: workOn,
    giveUp,
    maxReceives: (billingWorker?.trigger === 'queue' ? billingWorker.maxReceives : undefined) ?? 5,
    retryMs: options.billingRetryMs ?? 1000,
    ...(options.dataDir ? { stateFile: join(options.dataDir, 'billing-queue.json') } : {}),
    onError: (error, message) => console.error(`Billing work failed (${message.kind} of ${message.run_id}; retried, then given up): ${oneLine(error)}`),
  });
  useBillingQueue(billing);
  const deliveries = startLocalDeliveries({
    schedule: retrySchedule(baseMs),
    attempt: attemptDelivery,
    ...(options.dataDir ? { stateFile: join(options.dataDir, 'webhook-deliveries.json') } : {}),
    onError: (error) => console.error(`Webhook delivery could not run (retried later): ${oneLine(error)}`),
  });
  useDeliveryQueue(deliveries);
  try {
    const poller = await startStreamPoller({
      client,
      endpoint,
      region: LOCAL_AWS_ENV.AWS_REGION,
      tableName: LOCAL_TABLE_NAME,
      ...(options.dataDir ? { checkpointFile: join(options.dataDir, 'stream-checkpoint.json') } : {}),
      ...(streamConsumer.batchSize ? { batchSize: streamConsumer.batchSize } : {}),
      handle: (records) => consumer.handler({ Records: records }),
      onError: (error) => console.error(`Reading or consuming the table's stream failed (tried again): ${oneLine(error)}`),
    });
    return {
      deliveries,
      billing,
      pause: () => poller.pause(),
      resume: () => poller.resume(),
      nudge: () => poller.nudge(),
      // Side by side: what the poller still queues while it finishes its batch goes to the state file.
      stop: async () => {
        await Promise.all([poller.stop(), deliveries.stop(), billing.stop()]);
        useDeliveryQueue(undefined);
        useBillingQueue(undefined);
      },
    };
  } catch (error) {
    await Promise.all([deliveries.stop(), billing.stop()]);
    useDeliveryQueue(undefined);
    useBillingQueue(undefined);
    throw error;
  }
}

/** An error as one line: the stack's output stays readable when DynamoDB Local fails. */
const oneLine = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0];

/** Kept with the issuer's keys, so cursors survive a restart over the same DATA_DIR. */
function cursorKey(stateDir: string): string {
  return readOrCreateOnce(join(stateDir, 'cursor-signing-key'), () => randomBytes(32).toString('base64url'))
    .toString('utf8')
    .trim();
}
