/**
 * The frame of list handlers: the common frame and the reading of a query string, which no other
 * function's bundle then carries.
 */
import { defineHandler, listRequest, noBody, singleValuedQuery, type Reply, type Request } from './handler.ts';
import type { Operation, RouteOf } from '../api/routes.ts';
import type { ResourceFor } from '../api/operations.ts';
import { parseOrThrow } from '../model/parse.ts';

export const defineListHandler = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, run: (req: Request<O>) => Promise<Reply>) =>
  defineHandler(operation, action, resource, run, undefined, { body: noBody, query: singleValuedQuery, parse: parseOrThrow, request: listRequest });
