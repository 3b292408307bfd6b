/**
 * Section 5: scaling of list pages. Two workspaces, one with 100 and one with 10,000 clients,
 * projects and time entries (all projects of one client, all time entries on one project of it,
 * all ACTIVE, so that every list and filter holds the whole workspace's items of its kind).
 * Their items are made by the handlers themselves with the transport intercepted (so they are
 * exactly the items the domain writes, keyed by shared/data/keys.ts), then written with
 * BatchWriteItem. One name in a hundred holds `omega`, the others `alpha` (same length): the
 * search that matches 1 %. Time entries start a minute apart from ENTRIES_START, so a range of
 * started_at holds a known share of them. Each list is walked page by page with its cursors;
 * pages 1, 10 and 100 are measured (units and latency, median of a few repeats of the same page).
 */
import type { Operation } from '../../shared/api/routes.ts';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { intercept, observe, unitsOf, type ObservedCall } from './lib/sdk-hooks.ts';
import { invoke, type Caller, type Request } from './lib/invoke.ts';
import { median } from './lib/stats.ts';
import { clientBody, entryBody, projectBody } from './scenarios.ts';
import { pageFloor } from './units.ts';
import { DATA_ATTRIBUTE } from '../../shared/data/table.ts';

export interface ScaleWorkspace {
  size: number;
  caller: Caller;
  clientId: string;
  projectId: string;
  writeSeconds: number;
  /** The invoice whose payments a payment list walks (section 10). */
  invoiceId?: string;
}

const pad = (n: number) => String(n).padStart(5, '0');
const ENTRIES_START = Date.UTC(2026, 0, 1);
/** The started_at of the n-th time entry of a scale workspace. */
const minute = (n: number) => new Date(ENTRIES_START + n * 60_000).toISOString();
/** The range rows' bounds: the middle 90 % of the workspace's entries, by started_at. */
const middleRange = (ws: ScaleWorkspace) => ({ started_from: minute(Math.floor(ws.size * 0.05)), started_to: minute(Math.ceil(ws.size * 0.95)) });
const word = (n: number) => (n % 100 === 42 ? 'omega' : 'alpha');

/** The items a handler would write for `request`, without writing them (reads answered by `reads`). */
export async function itemsOf(repoRoot: string, caller: Caller, request: Request, reads?: (call: { command: string }) => Record<string, unknown>): Promise<Record<string, unknown>> {
  const { result, calls } = await intercept(() => invoke(repoRoot, caller, request), reads ?? 'pass');
  if (result.status >= 300) throw new Error(`${request.operation}: ${result.status} ${JSON.stringify(result.body)}`);
  return putItemOf(calls);
}

/** An item's API id: the API fields live in its data map. */
export const idOf = (item: Record<string, unknown>) => (item[DATA_ATTRIBUTE] as { id: string }).id;

function putItemOf(calls: readonly ObservedCall[]): Record<string, unknown> {
  for (const call of calls) {
    if (call.command === 'PutItemCommand') return call.input.Item as Record<string, unknown>;
    if (call.command === 'TransactWriteItemsCommand') {
      const put = (call.input.TransactItems as { Put?: { Item: Record<string, unknown> } }[]).find((t) => t.Put);
      if (put) return put.Put!.Item;
    }
  }
  throw new Error('No item written');
}

export async function buildScaleWorkspace(repoRoot: string, workspaceId: string, size: number, endpoint: string, tableName: string): Promise<ScaleWorkspace> {
  const caller: Caller = { workspaceId, apiClientId: `local-${workspaceId}` };
  const clients: Record<string, unknown>[] = [];
  const projects: Record<string, unknown>[] = [];
  const entries: Record<string, unknown>[] = [];
  for (let i = 0; i < size; i++) {
    clients.push(await itemsOf(repoRoot, caller, { operation: 'createClient', body: clientBody(i, { company_name: `Scale client ${pad(i)} ${word(i)}` }) }));
  }
  const clientId = idOf(clients[0]!);
  // createProject reads nothing; its transaction (project + the client's counter) is held back.
  for (let i = 0; i < size; i++) {
    projects.push(await itemsOf(repoRoot, caller, { operation: 'createProject', body: projectBody(i, clientId, { name: `Scale project ${pad(i)} ${word(i)}` }) }));
  }
  const project = projects[0]!;
  const projectId = idOf(project);
  for (let i = 0; i < size; i++) {
    entries.push(await itemsOf(repoRoot, caller, { operation: 'logTimeEntry', body: { ...entryBody(i, { project_id: projectId }), started_at: minute(i) } }, () => ({ Item: project })));
  }
  // The counters the held-back transactions would have left.
  Object.assign(clients[0]!, { project_count: size, time_entry_count: size });
  Object.assign(project, { time_entry_count: size });

  const started = performance.now();
  await writeItems(endpoint, tableName, [...clients, ...projects, ...entries]);
  return { size, caller, clientId, projectId, writeSeconds: (performance.now() - started) / 1000 };
}

/** Writes `items` with BatchWriteItem, 25 a request, four requests at a time, retrying what is left unprocessed. */
export async function writeItems(endpoint: string, tableName: string, items: readonly Record<string, unknown>[]): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1', maxAttempts: 10 });
  const db = DynamoDBDocumentClient.from(client);
  try {
    const batches: Record<string, unknown>[][] = [];
    for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
    let nextBatch = 0;
    const worker = async () => {
      while (nextBatch < batches.length) {
        let pending = batches[nextBatch++]!.map((Item) => ({ PutRequest: { Item } }));
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 20) throw new Error('BatchWriteItem kept leaving items unprocessed');
          const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  } finally {
    client.destroy();
  }
}

