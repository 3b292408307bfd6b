import { Timebill, TimebillError } from '../src/index.ts';

const tb = new Timebill(process.env.TOKEN!, { baseUrl: process.env.API! }); // API ends in /api/v1
const client = await tb.clients.create({ company_name: 'Globex', company_email: 'ap@globex.test' });
const project = await tb.projects.create({ name: 'Website', billing_type: 'Monthly', client_id: client.id, hourly_rate: 120 });
await tb.timeEntries.create({ project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 90 }); // billable_rate: the project's
await tb.clients.update(client.id, { status: 'ACTIVE' }, { ifMatch: client }); // sends the ETag client came with
for await (const c of tb.clients.list({ status: 'ACTIVE' })) console.log(c.id, c.company_name); // every page, lazily
// What to bill: November in the client's time zone, by project (the amount exact, in its currency).
for await (const row of tb.timeSummaries.list({ from: '2026-11-01', to: '2026-12-01', timezone: 'Europe/Paris', group_by: 'project', client_id: client.id })) {
  console.log(row.currency, row.billable_minutes, row.billable_amount);
}
try {
  await tb.clients.update(client.id, { status: 'LOST' }, { ifMatch: client }); // stale now: 412
} catch (e) {
  if (!(e instanceof TimebillError)) throw e;
  console.log(e.status, e.type, e.requestId);
}
