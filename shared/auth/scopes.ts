import { SCOPES, type Scope } from '../api/routes.ts';

/**
 * The API scopes a token grants. Exactly two forms grant one: the bare scope (`clients:read`) and
 * `<identifier>/clients:read` with this API's own resource-server identifier. Anything else grants
 * nothing: another resource server's scope of the same name (`other-api/clients:write`),
 * `a/b/clients:write`, `/clients:write`, unknown scopes.
 */
export function grantedScopes(scopeClaim: unknown, resourceServerIdentifier: string): Scope[] {
  if (typeof scopeClaim !== 'string') return [];
  const prefix = `${resourceServerIdentifier}/`;
  const granted = new Set<Scope>();
  for (const raw of scopeClaim.split(' ')) {
    const scope = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
    if ((SCOPES as readonly string[]).includes(scope)) granted.add(scope as Scope);
  }
  return [...granted];
}