export interface ListVariant {
  key: string;
  operation: Operation;
  query: (ws: ScaleWorkspace) => Record<string, string>;
  /** The path's `{id}`: a nested list's parent (an invoice's payments). */
  id?: (ws: ScaleWorkspace) => string;
  /** Filtered by search: its cost grows with what it passes over. */
  search?: boolean;
}

export const LIST_VARIANTS: readonly ListVariant[] = [
  { key: 'clients', operation: 'listClients', query: () => ({}) },
  { key: 'clients by status (GSI1)', operation: 'listClients', query: () => ({ status: 'ACTIVE' }) },
  { key: 'projects', operation: 'listProjects', query: () => ({}) },
  { key: 'projects by status (GSI1)', operation: 'listProjects', query: () => ({ status: 'ACTIVE' }) },
  { key: 'projects of a client (GSI2)', operation: 'listProjects', query: (ws) => ({ client_id: ws.clientId }) },
  { key: 'projects of a client by status (GSI5)', operation: 'listProjects', query: (ws) => ({ client_id: ws.clientId, status: 'ACTIVE' }) },
  { key: 'time entries', operation: 'listTimeEntries', query: () => ({}) },
  { key: 'time entries of a project (GSI2)', operation: 'listTimeEntries', query: (ws) => ({ project_id: ws.projectId }) },
  { key: 'time entries of a client (GSI3)', operation: 'listTimeEntries', query: (ws) => ({ client_id: ws.clientId }) },
  { key: 'time entries of a project and client (GSI2 + the project read)', operation: 'listTimeEntries', query: (ws) => ({ project_id: ws.projectId, client_id: ws.clientId }) },
  { key: 'time entries in a range (GSI1)', operation: 'listTimeEntries', query: (ws) => middleRange(ws) },
  { key: 'time entries of a project in a range (GSI2)', operation: 'listTimeEntries', query: (ws) => ({ ...middleRange(ws), project_id: ws.projectId }) },
  { key: 'time entries of a client in a range (GSI3)', operation: 'listTimeEntries', query: (ws) => ({ ...middleRange(ws), client_id: ws.clientId }) },
  { key: 'search clients, 1 % match', operation: 'listClients', query: () => ({ search: 'omega' }), search: true },
  { key: 'search projects, 1 % match', operation: 'listProjects', query: () => ({ search: 'omega' }), search: true },
  { key: 'search clients, no match', operation: 'listClients', query: () => ({ search: 'zzzz' }), search: true },
  { key: 'search projects, no match', operation: 'listProjects', query: () => ({ search: 'zzzz' }), search: true },
];

export interface PagePoint {
  page: number;
  /** Undefined when the list has fewer pages. */
  units?: number;
  /** The floor computed from the items the page read (undefined for a search that passed over items). */
  floor?: number;
  queries?: number;
  latencyMs?: number;
  items?: number;
}

export interface ScalingResult {
  variant: string;
  search: boolean;
  size: number;
  limit: number;
  points: PagePoint[];
}

/** Walks a list to the deepest page wanted, measuring the pages asked for. */
export async function walk(repoRoot: string, ws: ScaleWorkspace, variant: ListVariant, limit: number, pages: readonly number[], repeats: number): Promise<ScalingResult> {
  const points: PagePoint[] = [];
  const last = Math.max(...pages);
  let cursor: string | undefined;
  for (let page = 1; page <= last; page++) {
    const request: Request = {
      operation: variant.operation,
      ...(variant.id ? { id: variant.id(ws) } : {}),
      query: { ...variant.query(ws), limit: String(limit), ...(cursor ? { cursor } : {}) },
    };
    let body: { data: unknown[]; has_more: boolean; next_cursor: string | null };
    if (pages.includes(page)) {
      const times: number[] = [];
      const units: number[] = [];
      let calls: ObservedCall[] = [];
      let reply: Awaited<ReturnType<typeof invoke>> | undefined;
      for (let r = 0; r < repeats; r++) {
        const t0 = performance.now();
        const observed = await observe(() => invoke(repoRoot, ws.caller, request));
        times.push(performance.now() - t0);
        units.push(unitsOf(observed.calls).total);
        calls = observed.calls;
        reply = observed.result;
      }
      if (reply!.status !== 200) throw new Error(`${variant.key}: ${reply!.status} ${JSON.stringify(reply!.body)}`);
      body = reply!.body;
      points.push({
        page,
        units: median(units),
        floor: pageFloor(calls),
        queries: calls.filter((c) => c.command === 'QueryCommand').length,
        latencyMs: median(times),
        items: body.data.length,
      });
    } else {
      const reply = await invoke(repoRoot, ws.caller, request);
      if (reply.status !== 200) throw new Error(`${variant.key}: ${reply.status} ${JSON.stringify(reply.body)}`);
      body = reply.body;
    }
    if (!body.has_more || !body.next_cursor) {
      for (const p of pages) if (p > page) points.push({ page: p });
      break;
    }
    cursor = body.next_cursor;
  }
  return { variant: variant.key, search: variant.search === true, size: ws.size, limit, points: points.sort((a, b) => a.page - b.page) };
}
