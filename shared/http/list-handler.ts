/**
 * The frame of list handlers: the common frame and the reading of a query string, which no other
 * function's bundle then carries; and a resource list's page as CSV when the Accept prefers it
 * (contract, "CSV and bulk import"): the same page, a header row of the object's fields, and the
 * next page's URL in `Link` while there is one.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { frameOf, handlerOf, listRequest, noBody, singleValuedQuery, type InputReaders, type Reply, type Request } from './handler.ts';
import type { OperationWithAction } from '../api/routes.ts';
import type { QueryOf, ResourceFor } from '../api/operations.ts';
import type { ListEnvelope } from '../data/paging.ts';
import { parseOrThrow } from '../model/parse.ts';
import { objectColumns } from '../model/objects.ts';
import type { AnyResource } from '../model/declare.ts';
import { CSV_CONTENT_TYPE, CSV_TYPE, csvOf } from './csv.ts';
import { BodyText } from './respond.ts';
import { servedFrom } from './origin.ts';

/** The same list at `cursor`: the URL the request reached (absolute, on its own origin, when its headers say it plainly), its cursor replaced. */
function pageUrlOf(event: APIGatewayProxyEvent, cursor: string): string {
  const params = new URLSearchParams(Object.entries(event.queryStringParameters ?? {}).filter(([name]) => name !== 'cursor') as [string, string][]);
  params.set('cursor', cursor);
  const origin = servedFrom(event);
  return `${origin === undefined ? (event.requestContext?.path ?? event.path) : `${origin}${event.path}`}?${params}`;
}

/** A list reads its query (each parameter once, parsed by its contract) and takes no body. */
const LIST_READERS: InputReaders = {
  body: noBody,
  query: singleValuedQuery,
  parse: parseOrThrow,
  request: (event, readers, contract) => ({ ...listRequest!(event, readers, contract), pageUrl: (cursor: string) => pageUrlOf(event, cursor) }),
};

/**
 * How a list's page is written as CSV: its columns, for the query it was asked with (a summary's
 * by its group_by and period), and each object as a row of them (an event's `data` split in two).
 * A resource's: the object's fields, as objectOf answers them.
 */
export interface CsvShape<Q> {
  columns(query: Q): readonly string[];
  row?(object: Record<string, unknown>): Record<string, unknown>;
}

/** The page as CSV: same status, every object a row, `Link` to the next page while there is one. */
function csvReply(reply: Reply, columns: readonly string[], row: CsvShape<unknown>['row'], pageUrl: (cursor: string) => string): Reply {
  const page = reply.body as ListEnvelope<Record<string, unknown>>;
  return {
    status: reply.status,
    body: new BodyText(csvOf(columns, row ? page.data.map(row) : page.data)),
    headers: { 'Content-Type': CSV_CONTENT_TYPE, ...(page.has_more && page.next_cursor !== null ? { Link: `<${pageUrl(page.next_cursor)}>; rel="next"` } : {}) },
  };
}

/** A list's handler; `csv` says its CSV where its objects are not a resource's (the feed's events, the summaries' rows). */
export const defineListHandler = <O extends OperationWithAction<'list'>>(operation: O, resource: ResourceFor<O>, run: (req: Request<O>) => Promise<Reply>, csv?: CsvShape<QueryOf<O>>) => {
  const shape: CsvShape<QueryOf<O>> = csv ?? { columns: () => objectColumns(resource as AnyResource) };
  return handlerOf(frameOf(operation, resource, LIST_READERS), async (req) => {
    const reply = await run(req);
    return req.mediaType === CSV_TYPE ? csvReply(reply, shape.columns(req.query()), shape.row as CsvShape<unknown>['row'], req.pageUrl!) : reply;
  });
};
