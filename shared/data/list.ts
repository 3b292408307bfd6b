/**
 * Reads one page of a list, newest first (or oldest first when asked). Pages are always full: with a filter (search) the
 * read continues until the page holds `limit + 1` matches or the partition ends, so `has_more`
 * is exact. Lists served from the base table read strongly consistent. The reads of whole
 * sources (a span, a partition's items of one type) and of one batch at a time are here too.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as keys from './keys.ts';
import { startKeyFor, type ListSource, type SpanSource } from './keys.ts';
import { dynamo, tableName } from './dynamo.ts';
import { sortKeyOf } from './table.ts';
import type { Condition } from './writes.ts';

export interface PageRequest {
  source: ListSource;
  workspaceId: string;
  limit: number;
  /** Sort key of the last item of the previous page. */
  after: string | undefined;
  /** Optional post-key filter. */
  filter?: Condition;
  /** Oldest first (the events feed's sync mode); newest first otherwise. */
  ascending?: boolean;
}

export interface PageResult<T> {
  items: T[];
  hasMore: boolean;
}

/** Unfiltered reads fetch exactly one extra item; filtered reads grow their batch up to this. */
const MAX_FILTERED_BATCH = 1000;

/** Where a read of `source` starts and ends: the partition's key and the sort key's names. */
const keyNames = (source: ListSource) => ({ '#pk': source.index ? `${source.index}PK` : 'PK', '#sk': source.index ? sortKeyOf(source.index) : 'SK' });

/** A range of the order's values (`source.range`): read exactly the items in it, nothing discarded. */
const rangeValues = (source: ListSource, range: SpanSource['range']) => ({
  ':pk': source.partitionKey,
  ':low': `${source.sortKeyPrefix}${range.low}`,
  ':high': `${source.sortKeyPrefix}${range.high}`,
});
const RANGE_CONDITION = '#pk = :pk AND #sk BETWEEN :low AND :high';

/** How a read of a source goes: oldest first or newest first, `batch` items a Query (or as many as one returns, 1 MB), from `startKey`. */
export interface SourceRead {
  ascending?: boolean | undefined;
  /** A condition on the items read (the Query's filter): what fails it is read, and not returned. */
  filter?: Condition | undefined;
  batch?: number | undefined;
  startKey?: Record<string, unknown> | undefined;
}

/** The Query of one batch of `source`: its range (every key in it), or its items of its type. */
function sourceQuery(source: ListSource, read: SourceRead): QueryCommandInput {
  const { filter } = read;
  return {
    TableName: tableName(),
    ...(source.index ? { IndexName: source.index } : { ConsistentRead: true }),
    ...(source.range
      ? { KeyConditionExpression: RANGE_CONDITION, ExpressionAttributeValues: { ...rangeValues(source, source.range), ...filter?.values } }
      : {
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :kind)',
          ExpressionAttributeValues: {
            ':pk': source.partitionKey,
            ':kind': `${source.sortKeyPrefix}${keys.typePrefix(source.type)}`,
            ...filter?.values,
          },
        }),
    ExpressionAttributeNames: { ...keyNames(source), ...filter?.names },
    ...(filter ? { FilterExpression: filter.expression } : {}),
    ScanIndexForward: read.ascending ?? false,
    ...(read.batch === undefined ? {} : { Limit: read.batch }),
    ...(read.startKey ? { ExclusiveStartKey: read.startKey } : {}),
  };
}

/**
 * A page of the items of `source`'s range, oldest first, from `startKey` on: what reads a whole
 * span (an invoice's create, keys.spanSource), with none of a list's pages, cursors or filters.
 */
export const spanQueryParams = (source: SpanSource, batch: number, startKey: Record<string, unknown> | undefined): QueryCommandInput =>
  sourceQuery(source, { ascending: true, batch, startKey });

/** One batch of a list's page (readPage). */
export const pageQueryParams = (req: PageRequest, batch: number, startKey: Record<string, unknown> | undefined): QueryCommandInput =>
  sourceQuery(req.source, { ascending: req.ascending, filter: req.filter, batch, startKey });

/** What one Query read, and where the next starts (undefined: the source has no more). */
export interface Batch {
  items: Record<string, unknown>[];
  startKey: Record<string, unknown> | undefined;
}

async function query(params: QueryCommandInput): Promise<Batch> {
  const out = await dynamo().send(new QueryCommand(params));
  return { items: out.Items ?? [], startKey: out.LastEvaluatedKey };
}

/** One Query of `source`, for a reader that decides batch by batch how far it reads. */
export const readBatch = (source: ListSource, read: SourceRead): Promise<Batch> => query(sourceQuery(source, read));

/** Every item the Queries of `paramsFrom` read, one batch at a time as the caller takes them: a caller that stops reads no further. */
async function* eachItem(paramsFrom: (startKey: Record<string, unknown> | undefined) => QueryCommandInput): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const batch = await query(paramsFrom(startKey));
    yield* batch.items;
    startKey = batch.startKey;
  } while (startKey !== undefined);
}

/** How many items `source` holds (of its range, when it has one): Queries that count, every page of them. */
export async function countItems(source: ListSource): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(new QueryCommand({ ...sourceQuery(source, { startKey }), Select: 'COUNT' }));
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
  return count;
}

/** Every item of `source` (of its range, when it has one), in its order. */
export const readAll = (source: ListSource, read: Omit<SourceRead, 'startKey'> = {}) => eachItem((startKey) => sourceQuery(source, { ...read, startKey }));

/** Every item of a span, oldest first, `batch` a Query. */
export const readSpan = (source: SpanSource, batch: number) => eachItem((startKey) => spanQueryParams(source, batch, startKey));

export async function readPage(req: PageRequest): Promise<PageResult<Record<string, unknown>>> {
  const wanted = req.limit + 1;
  const collected: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined =
    req.after === undefined ? undefined : startKeyFor(req.source, req.workspaceId, req.after);
  let batch = wanted;
  do {
    const read = await query(pageQueryParams(req, batch, startKey));
    collected.push(...read.items);
    startKey = read.startKey;
    if (req.filter) batch = Math.min(batch * 2, MAX_FILTERED_BATCH);
    else batch = wanted - collected.length;
  } while (collected.length < wanted && startKey !== undefined);
  return { items: collected.slice(0, req.limit), hasMore: collected.length > req.limit };
}
