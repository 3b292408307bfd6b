/** The rule of every operation that takes no query parameter (all but the lists). */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invalidRequest } from '../core/errors.ts';

/** Any query parameter is a 400 naming each one: a mistake worth saying, never ignored. */
export function refuseQuery(event: APIGatewayProxyEvent): void {
  const names = Object.keys(event.multiValueQueryStringParameters ?? event.queryStringParameters ?? {});
  if (names.length > 0) throw invalidRequest(names.map((name) => ({ param: name, message: `${name} is not a known query parameter` })));
}
