/**
 * Deletion records: DynamoDB cannot write attributes on a delete, so a delete's request id and
 * time reach its event through a small item written in the delete's own transaction
 * (shared/domain/entity.ts). The stream consumer reads it (strongly consistent: the transaction
 * committed before the stream record exists) when it turns the REMOVE record into `*.deleted`.
 * It expires after 3 days, past the stream's 24-hour retention.
 */
import { dynamo, tableName } from './dynamo.ts';
import * as keys from './keys.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

/** Three days: past the stream's 24-hour retention, with room for a consumer that is behind. */
const DELETION_RECORD_TTL_SECONDS = 3 * 24 * 60 * 60;

export interface DeletionFacts {
  requestId: string | null;
  deletedAt: string | undefined;
}

/** The Put to add to a delete's transaction; `type` is the resource's type in keys (`CLIENT`). */
export function deletionRecordPut(workspaceId: string, type: string, id: string, requestId: string, now = new Date()) {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.deletion(workspaceId, type, id),
        request_id: requestId,
        deleted_at: now.toISOString(),
        expires_at: Math.floor(now.getTime() / 1000) + DELETION_RECORD_TTL_SECONDS,
      },
    },
  };
}

export async function deletionFacts(workspaceId: string, type: string, id: string): Promise<DeletionFacts> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.deletion(workspaceId, type, id), ConsistentRead: true }));
  return {
    requestId: typeof out.Item?.request_id === 'string' ? out.Item.request_id : null,
    deletedAt: typeof out.Item?.deleted_at === 'string' ? out.Item.deleted_at : undefined,
  };
}
