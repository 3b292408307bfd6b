/**
 * A request handed over to another function (decision 0034): an invoice's retrieve whose Accept
 * prefers its PDF is answered by the document's function, so that the JSON retrieve's bundle and
 * cold start carry no PDF library. In AWS, Lambda's Invoke of the function named by
 * HAND_OVER_FUNCTION (its `live` alias: infra/stack.ts), with the event as it came; locally, the
 * local stack's stand-in (`useHandOverStandIn`), which calls the same handler in process.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { dependencyFailureOf } from '../data/faults.ts';
import type { HandOver } from './handler.ts';

type Invoke = (operation: string, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

let standIn: Invoke | undefined;

/** The local stack's: hand-overs call `invoke` instead of Lambda (set before any handler loads). */
export function useHandOverStandIn(invoke: Invoke | undefined): void {
  standIn = invoke;
}

/** The function's failure (a timeout, its memory exhausted): a dependency's, so a 503 with Retry-After (shared/data/faults.ts). */
class HandOverFailed extends Error {
  override readonly name = 'ServiceUnavailable';
  readonly dependency = 'lambda';
}

/** A hand-over of `mediaType` to `operation`'s function: configuration read at the caller's load. */
export function handOverTo(operation: string, mediaType: string): HandOver {
  if (standIn) {
    const invoke = standIn;
    return { mediaType, to: (event) => invoke(operation, event) };
  }
  const functionName = process.env.HAND_OVER_FUNCTION;
  if (!functionName) throw new Error(`Invalid function configuration: HAND_OVER_FUNCTION must name the function of ${operation}`);
  const lambda = new LambdaClient({ region: process.env.AWS_REGION ?? 'us-east-1', maxAttempts: 2 });
  return {
    mediaType,
    async to(event) {
      const out = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify(event) })).catch((error: unknown) => {
        // Lambda throttled or failed: a dependency's failure, logged as Lambda's; anything else (denied, no such function) is a bug.
        throw dependencyFailureOf(error) ? Object.assign(error as Error, { dependency: 'lambda' }) : error;
      });
      const payload = out.Payload ? new TextDecoder().decode(out.Payload) : '';
      if (out.FunctionError) throw new HandOverFailed(`${operation} failed (${out.FunctionError}): ${payload.slice(0, 200)}`);
      return JSON.parse(payload) as APIGatewayProxyResult;
    },
  };
}
