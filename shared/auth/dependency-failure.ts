/**
 * What the authorizer cannot decide on: its dependencies (the registry, the issuer's signing keys)
 * failed. Such a request is answered 503 (docs/decisions/0007), never 401: only a token that is
 * really invalid may be refused.
 */
import { FetchError, JwksNotAvailableInCacheError, JwksValidationError, JwkValidationError } from 'aws-jwt-verify/error';

export class AuthorizerDependencyFailure extends Error {
  override readonly name = 'AuthorizerDependencyFailure';
  constructor(
    readonly dependency: 'dynamodb' | 'jwks',
    readonly errorName: string,
    readonly attempts: number | undefined,
  ) {
    super(`The authorizer's dependency ${dependency} failed: ${errorName}`);
  }
}

/**
 * aws-jwt-verify's errors that say the keys could not be had (fetch failed, JWKS not in the cache
 * yet, or the issuer served a malformed JWKS), as opposed to a token that fails verification.
 */
export function isKeyFetchFailure(error: unknown): boolean {
  return (
    error instanceof FetchError ||
    error instanceof JwksNotAvailableInCacheError ||
    error instanceof JwksValidationError ||
    error instanceof JwkValidationError
  );
}
