// One cold start: a fresh Node process imports a bundle and serves its first request.
// Plain JavaScript on purpose: the bundle runs under plain `node`, as on Lambda (no tsx loader).
//
//   node cold-child.mjs <bundle path>     (event in BENCH_EVENT, JSON)
//
// Prints one JSON line: the time since the process started (performance.now() counts from the
// process's time origin) when the import began, when it ended, and when the first reply came.
import { pathToFileURL } from 'node:url';

const event = JSON.parse(process.env.BENCH_EVENT ?? '{}');
// BENCH_JWKS_MODE=inline: the authorizer's key set is already in memory (what a cached or bundled
// key set costs): its GET of LOCAL_JWKS_URI, over node:http or fetch(), is answered here.
if (process.env.BENCH_JWKS_MODE === 'inline') {
  const http = (await import('node:http')).default;
  const { syncBuiltinESMExports } = await import('node:module');
  const { Readable } = await import('node:stream');
  const { EventEmitter } = await import('node:events');
  const body = Buffer.from(process.env.BENCH_JWKS ?? '');
  const isJwks = (input) => String(input) === process.env.LOCAL_JWKS_URI;
  const realGet = http.get;
  http.get = (input, ...rest) => {
    if (!isJwks(input)) return realGet(input, ...rest);
    const callback = rest.find((a) => typeof a === 'function');
    const request = new EventEmitter();
    request.end = () => request;
    queueMicrotask(() => {
      const response = Readable.from([body]);
      response.statusCode = 200;
      callback?.(response);
    });
    return request;
  };
  syncBuiltinESMExports(); // the bundle's `import { get } from 'node:http'` now sees the stub
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) =>
    isJwks(input) ? { ok: true, status: 200, arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) } : realFetch(input, init);
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
