/**
 * The frame of POST, PATCH and DELETE handlers: the common frame, the reply made from what the
 * change answers (one mapping, which the idempotency record stores too), idempotent retries, and
 * for POST and PATCH the reading of a JSON body (which no read or delete function's bundle then
 * carries).
 */
import { bodyReader, created, current, defineHandler, ok, type InputReaders, type Reply, type Request } from './handler.ts';
import { parseOrThrow } from '../schemas/parse.ts';
import { idempotentWrites } from './idempotency.ts';
import type { Operation, RouteOf } from '../routes.ts';
import { contractOf, type OperationOf, type ResourceFor } from '../operations.ts';
import type { Outcome, Versioned } from '../domain/context.ts';
import type { AnyResource } from '../resources/declare.ts';

/** The frame of writes, with the readers it is given (a body's for POST and PATCH, none for DELETE). */
const writeFrame = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>, readers: InputReaders) => {
  const status = contractOf({ operation, action, resource: (resource as AnyResource).kind } as OperationOf, resource as AnyResource)?.success.status;
  const replyOf = (outcome: Outcome, path: string): Reply =>
    'deleted' in outcome ? ok(outcome) : status === 201 ? created(outcome as Versioned<{ id: string }>, path) : current(outcome);
  return defineHandler(operation, action, resource, async (req) => replyOf(await change(req), req.path), idempotentWrites(replyOf), readers);
};

/** A POST or PATCH: reads and parses a JSON body. */
export const defineWriteHandler = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  writeFrame(operation, action, resource, change, { body: bodyReader, parse: parseOrThrow });

/** A DELETE: takes no body (one sent is refused unread), so its bundle carries no body reading or parsing. */
export const defineDeleteHandler = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  writeFrame(operation, action, resource, change, {});
