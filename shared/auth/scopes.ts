import { SCOPES, type Scope } from '../routes.ts';

/**
 * The API scopes a token grants. Cognito writes resource-server scopes as
 * `<identifier>/clients:read`; bare `clients:read` is accepted too. Unknown scopes are ignored.
 */
export function grantedScopes(scopeClaim: unknown): Scope[] {
  if (typeof scopeClaim !== 'string') return [];
  const granted = new Set<Scope>();
  for (const raw of scopeClaim.split(' ')) {
    const bare = raw.slice(raw.lastIndexOf('/') + 1);
    if ((SCOPES as readonly string[]).includes(bare)) granted.add(bare as Scope);
  }
  return [...granted];
}
