/**
 * A queue of JSON messages that the functions send to (webhook deliveries, billing runs): SQS in
 * AWS, at the URL its function's environment names (infra/stack.ts, from BACKGROUND_FUNCTIONS
 * `sendsTo`), read once at the first send; the local stack plugs in a stand-in of its own (`use`).
 */
import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';

export interface MessageQueue<M> {
  send(messages: readonly M[]): Promise<void>;
}

/** SQS batches hold at most 10 messages. */
const SQS_BATCH = 10;

/** The queue named `name` (its URL in `<NAME>_QUEUE_URL`): SQS unless a stand-in is in use. */
export function swappableQueue<M>(name: string): { use(replacement: MessageQueue<M> | undefined): void; get(): MessageQueue<M> } {
  let queue: MessageQueue<M> | undefined;
  return {
    use: (replacement) => {
      queue = replacement;
    },
    get: () => (queue ??= sqsQueue<M>(name)),
  };
}

function sqsQueue<M>(name: string): MessageQueue<M> {
  const variable = `${name.toUpperCase()}_QUEUE_URL`;
  const parsed = v.safeParse(v.object({ [variable]: v.pipe(v.string(), v.url()), AWS_REGION: v.optional(v.string(), 'us-east-1') }), process.env);
  if (!parsed.success) throw new Error(`Invalid function configuration: ${variable} must be the URL of the ${name} queue (BACKGROUND_FUNCTIONS sendsTo)`);
  const url = parsed.output[variable] as string;
  const sqs = new SQSClient({ region: parsed.output.AWS_REGION as string, maxAttempts: 3 });
  return {
    async send(messages) {
      for (let start = 0; start < messages.length; start += SQS_BATCH) {
        const batch = messages.slice(start, start + SQS_BATCH);
        const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: batch.map((message, i) => ({ Id: String(i), MessageBody: JSON.stringify(message) })) }));
        // A partial failure fails the sender, which is retried: its messages are at least once.
        if (out.Failed && out.Failed.length > 0) throw new Error(`SQS refused ${out.Failed.length} ${name} messages: ${out.Failed[0]?.Code}`);
      }
    },
  };
}
