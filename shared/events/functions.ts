/**
 * The events' functions that are not routes: the CDK stack deploys them (infra/events.ts) and
 * the local stack runs the same modules (infra/local/stream-poller.ts, infra/local/deliveries.ts).
 */
export const EVENT_FUNCTIONS = {
  /** Table stream → events → delivery messages. */
  consumer: { name: 'EventsConsumer', entry: 'functions/events/consume.ts' },
  /** Delivery queue → one signed POST per message. */
  delivery: { name: 'WebhookDelivery', entry: 'functions/events/deliver.ts' },
} as const;
