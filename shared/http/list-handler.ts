/**
 * The frame of list handlers: the common frame and the reading of a query string, which no other
 * function's bundle then carries.
 */
import { frameOf, handlerOf, listRequest, noBody, singleValuedQuery, type InputReaders, type Reply, type Request } from './handler.ts';
import type { OperationWithAction } from '../api/routes.ts';
import type { ResourceFor } from '../api/operations.ts';
import { parseOrThrow } from '../model/parse.ts';

/** A list reads its query (each parameter once, parsed by its contract) and takes no body. */
const LIST_READERS: InputReaders = { body: noBody, query: singleValuedQuery, parse: parseOrThrow, request: listRequest };

export const defineListHandler = <O extends OperationWithAction<'list'>>(operation: O, resource: ResourceFor<O>, run: (req: Request<O>) => Promise<Reply>) =>
  handlerOf(frameOf(operation, resource, LIST_READERS), run);
