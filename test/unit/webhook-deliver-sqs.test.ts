/**
 * The AWS delivery function (functions/events/deliver.ts) over SQS (events.md: "retried with
 * exponential backoff and jitter for at least 3 days in AWS ... deliveries go through SQS with a
 * dead-letter queue"): a failed attempt hands its message back after the schedule's delay (its
 * visibility timeout) and reports it failed; an acknowledged one is reported done; the last
 * attempt is left to the queue's redrive to the dead-letter queue. SQS and the table are mocked
 * (neither is on the local stack's delivery path); the receiver is a real HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withLogs } from '../support/logs.ts';

Object.assign(process.env, {
  TABLE_NAME: 'timebill-unit',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  WEBHOOK_ALLOW_LOOPBACK: 'true',
});
const { handler } = await import('../../functions/events/deliver.ts');
const { AWS_RETRY_SCHEDULE, JITTER, baseDelayMs } = await import('../../shared/core/retry-schedule.ts');
const { eventItem } = await import('../../shared/events/store.ts');
const { newSecret } = await import('../../shared/core/webhook-signature.ts');
const { keys } = await import('../../shared/data/keys.ts');
const { webhookEndpoint } = await import('../../shared/model/resources.ts');

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const WS = 'ws-sqs';
const ENDPOINT_ID = 'we_01M80V5QD5HHXT44J8T6S4HD6W';
const EVENT_ID = 'evt_0000000001ABCDEFGHJKMNPQRS';
const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:deliveries';

let server: Server;
let status = 200;
let posts = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts += 1;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  posts = 0;
  const at = new Date().toISOString();
  const event = { object: 'event' as const, id: EVENT_ID, type: 'client.created' as const, created_at: at, workspace_id: WS, request_id: 'req-1', data: { object: { object: 'client', id: 'cli_01M80V5QD5HHXT44J8T6S4HD6X' } } };
  const endpoint = {
    ...keys.item(WS, webhookEndpoint.type, ENDPOINT_ID),
    secret: newSecret(),
    data: { id: ENDPOINT_ID, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, enabled_events: ['*'], description: null, status: 'enabled', workspace_id: WS, created_at: at, updated_at: at },
  };
  const stored = eventItem({ event, body: JSON.stringify(event), sequence: 1 });
  ddb.on(GetCommand).callsFake((input: { Key: { SK: string } }) => ({ Item: input.Key.SK === endpoint.SK ? endpoint : stored }));
});

const batch = (receiveCount: number): SQSEvent => ({
  Records: [
    {
      messageId: 'm1',
      receiptHandle: 'rh1',
      body: JSON.stringify({ workspace_id: WS, endpoint_id: ENDPOINT_ID, event_id: EVENT_ID }),
      attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: QUEUE_ARN,
      awsRegion: 'eu-west-1',
    },
  ],
});

/** Runs the handler on one message received this many times; its response and log records. */
async function deliverOnce(receiveCount: number) {
  const { result, lines } = await withLogs(() => handler(batch(receiveCount)));
  if (result.status === 'rejected') throw result.reason;
  return { response: result.value, lines: lines.filter((l) => l.message !== undefined) };
}

describe('the AWS delivery function', () => {
  it('acknowledges the message of a delivery the receiver acknowledged', async () => {
    status = 204;
    const { response, lines } = await deliverOnce(1);
    expect(posts).toBe(1);
    expect(response.batchItemFailures).toEqual([]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    expect(lines.filter((l) => l.level === 'WARN' || l.level === 'ERROR')).toEqual([]);
  });

  it.each([1, 5, 10])('hands a failed attempt %i back to the queue after the next delay of the schedule, as a failure', async (attempt) => {
    status = 503;
    const { response, lines } = await deliverOnce(attempt);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    const calls = sqs.commandCalls(ChangeMessageVisibilityCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input.QueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries');
    expect(input.ReceiptHandle).toBe('rh1');
    const base = baseDelayMs(AWS_RETRY_SCHEDULE, attempt) / 1000;
    expect(input.VisibilityTimeout).toBeGreaterThanOrEqual(base);
    expect(input.VisibilityTimeout).toBeLessThanOrEqual(Math.min(Math.ceil(base * (1 + JITTER)), AWS_RETRY_SCHEDULE.capMs / 1000));
    expect(lines).toMatchObject([{ level: 'WARN', message: 'Webhook delivery attempt failed', attempt, status: 503, next: 'retry', retry_in_ms: expect.any(Number) }]);
  });

  it('leaves the last attempt of the schedule, failed, to the redrive to the dead-letter queue', async () => {
    status = 500;
    const { response, lines } = await deliverOnce(AWS_RETRY_SCHEDULE.maxAttempts);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    expect(lines).toMatchObject([{ level: 'WARN', message: 'Webhook delivery attempt failed', attempt: AWS_RETRY_SCHEDULE.maxAttempts, next: 'dead_letter' }]);
  });
});
