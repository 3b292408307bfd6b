/**
 * The billing queue's worker (not a route; decision 0033): each message a run's plan page or one
 * client. A message whose work fails is reported failed and comes back after the queue's
 * visibility timeout; after its last receive, the dead-letter queue (dead-letters.ts).
 */
import type { SQSEvent } from 'aws-lambda';
import { eachBillingMessage } from '../../shared/billing/run-queue.ts';
import { workOn } from '../../shared/billing/work.ts';

// Each receive its own attempt: an invoice build it leaves behind is taken over once its lease is past.
export const handler = (event: SQSEvent) => eachBillingMessage(event, workOn, 'Billing work failed: the queue hands it back');
