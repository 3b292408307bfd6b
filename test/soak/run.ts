/**
 * `npm run soak`: a bounded run of mixed reads and writes at the stage's rate limit, from several
 * API clients, against a local stack started as `npm start` starts it (its own process, on free
 * loopback ports, stopped at the end on every exit path). Reports errors by status, p50/p99 per
 * minute and the gateway's RSS at start and end, then checks the data's invariants.
 *
 *   npm run soak                                  # 60 s, 4 API clients
 *   npm run soak -- --duration 300 --clients 8    # longer, more clients (or SOAK_DURATION_SECONDS)
 *   npm run soak -- --write [--note "..."]        # also record the run in docs/benchmarks.md
 *
 * Exits 1 when the target is missed (an error other than 429, RSS growth of 50 MiB or more, or a
 * broken invariant).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_AWS_ENV, freePort } from '../../infra/local/dynamodb.ts';
import { keys } from '../../shared/data/keys.ts';
import { DATA_ATTRIBUTE } from '../../shared/data/table.ts';
import { SCOPES } from '../../shared/api/routes.ts';
import { STAGE_THROTTLING } from '../../infra/names.ts';
import { quantile } from '../bench/lib/stats.ts';
import { renderSoakSection, soakVerdict, withSoakSection, type SoakResult } from './report.ts';
import { parseCommandLine } from '../../scripts/cli.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const USAGE = [
  'Usage: npm run soak -- [--duration <s>] [--clients <n>] [--concurrency <n>] [--rate <requests/s>] [--write [--note <text>]]',
  '  --duration     seconds of load, 1 to 86400 (default 60, or SOAK_DURATION_SECONDS)',
  '  --clients      API clients, 1 to 100 (default 4)',
  '  --concurrency  loops per API client, 1 to 64 (default 4)',
  `  --rate         requests per second in all, 1 to 10000 (default the stage's ${STAGE_THROTTLING.rateLimit})`,
  '  --write        record the run in docs/benchmarks.md, with --note beside it',
].join('\n');
const { values: args } = parseCommandLine(
  {
    options: {
      duration: { type: 'string', default: process.env.SOAK_DURATION_SECONDS ?? '60' },
      clients: { type: 'string', default: '4' },
      /** Loops per API client: requests of one client overlap, as an integration's workers do. */
      concurrency: { type: 'string', default: '4' },
      rate: { type: 'string', default: String(STAGE_THROTTLING.rateLimit) },
      write: { type: 'boolean', default: false },
      note: { type: 'string' },
    },
  },
  USAGE,
);
const positiveInt = (name: string, value: string, max: number) => {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1 && n <= max) return n;
  console.error(`--${name} must be an integer from 1 to ${max}, not '${value}'\n${USAGE}`);
  process.exit(2);
};
const durationSeconds = positiveInt('duration', args.duration, 24 * 3600);
const apiClients = positiveInt('clients', args.clients, 100);
const rate = positiveInt('rate', args.rate, 10_000);
const concurrency = positiveInt('concurrency', args.concurrency, 64);
const log = (line: string) => process.stderr.write(`${line}\n`);

