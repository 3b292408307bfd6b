/**
 * The frame of POST, PATCH and DELETE handlers: the common frame, the reply made from what the
 * change answers (one mapping, which the idempotency record stores too), idempotent retries, and
 * for POST and PATCH the reading of a JSON body (which no read or delete function's bundle then
 * carries). A create (`defineCreateHandler`) reads no If-Match and takes its own body schema alone;
 * the others read If-Match and look their contract up.
 */
import { bodyReader, conditionalRequest, created, current, framed, handlerOf, ifMatchHeader, noBody, ok, type FrameResource, type InputReaders, type Reply, type Request } from './handler.ts';
import { parseOrThrow } from '../model/parse.ts';
import { idempotentWrites, type RevealedBody } from './idempotency.ts';
import type { Operation, RouteOf } from '../api/routes.ts';
import { contractOf, type OperationOf, type ResourceFor } from '../api/operations.ts';
import type { Outcome, Versioned } from '../domain/context.ts';
import type { AnyResource } from '../model/declare.ts';
import type * as v from 'valibot';
import type { AcrossFields } from '../model/cross-field.ts';

/**
 * What a write runs and how it retries: its reply to what the change answers (`replyOf`, which
 * the idempotency record stores too), and idempotent retries. handlerOf (handler.ts) takes them
 * beside the contract and the readers of the write's frame (a body's for POST and PATCH,
 * If-Match for all but a create).
 */
const writes = <O extends Operation>(change: (req: Request<O>) => Promise<Outcome>, replyOf: (outcome: Outcome, path: string) => Reply, revealedBody?: RevealedBody) =>
  [async (req: Request<O>) => replyOf(await change(req), req.path), idempotentWrites(replyOf, revealedBody)] as const;

/** A create's reply: 201 with Location and the ETag. */
const createdReply = (outcome: Outcome, path: string): Reply => created(outcome as Versioned<{ id: string }>, path);
/** A change's or a delete's: 200 with the resource and its ETag, or the delete's result. */
const changedReply = (outcome: Outcome): Reply => ('deleted' in outcome ? ok(outcome) : current(outcome));

/** The contract of `operation` (shared/api/operations.ts), for a frame that looks it up, checked to be this frame's (`framed`). */
const lookedUp = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, readers: InputReaders) =>
  framed(operation, contractOf({ operation, action, resource: (resource as AnyResource).kind } as OperationOf, resource as AnyResource), true, readers);

/** The operations whose action is a create. */
type CreateOperation = { [O in Operation]: RouteOf<O>['action'] extends 'create' ? O : never }[Operation];

/**
 * What a create's frame reads of its resource: the collection (its scope), the create schema (the
 * operation's resource's: tsc checks it) and the cross-field rule. A function passes the whole
 * resource, or these beside what its domain reads (functions/invoices/create.ts: `invoiceStored`).
 */
type CreateResource<O extends Operation> = Pick<ResourceFor<O>, 'create' & keyof ResourceFor<O>> & {
  collection: string;
  create: v.GenericSchema;
  acrossFields?: AcrossFields;
};

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
) => handlerOf(operation, 'create' as RouteOf<O>['action'], resource, { body: resource.create }, ...writes(change, createdReply, revealedBody), { body: bodyReader, parse: parseOrThrow });

const WRITE_READERS: InputReaders = { body: bodyReader, parse: parseOrThrow, ifMatch: ifMatchHeader, request: conditionalRequest };
const DELETE_READERS: InputReaders = { body: noBody, ifMatch: ifMatchHeader, request: conditionalRequest };

/** A PATCH, or an invoice's step: reads and parses a JSON body, and If-Match. */
export const defineWriteHandler = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  handlerOf(operation, action, resource as FrameResource, lookedUp(operation, action, resource, WRITE_READERS), ...writes(change, changedReply), WRITE_READERS);

/** A DELETE: takes no body (one sent is refused unread), so its bundle carries no body reading or parsing; reads If-Match. */
export const defineDeleteHandler = <O extends Operation>(operation: O, action: RouteOf<O>['action'], resource: ResourceFor<O>, change: (req: Request<O>) => Promise<Outcome>) =>
  handlerOf(operation, action, resource as FrameResource, lookedUp(operation, action, resource, DELETE_READERS), ...writes(change, changedReply), DELETE_READERS);
