/**
 * The table's stream consumer (not a route): change records → events → delivery messages.
 * A thrown error fails the batch; the event source mapping bisects it and, past its retries,
 * sends the failing record's description to the on-failure queue (infra/stack.ts, from BACKGROUND_FUNCTIONS).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { consumeChanges } from '../../shared/webhooks/consumer.ts';
import * as logger from '../../shared/core/log.ts';
import type { StreamChange } from '../../shared/events/build.ts';

export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  const result = await consumeChanges(event.Records as StreamChange[]);
  if (result.events.length > 0) {
    logger.debug('Stream batch consumed', { records: event.Records.length, events: result.events.length, deliveries: result.deliveries });
  }
};
