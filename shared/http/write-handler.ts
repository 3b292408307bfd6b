/**
 * The frame of POST, PATCH and DELETE handlers: the common frame, the reply made from what the
 * change answers (one mapping, which the idempotency record stores too), idempotent retries, and
 * the reading of a JSON body (which no read function's bundle then carries).
 */
import { bodyReader, created, current, defineHandler, ok, type Reply, type Request } from './handler.ts';
import { idempotentWrites } from './idempotency.ts';
import type { Operation, RouteOf } from '../routes.ts';
import { contractOf, type OperationOf, type ResourceFor } from '../operations.ts';
import type { Outcome, Versioned } from '../domain/context.ts';
import type { AnyResource } from '../resources/declare.ts';

export const defineWriteHandler = <O extends Operation>(
  operation: O,
  action: RouteOf<O>['action'],
  resource: ResourceFor<O>,
  change: (req: Request<O>) => Promise<Outcome>,
) => {
  const status = contractOf({ operation, action, resource: (resource as AnyResource).kind } as OperationOf, resource as AnyResource)?.success.status;
  const replyOf = (outcome: Outcome, path: string): Reply =>
    'deleted' in outcome ? ok(outcome) : status === 201 ? created(outcome as Versioned<{ id: string }>, path) : current(outcome);
  // A delete takes no body, but shares the frame: its bundle keeps the reader, unused.
  return defineHandler(operation, action, resource, async (req) => replyOf(await change(req), req.path), idempotentWrites(replyOf), { body: bodyReader });
};
