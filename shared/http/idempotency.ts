/**
 * Idempotent retries of POST, PATCH and DELETE (`Idempotency-Key`), exactly once: the key's
 * record is a part of the change's own DynamoDB transaction (see
 * docs/decisions/0015-idempotency-in-the-write-transaction.md).
 *
 * - The handler runs as without a key (size limit, body, domain rules), with a record in its
 *   caller context; the domain adds the record's Put to its transaction, on condition that the
 *   key holds no live record. A change therefore exists exactly when its record does.
 * - The record holds the reply (status, `ETag`, `Location`, the body as the JSON text sent), a
 *   hash of the validated request and the request id; never a secret: attributes the reply shows
 *   beside the resource (a webhook endpoint's secret) are read from the item at replay.
 * - When the key is taken, the transaction comes back cancelled with the stored record: the same
 *   request is replayed (`Idempotent-Replayed: true`), another one is 422. A request refused on
 *   its own (404 after a DELETE that took effect, 412 after a PATCH that did) looks the key up
 *   once, so a retry of a done request replays it. A refused request stores nothing.
 */
import { createHash } from 'node:crypto';
import { ApiError, ERROR_TYPES, IDEMPOTENCY_KEY_HEADER, invalidParam, keyInUse } from '../core/errors.ts';
import * as keys from '../data/keys.ts';
import { RECORD_PART } from '../data/writes.ts';
import { liveRecord, markedWorkOf, markerDelete, markerPut, recordOverMarker, recordPut } from '../data/idempotency-records.ts';
import type { CallerContext, ChangeRecord, Outcome, Revealed } from '../domain/context.ts';
import type { Reply, RetryPolicy } from './handler.ts';
import { header } from './origin.ts';
import { BodyText } from './respond.ts';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function idempotencyKeyOf(headerValue: string | undefined): string | undefined {
  if (headerValue === undefined) return undefined;
  if (!KEY_PATTERN.test(headerValue)) {
    throw invalidParam(IDEMPOTENCY_KEY_HEADER, `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters, e.g. a UUID`);
  }
  return headerValue;
}

/** A record as stored (beside its keys and `expires_at`). */
export interface StoredRecord {
  fingerprint: string;
  request_id: string;
  status: number;
  headers?: Record<string, string>;
  /** The reply's body as the JSON text sent, without the revealed attributes; a list's ids alone when `rebuilt`. */
  body: string;
  revealed?: Revealed;
  /** The body is the ids of a list too large to keep: a replay rebuilds it from them (`RebuiltList`). */
  rebuilt?: true;
}

/** A list's envelope: every item, no page after it (a batch's answer). */
export const listOf = (data: readonly unknown[]) => ({ object: 'list', data, has_more: false, next_cursor: null });

/**
 * A list reply larger than this is kept as its items' ids: a record must fit DynamoDB's 400 KB item
 * (a batch of 100 entries with 5,000-character descriptions does not).
 */
const KEPT_BODY_BYTES = 300_000;

/** The items of a list, as they are now, from their ids (a deleted one left out): a batch's replay when its record kept only the ids. */
export type RebuiltList = (caller: CallerContext, ids: readonly string[]) => Promise<readonly unknown[]>;

/**
 * What the record of a reply stores: the body (a create's reply holds no revealed attribute: they
 * are added to its resource after the record is built) and where the revealed ones are kept; a
 * list too large to keep, its ids.
 */
function storedReply(reply: Reply, revealed: Revealed | undefined): Pick<StoredRecord, 'status' | 'headers' | 'body' | 'revealed' | 'rebuilt'> {
  const body = JSON.stringify(reply.body);
  const list = reply.body as { object?: unknown; data?: { id: string }[] };
  const rebuilt = Buffer.byteLength(body) > KEPT_BODY_BYTES && list.object === 'list' && Array.isArray(list.data);
  return {
    status: reply.status,
    ...(reply.headers ? { headers: reply.headers } : {}),
    body: rebuilt ? JSON.stringify(list.data!.map((item) => item.id)) : body,
    ...(revealed ? { revealed } : {}),
    ...(rebuilt ? { rebuilt: true as const } : {}),
  };
}

/**
 * The body of a replay that reveals attributes (`revealedBody`, shared/http/revealed.ts): given by
 * the frame of the one operation whose records hold them (a webhook endpoint's create), so no
 * other function's bundle holds it. A record names its operation (the fingerprint), so only that
 * operation's function replays it.
 */
export type RevealedBody = (stored: StoredRecord) => Promise<string>;

/** How a frame's replays rebuild what a record does not hold whole. */
export interface Replay {
  revealedBody?: RevealedBody;
  rebuiltList?: RebuiltList;
}

