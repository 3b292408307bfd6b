import { Timebill, TimebillError } from '../src/index.ts';

const tb = new Timebill(process.env.TOKEN!, { baseUrl: process.env.API! }); // API ends in /api/v1
const client = await tb.clients.create({ company_name: 'Globex', company_email: 'ap@globex.test' });
const project = await tb.projects.create({ name: 'Website', billing_type: 'Monthly', client_id: client.id });
await tb.timeEntries.create({ project_id: project.id, started_at: new Date().toISOString(), duration_minutes: 90 });
await tb.clients.update(client.id, { status: 'ACTIVE' }, { ifMatch: client }); // sends the ETag client came with
for await (const c of tb.clients.list({ status: 'ACTIVE' })) console.log(c.id, c.company_name); // every page, lazily
try {
  await tb.clients.update(client.id, { status: 'LOST' }, { ifMatch: client }); // stale now: 412
} catch (e) {
  if (!(e instanceof TimebillError)) throw e;
  console.log(e.status, e.type, e.requestId);
}
