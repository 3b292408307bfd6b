/**
 * An invoice's retrieve with a PDF Accept, handed over to the document's function with Lambda's
 * Invoke (shared/http/hand-over.ts; decision 0034): the event goes as it came to the function
 * HAND_OVER_FUNCTION names, its answer comes back as it is; a refusal of the frame (scope, Accept)
 * invokes nothing; a failed invocation is a 503 with Retry-After and one log line, never a 500.
 * Lambda is mocked (aws-sdk-client-mock): the local stack calls the handler in process instead.
 */
import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importHandler, lambdaContext, proxyEvent, type ProxyHandler } from '../support/in-process.ts';
import { withLogs } from '../support/logs.ts';

const DOCUMENT_FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:retrieveInvoiceDocument:live';
const ID = 'inv_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const lambda = mockClient(LambdaClient);
let retrieve: ProxyHandler;

beforeAll(async () => {
  Object.assign(process.env, { TABLE_NAME: 'timebill-hand-over', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', HAND_OVER_FUNCTION: DOCUMENT_FUNCTION });
  retrieve = await importHandler('functions/invoices/retrieve.ts');
});
beforeEach(() => lambda.reset());

const pdfRequest = (headers: Record<string, string> = { Accept: 'application/pdf' }, scopes?: string[]) =>
  proxyEvent('ws-hand-over', 'GET', `/api/v1/invoices/${ID}`, { id: ID, headers, resource: '/api/v1/invoices/{id}', ...(scopes ? { scopes } : {}) });

describe("an invoice's retrieve with a PDF Accept", () => {
  it("invokes the document's function with the event as it came, and answers its result as it is", async () => {
    const answered = { statusCode: 200, headers: { 'Content-Type': 'application/pdf', ETag: '"abc"' }, body: Buffer.from('%PDF-1.7').toString('base64'), isBase64Encoded: true };
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(answered)) as never });
    const event = pdfRequest({ Accept: 'application/json;q=0.5, application/pdf' });
    expect(await retrieve(event, lambdaContext())).toEqual(answered);
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input.FunctionName).toBe(DOCUMENT_FUNCTION);
    expect(JSON.parse(String(calls[0]!.args[0].input.Payload))).toEqual(event);
  });

  it('invokes nothing for a caller without the scope, or an Accept that takes neither JSON nor PDF', async () => {
    const forbidden = await retrieve(pdfRequest(undefined, ['clients:read']), lambdaContext());
    const refused = await retrieve(pdfRequest({ Accept: 'text/html' }), lambdaContext());
    expect([forbidden.statusCode, JSON.parse(forbidden.body).error.type, refused.statusCode, JSON.parse(refused.body).error.type]).toEqual([403, 'insufficient_scope', 406, 'not_acceptable']);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it('answers 503 with Retry-After when the function fails or Lambda throttles, with one log line naming Lambda', async () => {
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 200, FunctionError: 'Unhandled', Payload: new TextEncoder().encode('{"errorType":"Sandbox.Timedout"}') as never })
      .rejects(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } }));
    for (const expected of ['ServiceUnavailable', 'TooManyRequestsException']) {
      const { result, lines } = await withLogs(() => retrieve(pdfRequest(), lambdaContext()));
      const answer = (result as PromiseFulfilledResult<Awaited<ReturnType<ProxyHandler>>>).value;
      expect([answer.statusCode, answer.headers?.['Retry-After'], JSON.parse(answer.body).error.type], expected).toEqual([503, expect.stringMatching(/^\d+$/), 'service_unavailable']);
      expect(lines.map((line) => [line.level, line.message, line.dependency, line.errorName])).toEqual([['ERROR', 'Dependency failure', 'lambda', expected]]);
    }
  });
});
