/**
 * The billing queue (decision 0033): a run's plan pages and its clients, one message each. In AWS
 * it is SQS, with a dead-letter queue; the local stack plugs in its own (infra/local/billing-queue.ts)
 * with useBillingQueue, as it does for webhook deliveries.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import * as logger from '../core/log.ts';
import { swappableQueue, type MessageQueue } from '../core/sqs-queue.ts';
import type { BillingMessage } from '../domain/billing-run-messages.ts';

export type BillingQueue = MessageQueue<BillingMessage>;

const billing = swappableQueue<BillingMessage>('billing');
export const useBillingQueue = billing.use;
export const billingQueue = billing.get;

const Id = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/));
const Message = v.variant('kind', [
  v.object({ kind: v.literal('plan'), workspace_id: Id, run_id: Id, after: v.nullable(v.pipe(v.string(), v.maxLength(200))), sent: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  v.object({ kind: v.literal('client'), workspace_id: Id, run_id: Id, client_id: Id }),
]);

/** A message of the queue, or undefined for anything else (dropped, logged). */
export function parseBillingMessage(body: string): BillingMessage | undefined {
  try {
    const parsed = v.safeParse(Message, JSON.parse(body));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An SQS batch of the billing queue (or its dead-letter queue) worked message by message: an
 * unreadable one is dropped (logged); one whose work throws is reported failed, and comes back.
 */
export async function eachBillingMessage(event: SQSEvent, work: (message: BillingMessage, receive: string) => Promise<void>, failed: string): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const message = parseBillingMessage(record.body);
      if (!message) return logger.error('Unreadable billing message dropped', { messageId: record.messageId });
      try {
        await work(message, `${record.messageId}:${record.attributes.ApproximateReceiveCount}`);
      } catch (error) {
        logger.warn(failed, { ...message, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
