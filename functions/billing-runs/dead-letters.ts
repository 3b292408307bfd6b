/**
 * The billing dead-letter queue's consumer (not a route; decision 0033): a client whose work failed
 * on every receive gets its outcome, `failed` with `service_unavailable`, so its run completes. A plan
 * page is left in the queue (reported failed: its alarm pages; the runbook redrives it).
 */
import type { SQSEvent } from 'aws-lambda';
import { eachBillingMessage } from '../../shared/billing/run-queue.ts';
import { giveUp } from '../../shared/billing/work.ts';

export const handler = (event: SQSEvent) => eachBillingMessage(event, giveUp, 'Billing work given up on and not recorded: it stays in the dead-letter queue');
