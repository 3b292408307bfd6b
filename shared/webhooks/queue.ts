/**
 * The delivery queue: one message per (event, matching endpoint). In AWS it is SQS; the local
 * stack plugs in its own scheduler (infra/local/deliveries.ts) with useDeliveryQueue.
 */
import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';

export interface DeliveryMessage {
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
}

export interface DeliveryQueue {
  send(messages: readonly DeliveryMessage[]): Promise<void>;
}

const QueueEnv = v.object({ DELIVERIES_QUEUE_URL: v.pipe(v.string(), v.url()), AWS_REGION: v.optional(v.string(), 'us-east-1') });

let queue: DeliveryQueue | undefined;

export function useDeliveryQueue(replacement: DeliveryQueue | undefined): void {
  queue = replacement;
}

export function deliveryQueue(): DeliveryQueue {
  queue ??= sqsQueue();
  return queue;
}

/** SQS batches hold at most 10 messages. */
const SQS_BATCH = 10;

function sqsQueue(): DeliveryQueue {
  const parsed = v.safeParse(QueueEnv, process.env);
  if (!parsed.success) throw new Error('Invalid function configuration: DELIVERIES_QUEUE_URL must be the URL of the deliveries queue (BACKGROUND_FUNCTIONS sendsTo)');
  const { DELIVERIES_QUEUE_URL, AWS_REGION } = parsed.output;
  const sqs = new SQSClient({ region: AWS_REGION, maxAttempts: 3 });
  return {
    async send(messages) {
      for (let start = 0; start < messages.length; start += SQS_BATCH) {
        const batch = messages.slice(start, start + SQS_BATCH);
        const out = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: DELIVERIES_QUEUE_URL,
            Entries: batch.map((message, i) => ({ Id: String(i), MessageBody: JSON.stringify(message) })),
          }),
        );
        // A partial failure fails the stream batch, which is retried: deliveries are at least once.
        if (out.Failed && out.Failed.length > 0) throw new Error(`SQS refused ${out.Failed.length} delivery messages: ${out.Failed[0]?.Code}`);
      }
    },
  };
}

export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Partial<DeliveryMessage>;
    if (typeof value.workspace_id === 'string' && typeof value.endpoint_id === 'string' && typeof value.event_id === 'string') {
      return { workspace_id: value.workspace_id, endpoint_id: value.endpoint_id, event_id: value.event_id };
    }
  } catch {
    /* not ours */
  }
  return undefined;
}