/** The first reply again, from its record. */
async function replayOf(stored: StoredRecord, caller: CallerContext, { revealedBody, rebuiltList }: Replay): Promise<Reply> {
  const text = stored.revealed
    ? await revealedBody!(stored)
    : stored.rebuilt
      ? JSON.stringify(listOf(await rebuiltList!(caller, JSON.parse(stored.body) as string[])))
      : stored.body;
  // Our own record: the SDK retried our transaction after it had landed. That is the first reply.
  const own = stored.request_id === caller.requestId;
  return { status: Number(stored.status), body: new BodyText(text), headers: { ...stored.headers, ...(own ? {} : { 'Idempotent-Replayed': 'true' }) } };
}

/**
 * The request a key was used for: the operation, the path's id and the validated body in a
 * canonical form (object members sorted), hashed. The body passed its schema and the size limit
 * first, so this is bounded in time and memory by both.
 */
export function fingerprintOf(operation: string, id: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson([operation, id, body ?? null])).digest('base64url');
}

/** Far deeper than any schema lets a body be: past it, a bug. */
const MAX_DEPTH = 16;

function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new Error('canonicalJson: value nested deeper than any request schema allows');
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name], depth + 1)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Thrown by the domain when the change's transaction was cancelled by the record's condition. */
class KeyTaken extends Error {
  declare readonly stored: Record<string, unknown> | undefined;
  constructor(stored: Record<string, unknown> | undefined) {
    super('Idempotency-Key taken');
    this.stored = stored;
  }
}

const keyReused = () =>
  new ApiError(
    'idempotency_key_reused', ERROR_TYPES.idempotency_key_reused,
    `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request in the last 24 hours: use a new key for a new request`,
    { param: IDEMPOTENCY_KEY_HEADER },
  );

/** The change's transaction met another one on the record's key (a first request writing it) until our retries ran out. */
function isKeyConflict(error: unknown): boolean {
  const parts = (error as { conflictedParts?: unknown } | null)?.conflictedParts;
  return Array.isArray(parts) && parts.includes(RECORD_PART);
}

/**
 * The retry policy of every POST, PATCH and DELETE: exactly once when the caller sends a key.
 * `replyOf` is the frame's one mapping from a change's outcome to its reply.
 */
export function idempotentWrites(replyOf: (outcome: Outcome, path: string) => Reply, replay: Replay = {}): RetryPolicy {
  return async ({ operation, event, request, hasBody, run }) => {
    const key = idempotencyKeyOf(header(event, IDEMPOTENCY_KEY_HEADER));
    const caller: CallerContext = request.caller;
    if (key === undefined) return run(caller);
    const recordKey = keys.idempotency(caller.workspaceId, caller.apiClientId, key);
    // Only ever called once the body was validated (the domain writes after parsing it).
    // The path's ids: a nested resource's own (`{payment_id}`) after its parent's.
    const ids = [request.id(), request.childId()].filter((id) => id !== '').join('/');
    const fingerprint = () => fingerprintOf(operation, ids, hasBody ? request.body() : null);
    /** What the record stores of this request: its fingerprint and request id, and with an outcome the reply. */
    const stored = (outcome?: Outcome, revealed?: Revealed) => ({
      fingerprint: fingerprint(),
      request_id: caller.requestId,
      ...(outcome ? storedReply(replyOf(outcome, request.path), revealed) : {}),
    });
    const record: ChangeRecord = {
      key: recordKey,
      write: (outcome, revealed) => recordPut(recordKey, stored(outcome, revealed), Date.now()),
      taken: (stored) => new KeyTaken(stored),
      lookup: () => liveRecord(recordKey),
      pending: (workId) => markerPut(recordKey, stored(), workId),
      sealed: (outcome, workId) => recordOverMarker(recordKey, stored(outcome), workId),
      discarded: (workId) => markerDelete(recordKey, workId),
      pendingWork: (found) => (found.fingerprint === fingerprint() ? markedWorkOf(found) : undefined),
    };
    try {
      return await run({ ...caller, record });
    } catch (error) {
      // The domain's own answer for a change still being made under this key (an invoice's create: its Retry-After is the lease left).
      if (error instanceof ApiError && error.type === 'idempotency_key_in_use') throw error;
      let stored: Record<string, unknown> | undefined;
      let expected: string;
      if (error instanceof KeyTaken) {
        stored = error.stored;
        expected = fingerprint();
      } else {
        // Refused on its own, or outlasted by a concurrent write: was it done before, under this key?
        // Not when the refusal is what this caller may not do (403: a webhook endpoint's events its
        // token cannot read): a replay would show it what the first caller was allowed (the secret).
        const refused = error instanceof ApiError && error.status < 500 && error.status !== 403;
        if (!refused && !isKeyConflict(error)) throw error;
        try {
          expected = fingerprint();
        } catch {
          throw error; // the body itself is refused: exactly as without a key
        }
        stored = await liveRecord(recordKey);
        if (stored === undefined && refused) throw error;
      }
      if (stored === undefined) throw keyInUse();
      if (stored.fingerprint !== expected) throw keyReused();
      // A change still being made under this key (its marker): finished by a retry, never replayed.
      if (markedWorkOf(stored) !== undefined) throw keyInUse();
      return replayOf(stored as unknown as StoredRecord, caller, replay);
    }
  };
}
