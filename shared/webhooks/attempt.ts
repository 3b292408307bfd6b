/**
 * One delivery attempt of a queued message, shared by the Lambda function
 * (functions/events/deliver.ts, SQS) and the local stack's scheduler: read the endpoint and the
 * event, post, record the attempt (a log line and metrics), and say what happens next.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SECRET_ATTRIBUTE, webhookEndpointItem } from '../domain/webhook-endpoints.ts';
import { objectOf } from '../model/objects.ts';
import { webhookEndpoint } from '../model/resources.ts';
import { deliver, type DeliveryOutcome } from './delivery.ts';
import { nextDelayMs, type RetrySchedule } from '../core/retry-schedule.ts';
import { urlPolicy } from '../core/ssrf.ts';
import { getEventItem, storedOf } from '../events/store.ts';
import type { DeliveryMessage } from './queue.ts';
import * as logger from '../core/log.ts';

export const METRICS_NAMESPACE = 'TimebillApi';
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'timebill-webhooks' });

export type Next =
  | { kind: 'delivered' }
  /** Nothing to deliver any more: the endpoint was deleted or disabled, or the event expired. */
  | { kind: 'dropped'; reason: string }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'dead_letter' };

export interface AttemptRecord {
  message: DeliveryMessage;
  attempt: number;
  outcome?: DeliveryOutcome;
  next: Next;
}

/** Called with every attempt's record (the local stack keeps them for its tests and bench). */
export type AttemptObserver = (record: AttemptRecord) => void;
let observer: AttemptObserver | undefined;
export const observeAttempts = (fn: AttemptObserver | undefined) => {
  observer = fn;
};

export async function attemptDelivery(message: DeliveryMessage, attempt: number, schedule: RetrySchedule): Promise<Next> {
  const endpoint = await webhookEndpointItem(message.workspace_id, message.endpoint_id);
  // The endpoint's API fields are in its data map; its secret beside them.
  const fields = endpoint ? objectOf(webhookEndpoint, endpoint) : undefined;
  const item = fields?.status === 'enabled' ? await getEventItem(message.workspace_id, message.event_id) : undefined;
  let next: Next;
  let outcome: DeliveryOutcome | undefined;
  if (!endpoint || !fields) next = { kind: 'dropped', reason: 'endpoint deleted' };
  else if (fields.status !== 'enabled') next = { kind: 'dropped', reason: 'endpoint disabled' };
  else if (!item) next = { kind: 'dropped', reason: 'event no longer kept' };
  else {
    const stored = storedOf(item);
    outcome = await deliver({ url: fields.url, secret: String(endpoint[SECRET_ATTRIBUTE]), eventId: stored.event.id, body: stored.body, policy: urlPolicy() });
    if (outcome.ok) next = { kind: 'delivered' };
    else {
      const delayMs = nextDelayMs(schedule, attempt);
      next = delayMs === undefined ? { kind: 'dead_letter' } : { kind: 'retry', delayMs };
    }
  }
  recordAttempt({ message, attempt, next, ...(outcome ? { outcome } : {}) });
  return next;
}

/** The attempt history an operator sees: one structured log line and metrics per attempt (the bench prices their bytes). */
export function recordAttempt(entry: AttemptRecord): void {
  const { message, attempt, outcome, next } = entry;
  const fields = {
    event_id: message.event_id,
    endpoint_id: message.endpoint_id,
    workspace_id: message.workspace_id,
    attempt,
    status: outcome?.status,
    error: outcome?.error,
    duration_ms: outcome?.durationMs,
    next: next.kind,
    ...(next.kind === 'retry' ? { retry_in_ms: next.delayMs } : {}),
    ...(next.kind === 'dropped' ? { reason: next.reason } : {}),
  };
  if (next.kind === 'delivered' || next.kind === 'dropped') logger.info('Webhook delivery attempt', fields);
  else logger.warn('Webhook delivery attempt failed', fields);
  if (outcome) {
    metrics.addMetric('WebhookDeliveryAttempts', MetricUnit.Count, 1);
    metrics.addMetric(outcome.ok ? 'WebhookDeliveriesSucceeded' : 'WebhookDeliveryFailures', MetricUnit.Count, 1);
    metrics.addMetric('WebhookDeliveryDuration', MetricUnit.Milliseconds, outcome.durationMs);
  }
  if (next.kind === 'dead_letter') metrics.addMetric('WebhookDeliveriesDeadLettered', MetricUnit.Count, 1);
  observer?.(entry);
}
