/** The frame of POST and PATCH handlers: the common frame plus idempotent retries. */
import { defineHandler, type Reply, type Request } from './handler.ts';
import { idempotentRetries } from './idempotency.ts';
import type { Operation } from '../routes.ts';
import type { ResourceFor } from '../operations.ts';

export { created, current } from './handler.ts';

export const defineWriteHandler = <O extends Operation>(operation: O, resource: ResourceFor<O>, run: (req: Request<O>) => Promise<Reply>) =>
  defineHandler(operation, resource, run, idempotentRetries);
