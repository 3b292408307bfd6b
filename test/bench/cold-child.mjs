// One cold start: a fresh Node process imports a bundle and serves its first request.
// Plain JavaScript on purpose: the bundle runs under plain `node`, as on Lambda (no tsx loader).
//
//   node cold-child.mjs <bundle path>     (event in BENCH_EVENT, JSON)
//
// Prints one JSON line: the time since the process started (performance.now() counts from the
// process's time origin) when the import began, when it ended, and when the first reply came.
import { pathToFileURL } from 'node:url';

const event = JSON.parse(process.env.BENCH_EVENT ?? '{}');
// The local authorizer fetches its key set with the global fetch() (undici). In AWS the Cognito
// verifier uses aws-jwt-verify's own fetcher on node:https instead. BENCH_JWKS_MODE swaps it:
//   inline     the key set is already in memory (what a cached or bundled key set costs);
//   node-http  fetched with node:http, as aws-jwt-verify's own fetcher does (over https in AWS).
// Neither touches undici: the object returned has only the arrayBuffer() the fetcher reads.
const mode = process.env.BENCH_JWKS_MODE;
if (mode === 'inline' || mode === 'node-http') {
  const realFetch = globalThis.fetch;
  const { request } = mode === 'node-http' ? await import('node:http') : { request: undefined };
  const get = (uri) =>
    new Promise((resolve, reject) => {
      request(uri, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  globalThis.fetch = async (input, init) => {
    if (String(input) !== process.env.LOCAL_JWKS_URI) return realFetch(input, init);
    const body = mode === 'inline' ? Buffer.from(process.env.BENCH_JWKS ?? '') : await get(String(input));
    return { ok: true, status: 200, arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) };
  };
}
const context = {
  functionName: 'bench',
  awsRequestId: 'cold-start',
  getRemainingTimeInMillis: () => 10_000,
};

const importStart = performance.now();
const mod = await import(pathToFileURL(process.argv[2]).href);
const importEnd = performance.now();
let status;
try {
  const result = await mod.handler(event, context);
  status = result?.statusCode ?? (result?.policyDocument ? 'policy' : 'none');
  if (result?.principalId === 'invalid-token') status = 'invalid-token';
} catch (error) {
  status = `threw: ${error?.message ?? error}`;
}
const replied = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({ importStart, importEnd, replied, status, cpuMs: (cpu.user + cpu.system) / 1000, rssMb: process.memoryUsage().rss / 2 ** 20 })}\n`,
  () => process.exit(0),
);
