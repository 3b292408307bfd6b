/**
 * Hooks on the functions' own DynamoDB client, from the benchmark process: `dynamo()` in
 * shared/data/dynamo.ts is a module singleton and the document client shares its middleware
 * stack with the plain client (Powertools' idempotency store uses that one), so two middlewares
 * added here see every command any handler sends in this process, the local gateway's included.
 *
 * - `benchObserve` (initialize step, outermost): asks for `ReturnConsumedCapacity: INDEXES` and
 *   records each command, its input and the `ConsumedCapacity` it returned, `TransactWriteItems`
 *   included. In `intercept` mode it answers writes itself (nothing is written) and lets reads
 *   through, or answers them too, so that a handler's DynamoDB calls can be captured; a GetItem
 *   of an item a held-back write put is answered with that item.
 * - `benchTransport` (deserialize step, innermost: just in front of the HTTP handler): in
 *   `record` mode it keeps the raw HTTP responses of an invocation, each with its request; in
 *   `replay` mode it answers each request with its own (replayIndex) without any network, so the
 *   SDK still signs, serializes and parses everything.
 */
import { Readable } from 'node:stream';
import { dynamo } from '../../../shared/data/dynamo.ts';

export interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

export interface ObservedCall {
  /** The SDK command (`GetItemCommand`, `TransactWriteItemsCommand`, ...). */
  command: string;
  /** The input as the caller gave it (document-client inputs are plain JavaScript values). */
  input: Record<string, unknown>;
  consumed: ConsumedCapacity[];
  /** Query outputs: what was read (for floors computed from the items' sizes). */
  items?: Record<string, unknown>[];
  count?: number;
  scannedCount?: number;
  intercepted: boolean;
}

export interface RecordedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The request it answered (its X-Amz-Target and body): a replay gives it to the same request. */
  request: string;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

type ReadResponder = (call: { command: string; input: Record<string, unknown> }) => Record<string, unknown>;

interface State {
  capacity: boolean;
  log: ObservedCall[] | undefined;
  intercept: { reads: 'pass' | ReadResponder; held: Map<string, Record<string, unknown>> } | undefined;
  transport: { kind: 'pass' } | { kind: 'record'; into: RecordedResponse[] } | { kind: 'replay'; from: RecordedResponse[]; used: boolean[] };
}

const state: State = { capacity: false, log: undefined, intercept: undefined, transport: { kind: 'pass' } };
let installed = false;

const keyOf = (key: Record<string, unknown>) => `${String(key.PK)}|${String(key.SK)}`;

/** Keeps the items a held-back write put, so that a later GetItem of one in the same invocation finds it. */
function holdPuts(held: Map<string, Record<string, unknown>>, command: string, input: Record<string, unknown>): void {
  const puts =
    command === 'PutItemCommand'
      ? [input.Item]
      : command === 'TransactWriteItemsCommand'
        ? ((input.TransactItems ?? []) as { Put?: { Item: unknown } }[]).map((t) => t.Put?.Item)
        : [];
  for (const item of puts) if (item) held.set(keyOf(item as Record<string, unknown>), item as Record<string, unknown>);
}

/** A GetItem of an item a held-back write put: answered with it (a create that reads back what it wrote, as an invoice's build reads its plan). */
function heldItemFor(held: Map<string, Record<string, unknown>>, command: string, input: Record<string, unknown>): Record<string, unknown> | undefined {
  if (command !== 'GetItemCommand' || !input.Key) return undefined;
  const item = held.get(keyOf(input.Key as Record<string, unknown>));
  return item ? { Item: item } : undefined;
}

const UTF8 = new TextDecoder();

/** A request as sent: its operation (X-Amz-Target) and its body. */
function requestOf(args: unknown): string {
  const { headers, body } = (args as { request: { headers: Record<string, string>; body?: unknown } }).request;
  // Decoded as bytes: Buffer.from() would call the SDK's body's valueOf(), which warns on stderr.
  const text = typeof body === 'string' ? body : body instanceof Uint8Array ? UTF8.decode(body) : '';
  return `${headers['x-amz-target'] ?? ''}\n${text}`;
}

/**
 * The recorded answer for a request of a replay: the first unused one recorded for the same
 * request, else for the same operation (a write's body holds the time of the call). Answers come
 * back in any order when calls run at once (a finalize reads the invoice and the workspace's
 * counter together), and requests go out in any order, so neither order can pair them.
 */
function replayIndex(replay: { from: RecordedResponse[]; used: boolean[] }, request: string): number {
  const operation = request.slice(0, request.indexOf('\n'));
  const unused = (test: (recorded: RecordedResponse) => boolean) => replay.from.findIndex((recorded, i) => !replay.used[i] && test(recorded));
  let index = unused((recorded) => recorded.request === request);
  if (index === -1) index = unused((recorded) => recorded.request.startsWith(`${operation}\n`));
  if (index === -1) throw new Error(`Nothing recorded left to answer ${operation || 'a request'}: the replayed call sent more than its recording (rewindReplay() starts each invocation)`);
  replay.used[index] = true;
  return index;
}

