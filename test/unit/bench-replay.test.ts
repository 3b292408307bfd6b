/**
 * The bench's warm section (test/bench/warm.ts) records one real run of a handler, then answers
 * its DynamoDB calls from the recording. Concurrent calls (a finalize reads the invoice and the
 * workspace's counter at once) go out and are answered in either order, so a replay must give each
 * request the answer recorded for it (test/bench/lib/sdk-hooks.ts, replayIndex), not the next one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/data/dynamo.ts';
import { installHooks, record, rewindReplay, startReplay, stopReplay } from '../bench/lib/sdk-hooks.ts';

/**
 * A stand-in for DynamoDB: GetItem answers with the key's own item, the 'slow' one only once the
 * 'fast' one has been answered (whatever the load, not after a fixed delay).
 */
let server: Server;
const answered: string[] = [];
let answerSlow: (() => void) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const pk = (JSON.parse(body) as { Key: { PK: { S: string } } }).Key.PK.S;
      const answer = () => {
        answered.push(pk);
        res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ Item: { PK: { S: pk } } }));
      };
      if (pk === 'fast') {
        answer();
        answerSlow?.();
      } else if (answered.includes('fast')) answer();
      else answerSlow = answer;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vi.stubEnv('DYNAMODB_ENDPOINT', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  vi.stubEnv('TABLE_NAME', 'bench-replay');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  installHooks();
});

afterAll(async () => {
  stopReplay();
  dynamo().destroy();
  await new Promise((resolve) => server.close(resolve));
});

const bothAtOnce = () =>
  Promise.all(['slow', 'fast'].map(async (pk) => (await dynamo().send(new GetCommand({ TableName: 'bench-replay', Key: { PK: pk } }))).Item?.PK));

describe("the bench's recorded DynamoDB answers", () => {
  it('are replayed to the requests that received them, though the second request was answered first', async () => {
    const { result, responses } = await record(bothAtOnce);
    expect(result).toEqual(['slow', 'fast']);
    expect(answered).toEqual(['fast', 'slow']);
    startReplay(responses);
    try {
      for (let run = 0; run < 3; run++) {
        rewindReplay();
        expect(await bothAtOnce()).toEqual(['slow', 'fast']);
      }
    } finally {
      stopReplay();
    }
    // The replays asked the stand-in nothing.
    expect(answered).toHaveLength(2);
  });
});
