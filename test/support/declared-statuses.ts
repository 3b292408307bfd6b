/**
 * Every response the integration suites see must have a status its operation declares in the
 * OpenAPI document: the request helpers call this on each response, so a status the document
 * does not declare fails the test that saw it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROUTES } from '../../shared/api/routes.ts';
import { matchPath } from '../../infra/local/gateway.ts';

type Operations = Record<string, Record<string, { responses: Record<string, unknown> }>>;

const paths = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as { paths: Operations }).paths;

/** Throws when `status` is not declared for the operation `method url` names; other URLs are not operations. */
export function assertDeclaredStatus(method: string, url: string, status: number): void {
  const path = new URL(url, 'http://localhost').pathname;
  const route = ROUTES.find((r) => r.method === method.toUpperCase() && matchPath(r.path, path) !== undefined);
  if (!route) return; // an unknown route (a gateway 404) or a local endpoint: no operation to hold to
  const declared = paths[route.path]?.[route.method.toLowerCase()]?.responses ?? {};
  if (!(String(status) in declared)) {
    throw new Error(
      `${method} ${path} answered ${status}, which the OpenAPI document does not declare for ${route.operation} (declared: ${Object.keys(declared).join(', ')})`,
    );
  }
}