export function installHooks(): void {
  if (installed) return;
  installed = true;
  const stack = dynamo().middlewareStack;
  stack.add(
    ((next: (args: unknown) => Promise<{ output: Record<string, unknown> }>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const command = context.commandName ?? 'unknown';
        if (state.capacity) args.input.ReturnConsumedCapacity = 'INDEXES';
        const entry: ObservedCall = { command, input: { ...args.input }, consumed: [], intercepted: false };
        const held = state.intercept && !WRITES.has(command) && state.intercept.reads === 'pass' ? heldItemFor(state.intercept.held, command, entry.input) : undefined;
        if (state.intercept && (WRITES.has(command) || state.intercept.reads !== 'pass' || held)) {
          entry.intercepted = true;
          state.log?.push(entry);
          if (WRITES.has(command)) holdPuts(state.intercept.held, command, entry.input);
          const output = WRITES.has(command) ? {} : held ?? (state.intercept.reads as ReadResponder)({ command, input: entry.input });
          return { output: { $metadata: {}, ...output }, response: {} };
        }
        const result = await next(args);
        const out = result.output;
        const consumed = out.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined;
        entry.consumed = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
        if (Array.isArray(out.Items)) {
          entry.items = out.Items as Record<string, unknown>[];
          entry.count = out.Count as number;
          entry.scannedCount = out.ScannedCount as number;
        }
        state.log?.push(entry);
        return result;
      }) as never,
    { step: 'initialize', priority: 'high', name: 'benchObserve', override: true },
  );
  stack.add(
    ((next: (args: unknown) => Promise<{ response: Omit<RecordedResponse, 'request'> & { body: Readable } }>) => async (args: unknown) => {
      const transport = state.transport;
      if (transport.kind === 'pass') return next(args);
      const request = requestOf(args);
      if (transport.kind === 'replay') {
        const recorded = transport.from[replayIndex(transport, request)]!;
        return { response: { statusCode: recorded.statusCode, headers: { ...recorded.headers }, body: Readable.from(recorded.body) } };
      }
      const result = await next(args);
      const chunks: Buffer[] = [];
      for await (const chunk of result.response.body) chunks.push(Buffer.from(chunk as Uint8Array));
      const body = Buffer.concat(chunks);
      transport.into.push({ statusCode: result.response.statusCode, headers: { ...result.response.headers }, body, request });
      return { ...result, response: { ...result.response, body: Readable.from(body) } };
    }) as never,
    { step: 'deserialize', priority: 'low', name: 'benchTransport', override: true },
  );
}

/** Runs `fn` and returns every DynamoDB command it sent, with the capacity each consumed. */
export async function observe<T>(fn: () => Promise<T>): Promise<{ result: T; calls: ObservedCall[] }> {
  const before = { capacity: state.capacity, log: state.log };
  const calls: ObservedCall[] = [];
  state.capacity = true;
  state.log = calls;
  try {
    return { result: await fn(), calls };
  } finally {
    state.capacity = before.capacity;
    state.log = before.log;
  }
}

/**
 * Runs `fn` with its writes answered here (nothing is written) and its reads let through, or
 * answered by `reads`; returns the commands it tried to send.
 */
export async function intercept<T>(fn: () => Promise<T>, reads: 'pass' | ReadResponder = 'pass'): Promise<{ result: T; calls: ObservedCall[] }> {
  const before = { log: state.log, intercept: state.intercept };
  const calls: ObservedCall[] = [];
  state.log = calls;
  state.intercept = { reads, held: new Map() };
  try {
    return { result: await fn(), calls };
  } finally {
    state.log = before.log;
    state.intercept = before.intercept;
  }
}

/** Runs `fn` against DynamoDB Local and keeps the raw HTTP responses it received, each with its request. */
export async function record<T>(fn: () => Promise<T>): Promise<{ result: T; responses: RecordedResponse[] }> {
  const responses: RecordedResponse[] = [];
  state.transport = { kind: 'record', into: responses };
  try {
    return { result: await fn(), responses };
  } finally {
    state.transport = { kind: 'pass' };
  }
}

/** From now until `stopReplay()`, every request is answered from `responses`, each once per pass (replayIndex), with no network. */
export function startReplay(responses: RecordedResponse[]): void {
  if (responses.length === 0) throw new Error('Nothing to replay');
  state.transport = { kind: 'replay', from: responses, used: [] };
}

/** Starts a new pass over the recording (one invocation = one pass). */
export function rewindReplay(): void {
  if (state.transport.kind === 'replay') state.transport.used = [];
}

export function stopReplay(): void {
  state.transport = { kind: 'pass' };
}

/** Total units of a set of calls, split by table and index. */
export interface Units {
  total: number;
  read: number;
  write: number;
  table: number;
  indexes: Record<string, number>;
}

export function unitsOf(calls: readonly ObservedCall[]): Units {
  const units: Units = { total: 0, read: 0, write: 0, table: 0, indexes: {} };
  for (const call of calls) {
    const isWrite = WRITES.has(call.command);
    for (const c of call.consumed) {
      const total = c.CapacityUnits ?? 0;
      units.total += total;
      if (isWrite) units.write += total;
      else units.read += total;
      units.table += c.Table?.CapacityUnits ?? 0;
      for (const [name, index] of Object.entries(c.GlobalSecondaryIndexes ?? {})) {
        units.indexes[name] = (units.indexes[name] ?? 0) + (index.CapacityUnits ?? 0);
      }
    }
  }
  return units;
}

export const isWriteCommand = (command: string) => WRITES.has(command);
