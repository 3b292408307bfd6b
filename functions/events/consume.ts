/**
 * The table's stream consumer (not a route): change records → events → delivery messages, and
 * the first plan page of each billing run that became running.
 * A thrown error fails the batch; the event source mapping bisects it and, past its retries,
 * sends the failing record's description to the on-failure queue (infra/stack.ts, from BACKGROUND_FUNCTIONS).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { consumeChanges } from '../../shared/webhooks/consumer.ts';
import * as logger from '../../shared/core/log.ts';
import type { StreamChange } from '../../shared/events/build.ts';
import { planStartedRuns } from '../../shared/billing/started-runs.ts';

export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  const records = event.Records as StreamChange[];
  // A billing run that became running is planned from here (decision 0033): its start, or its turn, cannot then be lost.
  const [result] = await Promise.all([consumeChanges(records), planStartedRuns(records)]);
  if (result.events.length > 0) {
    logger.debug('Stream batch consumed', { records: event.Records.length, events: result.events.length, deliveries: result.deliveries });
  }
};
