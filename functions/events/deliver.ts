/**
 * The webhook delivery function (not a route), fed by the delivery queue. Each message is one
 * (event, endpoint) pair; its attempt number is SQS's receive count. A failed attempt sets the
 * message's visibility timeout to the schedule's next (jittered) delay and reports the message
 * as failed, so SQS hands it back then; after the last attempt the queue's redrive policy
 * (maxReceiveCount = the schedule's attempts) moves it to the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { attemptDelivery, metrics } from '../../shared/webhooks/attempt.ts';
import * as logger from '../../shared/core/log.ts';
import { parseDeliveryMessage } from '../../shared/webhooks/queue.ts';
import { AWS_RETRY_SCHEDULE } from '../../shared/core/retry-schedule.ts';

const sqs = new SQSClient({ region: process.env.AWS_REGION ?? 'us-east-1', maxAttempts: 3 });

/** `arn:aws:sqs:<region>:<account>:<name>` → its queue URL. */
const queueUrlOf = (arn: string) => {
  const [, partition, , region, account, name] = arn.split(':');
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
};

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const message = parseDeliveryMessage(record.body);
      if (!message) {
        logger.error('Unreadable delivery message dropped', { messageId: record.messageId });
        return;
      }
      const attempt = Number(record.attributes.ApproximateReceiveCount);
      try {
        const next = await attemptDelivery(message, attempt, AWS_RETRY_SCHEDULE);
        if (next.kind === 'retry') {
          await sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queueUrlOf(record.eventSourceARN),
              ReceiptHandle: record.receiptHandle,
              VisibilityTimeout: Math.ceil(next.delayMs / 1000),
            }),
          );
          failures.push({ itemIdentifier: record.messageId });
        } else if (next.kind === 'dead_letter') {
          failures.push({ itemIdentifier: record.messageId }); // its next receive exceeds maxReceiveCount
        }
      } catch (error) {
        // The table or SQS failed, not the receiver: SQS retries after the queue's visibility timeout.
        logger.error('Delivery attempt could not run', { ...message, attempt, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  metrics.publishStoredMetrics();
  return { batchItemFailures: failures };
};
