/**
 * `npm run token -- --workspace <id> --scopes <a,b> [--expires-in <seconds>]`: registers the
 * local API client of the workspace with the running local stack (on $PORT, default 3000) and
 * prints a bearer token as the last line of standard output. The scopes go into the token
 * exactly as given, so refusals (a foreign resource server's prefix, unknown scopes) can be tried.
 */
import { SCOPES } from '../shared/api/routes.ts';
import { RESOURCE_SERVER_IDENTIFIER } from '../infra/names.ts';
import { parseCommandLine } from './cli.ts';

const USAGE = [
  'Usage: npm run token -- --workspace <id> --scopes <comma-separated scopes> [--expires-in <seconds>]',
  `  --scopes      any of ${SCOPES.join(',')}`,
  '  --expires-in  the token\'s lifetime, -86400 to 86400 (default 3600; a negative one gives an expired token)',
  '  PORT          the local stack\'s port (default 3000)',
].join('\n');
const { values } = parseCommandLine(
  {
    options: {
      workspace: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
    },
  },
  USAGE,
);
if (!values.workspace || !values.scopes) {
  console.error(USAGE);
  process.exit(2);
}
const port = process.env.PORT ?? '3000';
const url = `http://127.0.0.1:${port}/_local/token`;
const body = {
  workspace: values.workspace,
  scopes: values.scopes.split(',').filter((s) => s !== ''),
  ...(values['expires-in'] ? { expires_in: Number(values['expires-in']) } : {}),
};
const granting = new Set<string>([...SCOPES, ...SCOPES.map((s) => `${RESOURCE_SERVER_IDENTIFIER}/${s}`)]);
const unrecognised = body.scopes.filter((s) => !granting.has(s));
if (unrecognised.length > 0) {
  console.error(`Warning: ${unrecognised.join(', ')} grant${unrecognised.length === 1 ? 's' : ''} nothing here (scopes: ${SCOPES.join(', ')}, bare or as ${RESOURCE_SERVER_IDENTIFIER}/<scope>); put in the token as given.`);
}
let response: Response;
try {
  response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
} catch {
  console.error(`No local stack answers on port ${port}: start it with \`npm start\` (same PORT) first.`);
  process.exit(1);
}
const payload = (await response.json()) as { access_token?: string; expires_in?: number; scope?: string; error?: { message: string } };
if (!response.ok || !payload.access_token) {
  console.error(`Token refused: ${payload.error?.message ?? response.status}`);
  process.exit(1);
}
console.error(`Workspace ${values.workspace}, scopes ${payload.scope}, valid ${payload.expires_in} s`);
console.log(payload.access_token);
