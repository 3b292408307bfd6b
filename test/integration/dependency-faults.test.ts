/**
 * Every dependency failure against every kind of call the domain makes: the handlers
 * run in process over the test stack's DynamoDB Local, and aws-sdk-client-mock makes exactly one
 * kind of call fail (as the SDK hands it over once its retries are spent); every other call goes
 * to DynamoDB Local. Each must end as 503 with Retry-After and the contract's body, with one log
 * line and nothing half-written; an idempotency record of a failed request is never replayed.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient, type AwsStub } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { routeByOperation } from '../../shared/api/routes.ts';
import { importHandler, lambdaContext, proxyEvent as event, useSharedTable, type ProxyHandler } from '../support/in-process.ts';
import { keys } from '../../shared/data/keys.ts';
import { DEPENDENCY_ERRORS, transactionConflictCancellation, type DependencyErrorCase } from '../support/dependency-errors.ts';
import type { Server } from 'node:http';
import { createLocalGateway } from '../../infra/local/gateway.ts';
import { LOCAL_ISSUER } from '../../infra/local/issuer.ts';
import { JWKS_PATH } from '../../infra/local/stack.ts';
import { freePort } from '../../infra/local/dynamodb.ts';
import { valueWithLogs, type LogRecord } from '../support/logs.ts';
import { token as mintToken } from '../support/api.ts';

const handlers: Record<string, ProxyHandler> = {};
let docMock: AwsStub<any, any, any>;
let baseMock: AwsStub<any, any, any>;
let raw: DynamoDBDocumentClient;
const table = () => inject('tableName');

beforeAll(async () => {
  useSharedTable('dependency-faults-test-cursor-signing-key', {
    AWS_LAMBDA_LOG_LEVEL: 'WARN',
    // The authorizer of the in-process gateway below verifies the shared test stack's tokens.
    LOCAL_JWT_ISSUER: LOCAL_ISSUER,
    LOCAL_JWKS_URI: `${inject('baseUrl')}${JWKS_PATH}`,
    INVALID_TOKEN_API_KEY: 'dependency-faults-invalid-token-traffic',
  });
  for (const name of ['retrieveClient', 'listClients', 'createClient', 'updateClient', 'deleteClient', 'createProject'] as const) {
    handlers[name] = await importHandler(routeByOperation(name).entry);
  }
  const { dynamo, dynamoClient } = await import('../../shared/data/dynamo.ts');
  // Instance mocks: only the functions' clients; every call not stubbed goes to DynamoDB Local.
  docMock = mockClient(dynamo());
  baseMock = mockClient(dynamoClient());
  passThrough();
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1' }));
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // transactWrite's conflict backoff: short and fixed
});

afterEach(() => passThrough());
afterAll(() => {
  docMock?.restore();
  baseMock?.restore();
  raw?.destroy();
  vi.restoreAllMocks();
});

function passThrough() {
  docMock.reset();
  baseMock.reset();
  docMock.send.callThrough();
  baseMock.send.callThrough();
}

async function invoke(name: string, e: APIGatewayProxyEvent) {
  const result = await handlers[name]!(e, lambdaContext());
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) as any, requestId: e.requestContext.requestId };
}

const newWorkspace = () => `faults-${randomUUID().slice(0, 8)}`;
const createClient = async (ws: string) => {
  const r = await invoke('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Acme', company_email: 'a@acme.test' } }));
  expect(r.status).toBe(201);
  return r.body.id as string;
};

/** Every item of the workspace, its idempotency records included: what "nothing written" compares. */
async function snapshot(ws: string) {
  const items = [];
  for (const pk of [keys.item(ws, 'CLIENT', 'x').PK, keys.idempotencyPartition(ws)]) {
    const out = await raw.send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
  }
  return items;
}

/** One ERROR line, "Dependency failure", naming the dependency and what failed; nothing else at WARN or above. */
function expectOneFailure(lines: LogRecord[], fields: Record<string, unknown>) {
  expect(lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR')).toEqual([
    expect.objectContaining({ level: 'ERROR', message: 'Dependency failure', dependency: 'dynamodb', ...fields }),
  ]);
}

