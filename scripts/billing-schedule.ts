/**
 * `npm run billing-schedule -- --at <date-time>`: does what the billing schedules' sweep does at
 * that instant (contract, "Billing runs"), on the running local stack (on $PORT, default 3000):
 * for every workspace with auto_billing on, starts the runs due on its local day that are not yet
 * made, lists them, and exits 0 whether or not any was due.
 */
import { parseCommandLine } from './cli.ts';

const USAGE = [
  'Usage: npm run billing-schedule -- --at <date-time>',
  '  --at   the sweep\'s instant, e.g. 2026-12-01T05:00:00Z (a time zone offset is required)',
  '  PORT   the local stack\'s port (default 3000)',
].join('\n');
const { values } = parseCommandLine({ options: { at: { type: 'string' } } }, USAGE);
const at = values.at && /(Z|[+-]\d{2}:\d{2})$/.test(values.at) ? new Date(values.at) : undefined;
if (!at || Number.isNaN(at.getTime())) {
  console.error(USAGE);
  process.exit(2);
}
const port = process.env.PORT ?? '3000';
let response: Response;
try {
  response = await fetch(`http://127.0.0.1:${port}/_local/billing-schedule`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ at: at.toISOString() }) });
} catch {
  console.error(`No local stack answers on port ${port}: start it with \`npm start\` (same PORT) first.`);
  process.exit(1);
}
const payload = (await response.json()) as { started?: { id: string; workspace_id: string; billing_types: string[]; from: string; to: string; status: string }[]; error?: { message: string } };
if (!response.ok || !payload.started) {
  console.error(`The sweep failed: ${payload.error?.message ?? response.status}`);
  process.exit(1);
}
for (const run of payload.started) console.log(`${run.workspace_id} ${run.billing_types.join(',')} ${run.from}..${run.to} ${run.id} ${run.status}`);
console.error(`${payload.started.length} billing run${payload.started.length === 1 ? '' : 's'} started at ${at.toISOString()}`);
