/**
 * The frame of POST, PATCH and DELETE handlers: the common frame, the reply made from what the
 * change answers (one mapping, which the idempotency record stores too), idempotent retries, and
 * for POST and PATCH the reading of a JSON body (which no read or delete function's bundle then
 * carries). A create (`defineCreateHandler`) reads no If-Match and takes its own body schema alone;
 * the others read If-Match and look their contract up.
 */
import { bodyReader, conditionalRequest, created, current, frameOf, handlerOf, ifMatchHeader, noBody, ok, type Frame, type InputReaders, type Reply, type Request } from './handler.ts';
import { parseBatch, parseOrThrow } from '../model/parse.ts';
import { LIMITS } from '../core/field-limits.ts';
import { idempotentWrites, listOf, type RebuiltList, type Replay, type RevealedBody } from './idempotency.ts';
import { routeByOperation, type OperationWithAction, type ProtectedOperation, type Transition } from '../api/routes.ts';
import type { ResourceFor } from '../api/operations.ts';
import type { Made, Outcome, Versioned } from '../domain/context.ts';
import type * as v from 'valibot';

/**
 * The handler of a write: `frame`'s readers (a body's for POST and PATCH, If-Match for all but a
 * create), idempotent retries, and its reply to what the change answers (`replyOf`, which the
 * idempotency record stores too).
 */
const writeHandler = <O extends ProtectedOperation>(
  frame: Frame<O>,
  change: (req: Request<O>) => Promise<Outcome>,
  replyOf: (outcome: Outcome, path: string) => Reply,
  replay: Replay = {},
) => handlerOf(frame, async (req) => replyOf(await change(req), req.path), idempotentWrites(replyOf, replay));

/** A create's reply: 201 with Location and the ETag. */
const createdReply = (outcome: Outcome, path: string): Reply => created(outcome as Versioned<{ id: string }>, path);
/** A start's: 202 with what it started (the service goes on with it), Location and the ETag. */
const acceptedReply = (outcome: Outcome, path: string): Reply => created(outcome as Versioned<{ id: string }>, path, 202);
/** A change's or a delete's: 200 with the resource and its ETag, or the delete's result. */
const changedReply = (outcome: Outcome): Reply => ('deleted' in outcome ? ok(outcome) : current(outcome as Versioned<object>));
/** A batch's: 201 with the list of what it made (no Location: no one resource; no ETag: no one version). */
const madeReply = (outcome: Outcome): Reply => ({ status: 201, body: listOf((outcome as Made).made) });

/** The operations whose action is a create. */
type CreateOperation = OperationWithAction<'create'>;

/** What a create's frame reads of its resource: the create schema (the operation's resource's: tsc checks it). */
type CreateResource<O extends CreateOperation> = Pick<ResourceFor<O>, 'create' & keyof ResourceFor<O>> & { create: v.GenericSchema };

/**
 * A POST that creates: reads and parses a JSON body (the resource's `create` schema, which tsc
 * requires it to carry: what the frame reads of the create's contract, shared/api/operations.ts, whose
 * other terms only the OpenAPI document reads); answers 201 with Location. A create whose reply reveals attributes stored
 * beside the resource (a webhook endpoint's secret) gives `revealedBody` (shared/http/revealed.ts)
 * for its replays.
 */
export const defineCreateHandler = <O extends CreateOperation>(
  operation: O,
  resource: CreateResource<O>,
  change: (req: Request<O>) => Promise<Outcome>,
  revealedBody?: RevealedBody,
) => writeHandler(bodyFrame(operation, resource.create), change, createdReply, { revealedBody });

/** A POST's frame that reads its own body schema alone (a create's, a start's): no contracts table, no If-Match. */
const bodyFrame = <O extends ProtectedOperation>(operation: O, body: v.GenericSchema): Frame<O> => ({
  route: routeByOperation(operation),
  contract: { body },
  readers: { body: bodyReader, parse: parseOrThrow },
});

/** A POST that starts work the service goes on with (a billing run): as a create, answered 202. */
export const defineStartHandler = <O extends OperationWithAction<'start'>>(operation: O, resource: { create: v.GenericSchema }, change: (req: Request<O>) => Promise<Outcome>) =>
  writeHandler(bodyFrame(operation, resource.create), change, acceptedReply);

/** A batch's readers: its body (up to its contract's `bodyBytes`) parsed entry by entry, each entry's errors kept for the domain to list with its own. */
const BATCH_READERS: InputReaders = { body: bodyReader, parse: (schema, input) => parseBatch(schema, input, LIMITS.batchEntries) };

/**
 * A POST that creates many (`POST /time_entries/batch`): answers 201 with the list of what it made.
 * A replay whose record kept only the ids (a reply too large to keep) is rebuilt by `rebuiltList`.
 */
export const defineCreateManyHandler = <O extends OperationWithAction<'createMany'>>(
  operation: O,
  resource: ResourceFor<O>,
  change: (req: Request<O>) => Promise<Made>,
  rebuiltList: RebuiltList,
) => writeHandler(frameOf(operation, resource, BATCH_READERS), change, madeReply, { rebuiltList });

const WRITE_READERS: InputReaders = { body: bodyReader, parse: parseOrThrow, ifMatch: ifMatchHeader, request: conditionalRequest };
const DELETE_READERS: InputReaders = { body: noBody, ifMatch: ifMatchHeader, request: conditionalRequest };

/** A PATCH, or an invoice's step: reads and parses a JSON body, and If-Match. */
export const defineWriteHandler = <O extends OperationWithAction<'update' | Transition>>(operation: O, resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  writeHandler(frameOf(operation, resource, WRITE_READERS), change, changedReply);

/** A DELETE: takes no body (one sent is refused unread), so its bundle carries no body reading or parsing; reads If-Match. */
export const defineDeleteHandler = <O extends OperationWithAction<'delete'>>(operation: O, resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  writeHandler(frameOf(operation, resource, DELETE_READERS), change, changedReply);