function expectServiceUnavailable(r: Awaited<ReturnType<typeof invoke>>, retryAfter: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers['Retry-After']).toBe(retryAfter);
  expect(r.headers['X-Request-Id']).toBe(r.requestId);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(r.body.error).toEqual({ type: 'service_unavailable', message: expect.stringContaining('Retry-After'), request_id: r.requestId });
}

interface CallKind {
  kind: string;
  command: new (input: any) => any;
  operation: string;
  /** Makes the data the call needs (through the real handlers), returns the request. */
  arrange: (ws: string) => Promise<APIGatewayProxyEvent>;
}

const CALL_KINDS: CallKind[] = [
  {
    kind: 'Get',
    command: GetCommand,
    operation: 'retrieveClient',
    arrange: async (ws) => event(ws, 'GET', '/api/v1/clients/{id}', { id: await createClient(ws) }),
  },
  { kind: 'Query', command: QueryCommand, operation: 'listClients', arrange: async (ws) => (await createClient(ws), event(ws, 'GET', '/api/v1/clients')) },
  {
    kind: 'conditional Put',
    command: PutCommand,
    operation: 'createClient',
    arrange: async (ws) => event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Beta', company_email: 'b@beta.test' } }),
  },
  {
    kind: 'conditional Update',
    command: UpdateCommand,
    operation: 'updateClient',
    arrange: async (ws) => event(ws, 'PATCH', '/api/v1/clients/{id}', { id: await createClient(ws), body: { company_name: 'Renamed' } }),
  },
  {
    // Every delete is a transaction now (a deletion record, or a counter, beside the item): refused whole.
    kind: 'TransactWrite (delete)',
    command: TransactWriteCommand,
    operation: 'deleteClient',
    arrange: async (ws) => event(ws, 'DELETE', '/api/v1/clients/{id}', { id: await createClient(ws) }),
  },
  {
    kind: 'TransactWrite',
    command: TransactWriteCommand,
    operation: 'createProject',
    arrange: async (ws) => event(ws, 'POST', '/api/v1/projects', { body: { name: 'Site', client_id: await createClient(ws), billing_type: 'Monthly' } }),
  },
];

/** A TransactWrite meets a conflict as a cancellation (which transactWrite retries, then gives up). */
const errorFor = (call: CallKind, c: DependencyErrorCase) =>
  call.kind.startsWith('TransactWrite') && c.label === 'TransactionConflictException' ? transactionConflictCancellation : c.make;

describe('every dependency failure x every kind of call: 503 with Retry-After, nothing half-written', () => {
  for (const call of CALL_KINDS) {
    for (const c of DEPENDENCY_ERRORS) {
      it(`${call.kind} failing with ${c.label}`, async () => {
        const ws = newWorkspace();
        const request = await call.arrange(ws);
        const before = await snapshot(ws);
        const make = errorFor(call, c);
        docMock.on(call.command).callsFake(() => Promise.reject(make()));

        const { value: r, lines } = await valueWithLogs(() => invoke(call.operation, request));
        const failedCalls = docMock.commandCalls(call.command).length;
        passThrough();

        expectServiceUnavailable(r, c.retryAfter);
        expect(failedCalls).toBeGreaterThan(0);
        const failures = lines.filter((l) => l.message === 'Dependency failure');
        expect(failures).toHaveLength(1);
        expect(failures[0]).toMatchObject({ operation: call.operation, requestId: r.requestId, attempts: expect.any(Number) });
        expect(String(failures[0]!.errorName)).toContain(c.label === 'TransactionConflictException' && call.kind.startsWith('TransactWrite') ? 'TransactionConflict' : c.label);
        expect(JSON.stringify(lines)).not.toMatch(/stack|    at /);
        expect(await snapshot(ws)).toEqual(before);
      });
    }
  }
});

