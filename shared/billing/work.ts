/**
 * A billing message's work, shared by the Lambda functions (functions/billing-runs/) and the local
 * stack's queue: a plan page sends its clients' messages, then the next page's; a client is billed
 * once (domain/billing-runs.ts). A thrown error hands the message back to the queue.
 */
import { billClient, giveUpClient, planPage, type BillingMessage } from '../domain/billing-runs.ts';
import { billingQueue } from './run-queue.ts';

/** Does a message's work; `attemptId` names this attempt (an invoice's build lease is held by it). */
export async function workOn(message: BillingMessage, attemptId: string): Promise<void> {
  if (message.kind === 'client') return billClient(message, attemptId);
  const { clients, next } = await planPage(message);
  // The clients first: a page that dies before its next is received again and sends them again (a client's work is done once).
  await billingQueue().send([...clients, ...(next ? [next] : [])]);
}

/** A message the queue gave up on: a client gets its outcome (`failed`), so the run completes; a plan page stays in the dead-letter queue (thrown). */
export async function giveUp(message: BillingMessage): Promise<void> {
  if (message.kind === 'client') return giveUpClient(message);
  throw new Error(`billing run ${message.run_id}: a plan page failed on every attempt; redrive it from the dead-letter queue`);
}
