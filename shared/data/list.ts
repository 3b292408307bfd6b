/**
 * Reads one page of a list, newest first (or oldest first when asked). Pages are always full: with a filter (search) the
 * read continues until the page holds `limit + 1` matches or the partition ends, so `has_more`
 * is exact. Lists served from the base table read strongly consistent.
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

/**
 * A page of the items of `source`'s range, oldest first, from `startKey` on: what reads a whole
 * span (an invoice's create, keys.spanSource), with none of a list's pages, cursors or filters.
 */
export function spanQueryParams(source: SpanSource, batch: number, startKey: Record<string, unknown> | undefined): QueryCommandInput {
  return {
    TableName: tableName(),
    ...(source.index ? { IndexName: source.index } : { ConsistentRead: true }),
    KeyConditionExpression: RANGE_CONDITION,
    ExpressionAttributeValues: rangeValues(source, source.range),
    ExpressionAttributeNames: keyNames(source),
    ScanIndexForward: true,
    Limit: batch,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export function pageQueryParams(req: PageRequest, batch: number, startKey: Record<string, unknown> | undefined): QueryCommandInput {
  const { source } = req;
  return {
    TableName: tableName(),
    ...(source.index ? { IndexName: source.index } : { ConsistentRead: true }),
    ...(source.range
      ? { KeyConditionExpression: RANGE_CONDITION, ExpressionAttributeValues: { ...rangeValues(source, source.range), ...req.filter?.values } }
      : {
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :kind)',
          ExpressionAttributeValues: {
            ':pk': source.partitionKey,
            ':kind': `${source.sortKeyPrefix}${keys.typePrefix(source.type)}`,
            ...req.filter?.values,
          },
        }),
    ExpressionAttributeNames: { ...keyNames(source), ...req.filter?.names },
    ...(req.filter ? { FilterExpression: req.filter.expression } : {}),
    ScanIndexForward: req.ascending ?? false,
    Limit: batch,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export async function readPage(req: PageRequest): Promise<PageResult<Record<string, unknown>>> {
  const wanted = req.limit + 1;
  const collected: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined =
    req.after === undefined ? undefined : startKeyFor(req.source, req.workspaceId, req.after);
  let batch = wanted;
  do {
    const out = await dynamo().send(new QueryCommand(pageQueryParams(req, batch, startKey)));
    collected.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
    if (req.filter) batch = Math.min(batch * 2, MAX_FILTERED_BATCH);
    else batch = wanted - collected.length;
  } while (collected.length < wanted && startKey !== undefined);
  return { items: collected.slice(0, req.limit), hasMore: collected.length > req.limit };
}