// ---- The local stack, in its own process --------------------------------------------------
const port = await freePort();
const stack = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
  cwd: repoRoot,
  env: {
    ...process.env,
    PORT: String(port),
    AWS_LAMBDA_LOG_LEVEL: 'WARN',
    // The soak is about the stage's limit: each API client's own bucket (its usage plan, far
    // below the stage's) is raised to the stage's, or most requests would be its 429s.
    CLIENT_RATE_LIMIT: String(STAGE_THROTTLING.rateLimit),
    CLIENT_BURST_LIMIT: String(STAGE_THROTTLING.burstLimit),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stackOutput = '';
stack.stdout!.on('data', (chunk: Buffer) => (stackOutput += chunk.toString()));
stack.stderr!.on('data', (chunk: Buffer) => (stackOutput += chunk.toString()));
const stackExited = new Promise<void>((done) => stack.once('exit', () => done()));
process.once('exit', () => stack.kill('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const base = `http://127.0.0.1:${port}`;
for (const deadline = Date.now() + 120_000; !/API on /.test(stackOutput); ) {
  if (stack.exitCode !== null || Date.now() > deadline) throw new Error(`the local stack did not start:\n${stackOutput}`);
  await sleep(100);
}
const dynamoEndpoint = /DynamoDB Local on (http:\/\/127\.0\.0\.1:\d+)/.exec(stackOutput)![1]!;
const rssMiB = () => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${stack.pid}/status`, 'utf8'))![1]) / 1024);

// ---- The API clients -----------------------------------------------------------------------
interface Sample {
  at: number;
  ms: number;
  status: string;
}
const samples: Sample[] = [];
/** The first few answers other than 2xx and 429, to say what went wrong. */
const errorSamples: string[] = [];

interface Model {
  workspace: string;
  token: string;
  clients: string[];
  /** `busy`: time entries being logged on it; a project is deleted only when idle and empty. */
  projects: { id: string; clientId: string; entries: number; busy: number }[];
  entries: { id: string; projectId: string }[];
}

async function mint(workspace: string): Promise<string> {
  const response = await fetch(`${base}/_local/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ workspace, scopes: SCOPES, expires_in: 86_400 }),
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function request(m: Model, method: string, path: string, body?: unknown, idempotent = false): Promise<any> {
  const started = performance.now();
  let status = 'network error';
  let parsed: any;
  try {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${m.token}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(idempotent ? { 'Idempotency-Key': randomUUID() } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    status = String(response.status);
    parsed = await response.json();
    if (!status.startsWith('2') && status !== '429' && errorSamples.length < 10) errorSamples.push(`${method} ${path}: ${status} ${JSON.stringify(parsed)}`);
  } catch {
    /* counted as a network error */
  }
  samples.push({ at: Date.now(), ms: performance.now() - started, status });
  return status.startsWith('2') ? parsed : undefined;
}

const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

/** One step of the mix; every target is one this client knows to exist, so any 4xx is a finding. */
async function step(m: Model): Promise<void> {
  const roll = Math.random();
  const client = pick(m.clients);
  const project = pick(m.projects);
  const idempotent = Math.random() < 0.5;
  if (roll < 0.2 || !client) {
    const created = await request(m, 'POST', '/clients', { company_name: `Soak ${randomUUID().slice(0, 8)}`, company_email: 'soak@example.test' }, idempotent);
    if (created) m.clients.push(created.id);
  } else if (roll < 0.3) {
    const created = await request(m, 'POST', '/projects', { name: 'Soak project', client_id: client, billing_type: 'Monthly', hourly_rate: 120 }, idempotent);
    if (created) m.projects.push({ id: created.id, clientId: client, entries: 0, busy: 0 });
  } else if (roll < 0.45 && project) {
    project.busy++;
    const created = await request(m, 'POST', '/time_entries', { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 }, idempotent);
    project.busy--;
    if (created) (m.entries.push({ id: created.id, projectId: project.id }), project.entries++);
  } else if (roll < 0.5) {
    // (Concurrent PATCHes without If-Match: the last one wins, as documented.)
    await request(m, 'PATCH', `/clients/${client}`, { company_name: `Renamed ${randomUUID().slice(0, 8)}` }, idempotent);
  } else if (roll < 0.55 && m.entries.length > 0) {
    const entry = m.entries.splice(Math.floor(Math.random() * m.entries.length), 1)[0]!;
    if (await request(m, 'DELETE', `/time_entries/${entry.id}`)) m.projects.find((p) => p.id === entry.projectId)!.entries--;
    else m.entries.push(entry);
  } else if (roll < 0.58 && project && project.entries === 0 && project.busy === 0) {
    m.projects.splice(m.projects.indexOf(project), 1); // no other loop picks it meanwhile
    if (!(await request(m, 'DELETE', `/projects/${project.id}`))) m.projects.push(project);
  } else if (roll < 0.7) {
    await request(m, 'GET', pick(['/clients?limit=25', '/projects?limit=25', '/time_entries?limit=25'])!);
  } else {
    const target = pick([`/clients/${client}`, ...(project ? [`/projects/${project.id}`] : [])])!;
    await request(m, 'GET', target);
  }
}

const models: Model[] = [];
for (let i = 0; i < apiClients; i++) {
  const workspace = `soak-${i}-${randomUUID().slice(0, 6)}`;
  models.push({ workspace, token: await mint(workspace), clients: [], projects: [], entries: [] });
}

// `concurrency` loops per API client, all paced together at `rate` requests per second. The loops
// of a client share its model, so none deletes what another is using.
log(`soak: ${durationSeconds} s, ${apiClients} API clients, ${rate} req/s, against ${base}`);
const startedAt = Date.now();
const endsAt = startedAt + durationSeconds * 1000;
const rssStart = rssMiB();
let nextSlot = startedAt;
const paced = async () => {
  const slot = (nextSlot = Math.max(nextSlot + 1000 / rate, Date.now()));
  await sleep(slot - Date.now());
};
const minuteTimer = setInterval(() => log(`soak: ${Math.round((Date.now() - startedAt) / 1000)} s, ${samples.length} requests, RSS ${rssMiB()} MiB`), 15_000);
await Promise.all(
  models.flatMap((m) =>
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < endsAt) {
        await paced();
        if (Date.now() >= endsAt) break;
        await step(m);
      }
    }),
  ),
);
clearInterval(minuteTimer);
const rssEnd = rssMiB();

