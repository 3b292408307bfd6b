/**
 * The local token issuer: stands in for Cognito on the local stack. An RS256 key pair is
 * generated on first use into a git-ignored folder and published as a JWKS; tokens carry the
 * claims of a Cognito client-credentials access token, so the same authorizer verifies both.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { readOrCreateOnce } from './state-file.ts';

export const LOCAL_ISSUER = 'https://issuer.timebill.local';

export interface LocalIssuer {
  jwks: { keys: Record<string, unknown>[] };
  mint(claims: { clientId: string; scopes: readonly string[]; ttlSeconds?: number; extra?: Record<string, unknown> }): string;
}

export function loadOrCreateIssuer(keyDir: string): LocalIssuer {
  const pem = readOrCreateOnce(join(keyDir, 'private-key.pem'), () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  return issuerFromKey(createPrivateKey(pem));
}

export function issuerFromKey(privateKey: KeyObject, issuer = LOCAL_ISSUER): LocalIssuer {
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, unknown>;
  const kid = createHash('sha256').update(`${publicJwk.e}.${publicJwk.n}`).digest('base64url').slice(0, 16);
  const jwks = { keys: [{ ...publicJwk, kid, alg: 'RS256', use: 'sig' }] };
  return {
    jwks,
    mint({ clientId, scopes, ttlSeconds = 3600, extra = {} }) {
      const now = Math.floor(Date.now() / 1000);
      const header = { alg: 'RS256', kid, typ: 'JWT' };
      const payload = {
        sub: clientId,
        client_id: clientId,
        token_use: 'access',
        scope: scopes.join(' '),
        iss: issuer,
        iat: now,
        auth_time: now,
        exp: now + ttlSeconds,
        jti: randomUUID(),
        ...extra,
      };
      const signingInput = `${b64(header)}.${b64(payload)}`;
      const signature = sign('sha256', Buffer.from(signingInput), privateKey).toString('base64url');
      return `${signingInput}.${signature}`;
    },
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
