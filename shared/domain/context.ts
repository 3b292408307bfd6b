import type { PrimaryKey } from '../data/keys.ts';
import type { TransactItem } from '../data/writes.ts';

/** Who is calling: resolved by the authorizer from the token, never from the request. */
export interface CallerContext {
  workspaceId: string;
  apiClientId: string;
  scopes: readonly string[];
  requestId: string;
  /** A record to write in the change's own transaction (the Idempotency-Key's); absent, a write costs what it always did. */
  record?: ChangeRecord;
}

/** A resource and the version its ETag names. */
export interface Versioned<T> {
  resource: T;
  version: number;
}

/**
 * If-Match as versions: a change happens only if the current version is one of them (an empty
 * list matches nothing). Undefined means no precondition: If-Match absent or `*`.
 */
export type IfMatch = readonly number[] | undefined;


/** What a delete answers. */
export interface Deleted {
  object: string;
  id: string;
  deleted: true;
}

/** What a batch answers: the resources it made, in the order given. */
export interface Made {
  made: readonly object[];
}

/** What a change answers: the resource as written, the deletion, or a batch's resources. */
export type Outcome = Versioned<object> | Deleted | Made;

/**
 * Attributes of an item that a change answers beside the resource (a secret): never copied into a
 * record, which keeps this, where they are (the item's key) and their names, as it is.
 */
export interface Revealed extends PrimaryKey {
  attributes: readonly string[];
}

/**
 * A record of a change, written in the same transaction as the change (an Idempotency-Key's,
 * shared/http/idempotency.ts): built from what the change will answer, before it is sent, so the
 * change exists exactly when its record does.
 */
export interface ChangeRecord {
  write(outcome: Outcome, revealed?: Revealed): TransactItem;
  /** The error to throw when the record's condition failed (its key holds another record, `stored`): nothing was changed. */
  taken(stored: Record<string, unknown> | undefined): Error;
  /** The live record at the key, if one is there: a change that writes nothing asks before answering. */
  lookup(): Promise<Record<string, unknown> | undefined>;
  /** Where the record is kept (the key's item). */
  readonly key: PrimaryKey;
  // A change made in several transactions (an invoice's create, decision 0023) puts a marker at the
  // key first, naming its work; a marker is never replayed: a retry of the same request finishes it.
  /** The marker of the change's first transaction, on the record's own condition. */
  pending(workId: string): TransactItem;
  /** The record that replaces this change's marker in its last transaction. */
  sealed(outcome: Outcome, workId: string): TransactItem;
  /** The marker's Delete, when the change ends in a refusal after all. */
  discarded(workId: string): TransactItem;
  /** The work a stored marker names, when it was put for this same request (else undefined). */
  pendingWork(stored: Record<string, unknown>): string | undefined;
}