describe('Idempotency-Key: a change exists exactly when its record does', () => {
  const throttled = DEPENDENCY_ERRORS[0]!;
  const timedOut = DEPENDENCY_ERRORS.find((c) => c.label === 'TimeoutError')!;
  const record = async (ws: string, key: string) =>
    (await raw.send(new GetCommand({ TableName: table(), Key: keys.idempotency(ws, `local-${ws}`, key), ConsistentRead: true }))).Item;
  const clientItem = async (ws: string, id: string) => (await raw.send(new GetCommand({ TableName: table(), Key: keys.item(ws, 'CLIENT', id), ConsistentRead: true }))).Item;

  /** A keyed write of each kind, on a fresh workspace, and what its change is once made. */
  const KEYED: { operation: string; arrange: (ws: string, key: string) => Promise<{ request: () => APIGatewayProxyEvent; changed: () => Promise<boolean> }> }[] = [
    {
      operation: 'createClient',
      arrange: async (ws, key) => ({
        request: () => event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Gamma', company_email: 'g@gamma.test' }, headers: { 'Idempotency-Key': key } }),
        changed: async () => (await snapshot(ws)).some((i) => String(i.SK).startsWith('CLIENT#')),
      }),
    },
    {
      operation: 'updateClient',
      arrange: async (ws, key) => {
        const id = await createClient(ws);
        return {
          request: () => event(ws, 'PATCH', '/api/v1/clients/{id}', { id, body: { company_name: 'Renamed' }, headers: { 'Idempotency-Key': key, 'If-Match': '"1"' } }),
          changed: async () => (await clientItem(ws, id))?.version === 2,
        };
      },
    },
    {
      operation: 'deleteClient',
      arrange: async (ws, key) => {
        const id = await createClient(ws);
        return { request: () => event(ws, 'DELETE', '/api/v1/clients/{id}', { id, headers: { 'Idempotency-Key': key } }), changed: async () => (await clientItem(ws, id)) === undefined };
      },
    },
    {
      operation: 'createProject',
      arrange: async (ws, key) => {
        const clientId = await createClient(ws);
        return {
          request: () => event(ws, 'POST', '/api/v1/projects', { body: { name: 'Site', client_id: clientId, billing_type: 'Monthly' }, headers: { 'Idempotency-Key': key } }),
          changed: async () => Number((await clientItem(ws, clientId))?.project_count) === 1,
        };
      },
    },
  ];

  for (const write of KEYED) {
    it(`${write.operation}: its transaction failing is a 503 with neither change nor record; the retry runs once, then replays`, async () => {
      const ws = newWorkspace();
      const key = randomUUID();
      const { request, changed } = await write.arrange(ws, key);
      docMock.on(TransactWriteCommand).callsFake(() => Promise.reject(throttled.make()));
      const { value: failed, lines: failedLines } = await valueWithLogs(() => invoke(write.operation, request()));
      expect(failedLines.map((l) => l.message)).toContain('Dependency failure');
      passThrough();
      expectServiceUnavailable(failed, '1');
      expect(await changed()).toBe(false);
      expect(await record(ws, key)).toBeUndefined();

      const retried = await invoke(write.operation, request());
      expect(retried.status, JSON.stringify(retried.body)).toBeLessThan(300);
      expect(retried.headers['Idempotent-Replayed']).toBeUndefined();
      expect(await changed()).toBe(true);
      expect((await record(ws, key))?.request_id).toBe(retried.requestId);
      const replayed = await invoke(write.operation, request());
      expect(replayed.headers['Idempotent-Replayed']).toBe('true');
      expect(replayed.body).toEqual(retried.body);
    });

    it(`${write.operation}: a transaction that landed, then timed out and was sent again, answers as the first (change and record once)`, async () => {
      const ws = newWorkspace();
      const key = randomUUID();
      const { request, changed } = await write.arrange(ws, key);
      // The attempt is written, its answer lost; the SDK sends the same transaction again.
      docMock.on(TransactWriteCommand).callsFakeOnce(async (input: any) => {
        const token = randomUUID();
        await raw.send(new TransactWriteCommand({ ...input, ClientRequestToken: token }));
        return raw.send(new TransactWriteCommand({ ...input, ClientRequestToken: token }));
      });
      const r = await invoke(write.operation, request());
      passThrough();
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      expect(r.headers['Idempotent-Replayed']).toBeUndefined();
      expect(await changed()).toBe(true);
      expect((await record(ws, key))?.request_id).toBe(r.requestId);
    });

    it(`${write.operation}: a transaction that landed but whose answer never came (503): the retry with the key replays it`, async () => {
      const ws = newWorkspace();
      const key = randomUUID();
      const { request, changed } = await write.arrange(ws, key);
      docMock.on(TransactWriteCommand).callsFakeOnce(async (input: any) => {
        await raw.send(new TransactWriteCommand(input));
        throw timedOut.make();
      });
      const { value: lost, lines: lostLines } = await valueWithLogs(() => invoke(write.operation, request()));
      expect(lostLines.map((l) => l.message)).toContain('Dependency failure');
      passThrough();
      expectServiceUnavailable(lost, '5');
      expect(await changed()).toBe(true);
      expect((await record(ws, key))?.request_id).toBe(lost.requestId);

      const retried = await invoke(write.operation, request());
      expect(retried.status, JSON.stringify(retried.body)).toBeLessThan(300);
      expect(retried.headers['Idempotent-Replayed']).toBe('true');
      expect(await changed()).toBe(true);
    });
  }

  it('a transaction held up on its key by another one until our retries run out: 409 idempotency_key_in_use; held up elsewhere: 503', async () => {
    const ws = newWorkspace();
    const clientId = await createClient(ws);
    const key = randomUUID();
    const before = await snapshot(ws);
    // Cancelled with [None, TransactionConflict]: a client create's parts are [its Put, the record's Put].
    docMock.on(TransactWriteCommand).callsFake(() => Promise.reject(transactionConflictCancellation()));
    const inUse = await invoke('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Held', company_email: 'h@held.test' }, headers: { 'Idempotency-Key': key } }));
    // A project create's second part is its client's counter: a conflict there is the database being busy.
    const { value: busy, lines: busyLines } = await valueWithLogs(() =>
      invoke('createProject', event(ws, 'POST', '/api/v1/projects', { body: { name: 'Site', client_id: clientId, billing_type: 'Monthly' }, headers: { 'Idempotency-Key': randomUUID() } })),
    );
    passThrough();
    expect(inUse.status, JSON.stringify(inUse.body)).toBe(409);
    expect(inUse.body.error).toMatchObject({ type: 'idempotency_key_in_use', param: 'Idempotency-Key' });
    expect(inUse.headers['Retry-After']).toBe('1');
    expectServiceUnavailable(busy, '1');
    expect(busyLines.map((l) => l.message)).toContain('Dependency failure');
    expect(await snapshot(ws)).toEqual(before);
    expect((await invoke('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Held', company_email: 'h@held.test' }, headers: { 'Idempotency-Key': key } }))).status).toBe(201);
  });

  it('20 identical creates raced in process: one project, one record naming it, counted once', async () => {
    const ws = newWorkspace();
    const clientId = await createClient(ws);
    const key = randomUUID();
    const request = () =>
      event(ws, 'POST', '/api/v1/projects', { body: { name: 'Race', client_id: clientId, billing_type: 'Monthly' }, headers: { 'Idempotency-Key': key } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => invoke('createProject', request())));
    for (const a of answers) {
      if (a.status === 409) expect(a.body.error.type).toBe('idempotency_key_in_use');
      else expect(a.status, JSON.stringify(a.body)).toBe(201);
    }
    const projects = (await snapshot(ws)).filter((i) => String(i.SK).startsWith('PROJECT#'));
    expect(projects).toHaveLength(1);
    const stored = await record(ws, key);
    expect(JSON.parse(String(stored?.body)).id).toBe(projects[0]!.data.id);
    expect(answers.filter((a) => a.status === 201 && a.headers['Idempotent-Replayed'] === undefined).map((a) => a.requestId)).toEqual([stored?.request_id]);
    expect(Number((await clientItem(ws, clientId))?.project_count)).toBe(1);
  });

  it('without a key, writes cost what they did: a client create is one conditional Put, a PATCH one Update', async () => {
    const ws = newWorkspace();
    docMock.resetHistory();
    const id = await createClient(ws);
    expect((await invoke('updateClient', event(ws, 'PATCH', '/api/v1/clients/{id}', { id, body: { company_name: 'Renamed' } }))).status).toBe(200);
    expect(docMock.calls().map((c) => c.args[0].constructor.name)).toEqual(['PutCommand', 'UpdateCommand']);
    expect(await snapshot(ws)).toHaveLength(1);
  });

  it('a create whose timed-out attempt had been written: the retry meets our own item, 201 and one client', async () => {
    const ws = newWorkspace();
    // What the SDK surfaces when an attempt is written but times out and its retry fails the
    // condition: the first attempt's write, then the retry's ConditionalCheckFailed (with ALL_OLD).
    docMock.on(PutCommand).callsFakeOnce(async (input: any) => {
      await raw.send(new PutCommand({ TableName: input.TableName, Item: input.Item }));
      return raw.send(new PutCommand(input));
    });
    const r = await invoke('createClient', event(ws, 'POST', '/api/v1/clients', { body: { company_name: 'Once', company_email: 'o@once.test' } }));
    passThrough();
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const clients = (await snapshot(ws)).filter((i) => String(i.SK).startsWith('CLIENT#'));
    expect(clients.map((c) => c.SK)).toEqual([`CLIENT#${r.body.id}`]);
  });

  it('an update whose timed-out attempt had been written: 200 with that version, applied once (also under If-Match)', async () => {
    const ws = newWorkspace();
    const id = await createClient(ws);
    // The first attempt's write, then the retry's condition failure, as the SDK would surface it.
    docMock.on(UpdateCommand).callsFakeOnce(async (input: any) => {
      await raw.send(new UpdateCommand({ ...input, ReturnValues: 'NONE' }));
      return raw.send(new UpdateCommand(input));
    });
    const r = await invoke('updateClient', event(ws, 'PATCH', '/api/v1/clients/{id}', { id, body: { company_name: 'Renamed once' }, headers: { 'If-Match': '"1"' } }));
    passThrough();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.company_name).toBe('Renamed once');
    expect(r.headers.ETag).toBe('"2"');
    const stored = await raw.send(new GetCommand({ TableName: table(), Key: keys.item(ws, 'CLIENT', id), ConsistentRead: true }));
    expect(stored.Item?.version).toBe(2);
  });

  it('a bug is still a 500 internal_error, and its log keeps the stack', async () => {
    const ws = newWorkspace();
    const id = await createClient(ws);
    docMock.on(GetCommand).callsFake(() => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'Item')")));
    const { value: r, lines } = await valueWithLogs(() => invoke('retrieveClient', event(ws, 'GET', '/api/v1/clients/{id}', { id })));
    passThrough();
    expect(r.status).toBe(500);
    expect(r.body.error.type).toBe('internal_error');
    expect(r.headers['Retry-After']).toBeUndefined();
    expect(JSON.stringify(lines)).toContain('stack');
  });
});

