/**
 * The AWS Parameters and Secrets Lambda Extension as a list function meets it in AWS once the
 * extension holds the secret: a local HTTP server answering `GET /secretsmanager/get?secretId=`
 * with the secret, for the cold starts of the functions that read the cursor key
 * (shared/core/config.ts). What it does not play: the extension's own start and its first call to
 * Secrets Manager (see test/bench/README.md).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BENCH_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-cursor-key';

export interface SecretsExtension {
  /** The environment a function gets in AWS to read the secret through the extension. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startSecretsExtension(secretString: string): Promise<SecretsExtension> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const known = url.pathname === '/secretsmanager/get' && url.searchParams.get('secretId') === BENCH_SECRET_ARN && req.headers['x-aws-parameters-secrets-token'] === 'bench';
    res.writeHead(known ? 200 : 400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(known ? { ARN: BENCH_SECRET_ARN, SecretString: secretString } : { message: 'unknown secret or token' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    env: {
      CURSOR_SIGNING_KEY_SECRET: BENCH_SECRET_ARN,
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String((server.address() as AddressInfo).port),
      AWS_SESSION_TOKEN: 'bench',
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
