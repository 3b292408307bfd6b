/**
 * The delivery queue: one message per (event, matching endpoint). In AWS it is SQS; the local
 * stack plugs in its own scheduler (infra/local/deliveries.ts) with useDeliveryQueue.
 */
import { swappableQueue, type MessageQueue } from '../core/sqs-queue.ts';

export interface DeliveryMessage {
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
}

export type DeliveryQueue = MessageQueue<DeliveryMessage>;

const deliveries = swappableQueue<DeliveryMessage>('deliveries');
export const useDeliveryQueue = deliveries.use;
export const deliveryQueue = deliveries.get;

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
