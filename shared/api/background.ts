/**
 * The functions that are not routes, beside the route table (routes.ts): triggered by the
 * table's stream or an SQS queue. A module of their own, so that the API functions' bundles do
 * not carry them.
 */
import { AWS_RETRY_SCHEDULE } from '../core/retry-schedule.ts';
import { ROUTES, type FunctionBase, type TableAccess } from './routes.ts';

/**
 * Functions that are not routes: triggered by a DynamoDB stream or an SQS queue. Each says what
 * it may do to the table and what else it needs (least privilege in the CDK stack); the stack,
 * the bundle-size script and the bench build them as they do the routes.
 */
export type BackgroundFunction = FunctionBase & {
  readonly table: TableAccess;
  readonly description: string;
  /** Function timeout (default: the routes'); a queue's visibility timeout is six times its consumer's. */
  readonly timeoutSeconds?: number;
} & (
    | { readonly trigger: 'table-stream'; readonly batchSize?: number }
    | {
        readonly trigger: 'queue';
        readonly queue: string;
        readonly batchSize?: number;
        /** Receives of a message before its queue moves it to the dead-letter queue (default 5). */
        readonly maxReceives?: number;
      }
    /** The dead-letter queue of `queue`: what its consumer gave up on. */
    | { readonly trigger: 'dead-letters'; readonly queue: string; readonly batchSize?: number }
    /** An EventBridge Scheduler schedule (`rate(…)` or `cron(…)`, in UTC). */
    | { readonly trigger: 'schedule'; readonly schedule: string }
  ) & {
    /** Queues (by name) the function sends messages to. */
    readonly sendsTo?: readonly string[];
  };

export const BACKGROUND_FUNCTIONS = [
  // Events (docs/events.md): the table's changes become events, each queued once per endpoint that wants it.
  {
    operation: 'recordEvents',
    entry: 'functions/events/consume.ts',
    description: 'Turns table changes into events and queues their webhook deliveries',
    trigger: 'table-stream',
    // Reads deletion records, the sequence and the endpoints (Query on the table); appends events in transactions.
    table: 'events',
    // Deliveries of its events, and the first plan page of each billing run that became running.
    sendsTo: ['deliveries', 'billing'],
    // A batch of 100 changes: a few transactions, reads and SQS batches, each within the DynamoDB budget (8.5 s at worst).
    timeoutSeconds: 60,
  },
  {
    operation: 'deliverWebhooks',
    entry: 'functions/events/deliver.ts',
    description: 'Posts each queued event to its webhook endpoint, retried on the delivery schedule',
    trigger: 'queue',
    queue: 'deliveries',
    // Reads the endpoint and the event by key, nothing else.
    table: 'getItem',
    // Ten messages at once, each: two reads (8.5 s each at worst), DNS and the 10 s POST (DELIVERY_TIMEOUT_MS).
    timeoutSeconds: 30,
    // Every attempt of the schedule (shared/core/retry-schedule.ts) is a receive; after the last, the dead-letter queue.
    maxReceives: AWS_RETRY_SCHEDULE.maxAttempts,
  },
  // Billing runs (decision 0033): a plan page sends its clients' messages; a client's message makes its invoice.
  {
    operation: 'workOnBillingRuns',
    entry: 'functions/billing-runs/work.ts',
    description: "Bills a billing run's clients: a plan page's messages, or one client's invoice",
    trigger: 'queue',
    queue: 'billing',
    // A client's work is an invoice's create (reads, transactions) and its outcome.
    table: 'write',
    sendsTo: ['billing'],
    // Ten messages at once, each an invoice's create at worst (its budget, 8.5 s a call, a few calls).
    timeoutSeconds: 60,
    maxReceives: 5,
  },
  {
    operation: 'giveUpBillingWork',
    entry: 'functions/billing-runs/dead-letters.ts',
    description: 'Gives each client whose billing work failed on every receive its outcome (failed), so its run completes',
    trigger: 'dead-letters',
    queue: 'billing',
    table: 'write',
    // Ten messages at once, each a row and the run's completion: a few calls of 8.5 s at worst.
    timeoutSeconds: 30,
  },
  // Scheduled billing runs (contract, "Billing runs"): each workspace with auto_billing on gets the runs due on its local day.
  {
    operation: 'sweepBillingSchedules',
    entry: 'functions/billing-runs/sweep.ts',
    description: 'Starts the billing runs due on each auto-billing workspace\'s local day, once per workspace, billing type and day',
    trigger: 'schedule',
    // In UTC: a cron in a zone would skip the hours a time change removes.
    schedule: 'rate(15 minutes)',
    // Reads the schedules and starts runs (transactions).
    table: 'write',
    // A page of workspaces and their runs' starts: a few calls of 8.5 s at worst each, many workspaces.
    timeoutSeconds: 300,
  },
] as const satisfies readonly BackgroundFunction[];

/** Every function the stack deploys, routes or not, by name and entry. */
export const FUNCTION_ENTRIES: readonly { name: string; entry: string }[] = [
  ...ROUTES.map((r) => ({ name: r.operation as string, entry: r.entry as string })),
  ...(BACKGROUND_FUNCTIONS as readonly BackgroundFunction[]).map((f) => ({ name: f.operation, entry: f.entry })),
];