// ---- Invariants over the data (read straight from DynamoDB Local) ----------------------------
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ endpoint: dynamoEndpoint, region: LOCAL_AWS_ENV.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
);
const tableName = 'timebill-local';
const invariants = { workspaces: models.length, clients: 0, projects: 0, timeEntries: 0, violations: [] as string[] };
for (const m of models) {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.item(m.workspace, 'CLIENT', 'x').PK },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  // An item keeps its API fields in its data map, its deletion-guard counters beside it.
  const of = (kind: string) =>
    items.filter((i) => String(i.SK).startsWith(`${kind}#`)).map((i) => ({ ...i, ...((i[DATA_ATTRIBUTE] as Record<string, any> | undefined) ?? {}) }));
  const clients = of('CLIENT');
  const projects = of('PROJECT');
  const entries = of('TIME_ENTRY');
  invariants.clients += clients.length;
  invariants.projects += projects.length;
  invariants.timeEntries += entries.length;
  const clientIds = new Set(clients.map((c) => c.id));
  const projectIds = new Set(projects.map((p) => p.id));
  const v = (what: string) => invariants.violations.push(`${m.workspace}: ${what}`);
  for (const c of clients) {
    const projectsOf = projects.filter((p) => p.client_id === c.id).length;
    const entriesOf = entries.filter((e) => e.client_id === c.id).length;
    if (Number(c.project_count ?? 0) !== projectsOf) v(`client ${c.id} project_count ${c.project_count}, has ${projectsOf}`);
    if (Number(c.time_entry_count ?? 0) !== entriesOf) v(`client ${c.id} time_entry_count ${c.time_entry_count}, has ${entriesOf}`);
  }
  for (const p of projects) {
    const entriesOf = entries.filter((e) => e.project_id === p.id).length;
    if (Number(p.time_entry_count ?? 0) !== entriesOf) v(`project ${p.id} time_entry_count ${p.time_entry_count}, has ${entriesOf}`);
    if (!clientIds.has(p.client_id)) v(`project ${p.id} of missing client ${p.client_id}`);
  }
  for (const e of entries) {
    if (!clientIds.has(e.client_id)) v(`time entry ${e.id} of missing client ${e.client_id}`);
    if (e.project_id && !projectIds.has(e.project_id)) v(`time entry ${e.id} of missing project ${e.project_id}`);
  }
  // What the API said it created and did not delete exists, and nothing more.
  if (clients.length !== m.clients.length) v(`${clients.length} clients stored, ${m.clients.length} created`);
  if (projects.length !== m.projects.length) v(`${projects.length} projects stored, ${m.projects.length} live`);
  if (entries.length !== m.entries.length) v(`${entries.length} time entries stored, ${m.entries.length} live`);
}
db.destroy();

stack.kill('SIGTERM');
await Promise.race([stackExited, sleep(5000)]);

// ---- Report --------------------------------------------------------------------------------
const byStatus: Record<string, number> = {};
for (const s of samples) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
const perMinute: SoakResult['perMinute'] = [];
// A request answered just after the end counts in the last minute.
const lastMinute = Math.max(0, Math.ceil((endsAt - startedAt) / 60_000) - 1);
for (let minute = 0; minute <= lastMinute; minute++) {
  const ms = samples.filter((s) => Math.min(lastMinute, Math.floor((s.at - startedAt) / 60_000)) === minute).map((s) => s.ms);
  if (ms.length > 0) perMinute.push({ minute, requests: ms.length, p50: Math.round(quantile(ms, 0.5)), p99: Math.round(quantile(ms, 0.99)) });
}
const javaVersion = spawnSync('java', ['-version'], { encoding: 'utf8' });
const result: SoakResult = {
  date: new Date().toISOString(),
  command: `npm run soak -- --duration ${durationSeconds} --clients ${apiClients} --concurrency ${concurrency}`,
  machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; ${(javaVersion.stderr || '').split('\n')[0]}`,
  durationSeconds,
  apiClients,
  targetRate: rate,
  requests: samples.length,
  byStatus,
  perMinute,
  rss: { startMiB: rssStart, endMiB: rssEnd, growthMiB: rssEnd - rssStart },
  invariants,
  ...(args.note ? { note: args.note } : {}),
};
const verdict = soakVerdict(result);
console.log(JSON.stringify(result, null, 1));
for (const sample of errorSamples) log(`soak: ${sample}`);
log(verdict.met ? 'soak: target met' : `soak: target missed: ${verdict.reasons.join('; ')}`);
if (args.write) {
  const path = join(repoRoot, 'docs/benchmarks.md');
  writeFileSync(path, withSoakSection(readFileSync(path, 'utf8'), renderSoakSection(result)));
  log('soak: wrote its section of docs/benchmarks.md');
}
process.exit(verdict.met ? 0 : 1);

function sleep(ms: number) {
  return new Promise((done) => setTimeout(done, Math.max(0, ms)));
}
