// One load run with autocannon, in its own process so that the load generator does not share
// the event loop of the local stack it measures. Options in BENCH_LOAD (JSON); prints the
// result as one JSON line. Only loopback targets are accepted.
import autocannon from 'autocannon';

const options = JSON.parse(process.env.BENCH_LOAD ?? '{}');
const { hostname } = new URL(options.url);
if (hostname !== '127.0.0.1' && hostname !== 'localhost' && hostname !== '[::1]') {
  console.error(`refusing to load ${hostname}: the benchmark only targets the loopback interface`);
  process.exit(2);
}
const result = await autocannon({
  url: options.url,
  method: options.method,
  headers: options.headers,
  body: options.body,
  connections: options.connections,
  duration: options.duration,
  ...(options.overallRate ? { overallRate: options.overallRate } : {}),
  timeout: 10,
});
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.total / (result.duration || options.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    duration: result.duration,
  })}\n`,
  () => process.exit(0),
);
