/**
 * The key schema, as data: every key of every item is built here and nowhere else.
 *
 * Base table: one partition per workspace (`WS#<ws>`); each resource's sort key is
 * `<TYPE>#<id>`. Ids embed a time-ordered ULID, so a descending Query on `<TYPE>#` lists
 * newest first by creation time (ties broken by id) with strongly consistent reads.
 *
 * GSIs reuse the resource's sort key, so every list is ordered the same way:
 * - GSI1: a kind filtered by status           (clients, projects)
 * - GSI2: children of a parent                 (projects of a client, time entries of a project)
 * - GSI3: children of a parent, second axis    (projects of a client, sorted within status;
 *                                               time entries of a client)
 * GSI3's sort key for projects is `STATUS#<status>#PROJECT#<id>`: it depends only on the
 * project itself, so a status change rewrites it without knowing the client.
 */
import type { IndexName } from './table.ts';

export type Kind = 'CLIENT' | 'PROJECT' | 'TIME_ENTRY' | 'WEBHOOK_ENDPOINT' | 'EVENT';

export interface PrimaryKey {
  PK: string;
  SK: string;
}

const ws = (workspaceId: string) => `WS#${workspaceId}`;

export const keys = {
  workspacePartition: ws,
  item: (workspaceId: string, kind: Kind, id: string): PrimaryKey => ({ PK: ws(workspaceId), SK: `${kind}#${id}` }),
  kindPrefix: (kind: Kind) => `${kind}#`,
  apiClient: (apiClientId: string): PrimaryKey => ({ PK: `API_CLIENT#${apiClientId}`, SK: 'API_CLIENT' }),
  workspace: (workspaceId: string): PrimaryKey => ({ PK: `WORKSPACE#${workspaceId}`, SK: 'WORKSPACE' }),
  /** Idempotency records (Powertools) of a workspace: `SK = IDEMPOTENCY#<hash of the key>`. */
  idempotencyPartition: (workspaceId: string) => `${ws(workspaceId)}#IDEMPOTENCY`,

  clientIndexes: (workspaceId: string, id: string, status: string) => ({
    GSI1PK: `${ws(workspaceId)}#CLIENT#STATUS#${status}`,
    GSI1SK: `CLIENT#${id}`,
  }),
  projectIndexes: (workspaceId: string, id: string, clientId: string, status: string) => ({
    GSI1PK: `${ws(workspaceId)}#PROJECT#STATUS#${status}`,
    GSI1SK: `PROJECT#${id}`,
    GSI2PK: `${ws(workspaceId)}#CLIENT#${clientId}#PROJECT`,
    GSI2SK: `PROJECT#${id}`,
    GSI3PK: `${ws(workspaceId)}#CLIENT#${clientId}#PROJECT`,
    GSI3SK: `STATUS#${status}#PROJECT#${id}`,
  }),
  /** The index attributes that follow a project's status (none of them needs the client). */
  projectStatusIndexes: (workspaceId: string, id: string, status: string) => ({
    GSI1PK: `${ws(workspaceId)}#PROJECT#STATUS#${status}`,
    GSI3SK: `STATUS#${status}#PROJECT#${id}`,
  }),
  /**
   * Events live in a partition of their own per workspace, sorted by id, and ids sort by the
   * workspace's event sequence (see docs/decisions/0010-event-feed-order.md). The sequence's
   * counter, the per-change dedupe markers and the deletion records are internal items beside them.
   */
  eventPartition: (workspaceId: string) => `${ws(workspaceId)}#EVENT`,
  event: (workspaceId: string, eventId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#EVENT`, SK: `EVENT#${eventId}` }),
  eventSequence: (workspaceId: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#EVENT`, SK: 'SEQUENCE' }),
  /** One per change turned into an event: what makes a redelivered stream record a no-op. */
  eventSource: (workspaceId: string, change: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#EVENT_SOURCE`, SK: change }),
  /** Written in the delete's transaction: carries the delete's request id and time to its event. */
  deletion: (workspaceId: string, kind: Kind, id: string): PrimaryKey => ({ PK: `${ws(workspaceId)}#DELETION`, SK: `${kind}#${id}` }),
  /** The number of webhook endpoints of a workspace (capped). */
  webhookEndpointCount: (workspaceId: string): PrimaryKey => ({ PK: ws(workspaceId), SK: 'WEBHOOK_ENDPOINT_COUNT' }),
  timeEntryIndexes: (workspaceId: string, id: string, clientId: string, projectId: string | null) => ({
    ...(projectId === null
      ? {}
      : { GSI2PK: `${ws(workspaceId)}#PROJECT#${projectId}#TIME_ENTRY`, GSI2SK: `TIME_ENTRY#${id}` }),
    GSI3PK: `${ws(workspaceId)}#CLIENT#${clientId}#TIME_ENTRY`,
    GSI3SK: `TIME_ENTRY#${id}`,
  }),
};

/** Where a list is read from: the base table's workspace partition or a GSI partition. */
export interface ListSource {
  index: IndexName | undefined;
  partitionKey: string;
  kind: Kind;
  /** What the index's sort key holds before the item's own sort key (`STATUS#ACTIVE#`, or ''). */
  sortKeyPrefix: string;
}

export const listSources = {
  clients: (workspaceId: string, status?: string): ListSource =>
    status === undefined
      ? { index: undefined, partitionKey: ws(workspaceId), kind: 'CLIENT', sortKeyPrefix: '' }
      : { index: 'GSI1', partitionKey: keys.clientIndexes(workspaceId, '', status).GSI1PK, kind: 'CLIENT', sortKeyPrefix: '' },
  projects: (workspaceId: string, filter: { status?: string; clientId?: string }): ListSource => {
    const { status, clientId } = filter;
    if (clientId !== undefined) {
      const k = keys.projectIndexes(workspaceId, '', clientId, status ?? '');
      return status === undefined
        ? { index: 'GSI2', partitionKey: k.GSI2PK, kind: 'PROJECT', sortKeyPrefix: '' }
        : { index: 'GSI3', partitionKey: k.GSI3PK, kind: 'PROJECT', sortKeyPrefix: `STATUS#${status}#` };
    }
    if (status !== undefined) {
      return { index: 'GSI1', partitionKey: keys.projectIndexes(workspaceId, '', '', status).GSI1PK, kind: 'PROJECT', sortKeyPrefix: '' };
    }
    return { index: undefined, partitionKey: ws(workspaceId), kind: 'PROJECT', sortKeyPrefix: '' };
  },
  /** A workspace's events, in id order (the workspace's event sequence). */
  events: (workspaceId: string): ListSource => ({ index: undefined, partitionKey: `${ws(workspaceId)}#EVENT`, kind: 'EVENT', sortKeyPrefix: '' }),
  webhookEndpoints: (workspaceId: string): ListSource => ({ index: undefined, partitionKey: ws(workspaceId), kind: 'WEBHOOK_ENDPOINT', sortKeyPrefix: '' }),
  timeEntries: (workspaceId: string, filter: { projectId?: string; clientId?: string }): ListSource => {
    if (filter.projectId !== undefined) {
      return {
        index: 'GSI2',
        partitionKey: keys.timeEntryIndexes(workspaceId, '', '', filter.projectId).GSI2PK!,
        kind: 'TIME_ENTRY',
        sortKeyPrefix: '',
      };
    }
    if (filter.clientId !== undefined) {
      return {
        index: 'GSI3',
        partitionKey: keys.timeEntryIndexes(workspaceId, '', filter.clientId, null).GSI3PK,
        kind: 'TIME_ENTRY',
        sortKeyPrefix: '',
      };
    }
    return { index: undefined, partitionKey: ws(workspaceId), kind: 'TIME_ENTRY', sortKeyPrefix: '' };
  },
};

/** The key attributes of a list item at `sortKey`, in the source it was read from (ExclusiveStartKey). */
export function startKeyFor(source: ListSource, workspaceId: string, sortKey: string): Record<string, string> {
  if (source.index === undefined) return { PK: source.partitionKey, SK: sortKey };
  const base = { PK: ws(workspaceId), SK: sortKey };
  return { ...base, [`${source.index}PK`]: source.partitionKey, [`${source.index}SK`]: `${source.sortKeyPrefix}${sortKey}` };
}
