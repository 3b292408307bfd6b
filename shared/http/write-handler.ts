/** The frame of POST and PATCH handlers: the common frame plus idempotent retries. */
import { defineHandler, type Reply, type Request } from './handler.ts';
import { idempotentRetries } from './idempotency.ts';

export { created, current } from './handler.ts';

export const defineWriteHandler = (operation: string, run: (req: Request) => Promise<Reply>) =>
  defineHandler(operation, run, idempotentRetries);