describe('through the local gateway (in process, so the same mocks apply)', () => {
  let gateway: Server;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    gateway = createLocalGateway({ repoRoot: resolve(import.meta.dirname, '../..'), throttling: { rateLimit: 1000, burstLimit: 1000 } });
    await new Promise<void>((done) => gateway.listen(port, '127.0.0.1', done));
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    gateway.closeAllConnections();
    await new Promise((done) => gateway.close(done));
  });

  const get = (token: string) => fetch(`${base}/api/v1/clients`, { headers: { Authorization: `Bearer ${token}` } });
  async function expectGateway503(response: Response, retryAfter: string) {
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(503);
    expect(response.headers.get('retry-after')).toBe(retryAfter);
    expect(body.error).toEqual({ type: 'service_unavailable', message: expect.stringContaining('Retry-After'), request_id: response.headers.get('x-request-id') });
  }

  it('the registry read failing in the authorizer: 503 AUTHORIZER_CONFIGURATION_ERROR, and the token works once it recovers (no cached 401)', async () => {
    const token = await mintToken(newWorkspace());
    docMock.on(GetCommand).callsFake(() => Promise.reject(DEPENDENCY_ERRORS[0]!.make()));
    const { value: failed, lines } = await valueWithLogs(() => get(token));
    passThrough();
    expectOneFailure(lines, { operation: 'authorizer', errorName: 'ThrottlingException' });
    expect(failed.headers.get('x-amzn-errortype')).toBe('AUTHORIZER_CONFIGURATION_ERROR');
    await expectGateway503(failed, '5');
    expect((await get(token)).status).toBe(200);
  });

  it("a handler's Query failing: the handler's 503 passes through the gateway", async () => {
    const token = await mintToken(newWorkspace());
    expect((await get(token)).status).toBe(200); // the policy is cached from here on
    docMock.on(QueryCommand).callsFake(() => Promise.reject(DEPENDENCY_ERRORS[1]!.make()));
    const { value: failed, lines } = await valueWithLogs(() => get(token));
    passThrough();
    expectOneFailure(lines, { operation: 'listClients', errorName: DEPENDENCY_ERRORS[1]!.label });
    await expectGateway503(failed, '1');
  });
});
