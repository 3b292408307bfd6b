/**
 * A request's headers read as API Gateway hands them over: one by name, whatever its spelling; and
 * the origin and stage prefix the request reached, as its own headers say it (the API
 * description's `servers`, a CSV page's `Link`). Small, so the public document's function holds it.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

const HOST = /^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/;
const PREFIX = /^(?:\/[\w.-]+)*$/;

export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The base URL this request reached (stage prefix included), or undefined when its headers do not say it plainly. */
export function servedFrom(event: APIGatewayProxyEvent): string | undefined {
  const host = header(event, 'host');
  const proto = header(event, 'x-forwarded-proto') ?? 'http';
  const fullPath = event.requestContext?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  if (!host || !HOST.test(host) || (proto !== 'http' && proto !== 'https') || !PREFIX.test(prefix)) return undefined;
  return `${proto}://${host}${prefix}`;
}
