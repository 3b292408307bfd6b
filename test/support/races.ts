/**
 * Helpers of the race tests: starting racers against a contender, walking a list, and reading
 * the stored items (with their counters) straight from DynamoDB Local, strongly consistent.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { Api, ApiResponse } from './api.ts';

type Obj = Record<string, any>;

/** The stored item with its API fields (kept in the `data` map) beside its counters. */
const flatten = (item: Obj): Obj => ({ ...item, ...(item.data as Obj) });

/** Readers of the table, opened before the file's tests and closed after them. */
export function storedItems() {
  let db: DynamoDBDocumentClient;
  let table: string;
  beforeAll(() => {
    db = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    table = inject('tableName');
  });
  afterAll(() => db?.destroy());

  /** Every stored item of a kind in a workspace's partition. */
  async function stored(workspaceId: string, kind: 'PROJECT' | 'TIME_ENTRY'): Promise<Obj[]> {
    const items: Obj[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': `WS#${workspaceId}`, ':prefix': `${kind}#` },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(out.Items ?? []).map(flatten));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  }

  async function storedItem(workspaceId: string, kind: 'CLIENT' | 'PROJECT' | 'TIME_ENTRY', id: string): Promise<Obj | undefined> {
    const out = await db.send(new GetCommand({ TableName: table, Key: { PK: `WS#${workspaceId}`, SK: `${kind}#${id}` }, ConsistentRead: true }));
    return out.Item && flatten(out.Item);
  }

  return { stored, storedItem };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the racers and the contender, each after a small random delay, so
 * the contender lands before, among or after the racers in different rounds.
 */
export async function race(racers: (() => Promise<ApiResponse>)[], contender: () => Promise<ApiResponse>) {
  const jitter = (spread: number) => sleep(Math.random() * spread);
  const [racing, late] = await Promise.all([Promise.all(racers.map((r) => jitter(25).then(r))), jitter(6).then(contender)]);
  return { racing, late };
}

/** Every item of a list, all pages. */
export async function listAll(api: Api, path: string): Promise<Obj[]> {
  const out: Obj[] = [];
  let cursor: string | undefined;
  do {
    const response = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status).toBe(200);
    out.push(...response.body.data);
    cursor = response.body.next_cursor ?? undefined;
  } while (cursor);
  return out;
}
