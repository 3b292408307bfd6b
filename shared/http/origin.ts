/** The origin and stage prefix a request reached, as its own headers say it (the API description's `servers`, a CSV page's `Link`). */
import type { APIGatewayProxyEvent } from 'aws-lambda';

const HOST = /^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/;
const PREFIX = /^(?:\/[\w.-]+)*$/;

export function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** The base URL this request reached (stage prefix included), or undefined when its headers do not say it plainly. */
export function servedFrom(event: APIGatewayProxyEvent): string | undefined {
  const host = headerOf(event, 'host');
  const proto = headerOf(event, 'x-forwarded-proto') ?? 'http';
  const fullPath = event.requestContext?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  if (!host || !HOST.test(host) || (proto !== 'http' && proto !== 'https') || !PREFIX.test(prefix)) return undefined;
  return `${proto}://${host}${prefix}`;
}
