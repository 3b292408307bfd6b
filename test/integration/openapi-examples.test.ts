/**
 * The OpenAPI document's examples: a request and a response of every operation, recorded from
 * the local stack (docs/openapi-examples.json, which scripts/openapi-document.ts puts in the
 * document) and valid against the document's own schemas.
 *
 * Re-record after changing an operation: `RECORD_OPENAPI_EXAMPLES=1 npx vitest run
 * test/integration/openapi-examples.test.ts`, then `npm run openapi`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EXAMPLES_FILE } from '../../scripts/openapi-document.ts';
import { ROUTES, type Operation } from '../../shared/api/routes.ts';
import { EVENT_TYPES } from '../../shared/model/event-types.ts';
import { call, workspace } from '../support/api.ts';
import { eventsOfEach } from '../support/events.ts';

interface Example {
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body?: unknown };
}

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, any>> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc, 'openapi.json');

/** The pointer of a JSON path segment. */
const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const operationPointer = (path: string, method: string) => `openapi.json#/paths/${escape(path)}/${method.toLowerCase()}`;

/** The messages of a value that fails the schema at `pointer`, or [] when it conforms. */
function failures(pointer: string, value: unknown): string[] {
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Every route's operation, with the pointer of its success response's schema. */
const operations = ROUTES.map((route) => {
  const operation = doc.paths[route.path]![route.method.toLowerCase()];
  const [status] = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
  return { route, operation, status: status!, pointer: operationPointer(route.path, route.method) };
});

/** A session that calls every operation once, as the README's integrator would. */
type Recording = Partial<Record<Operation, Example>> & { webhooks?: Record<string, unknown> };

async function record(): Promise<Recording> {
  const { token, api } = await workspace('examples');
  const examples: Recording = {};
  const send = async (operation: Operation, method: string, path: string, body?: unknown) => {
    const response = await call(method, path, { ...(operation === 'getOpenApiDocument' ? {} : { token }), body });
    examples[operation] = {
      request: { method, path, ...(body === undefined ? {} : { body }) },
      // The document's own response is the document: it is not repeated inside it; an invoice's PDF is bytes.
      response: { status: response.status, ...(operation === 'getOpenApiDocument' || operation === 'retrieveInvoiceDocument' ? {} : { body: response.body }) },
    };
    return response.body;
  };
  // The business that issues the invoices first: its details, and the taxes an invoice created without any takes.
  const BP = '/api/v1/business_profile';
  await send('updateBusinessProfile', 'PATCH', BP, {
    company_name: 'Studio Érable inc.',
    company_email: 'facturation@erable.test',
    company_address: '123 rue Saint-Denis\nMontréal QC  H2X 3K9',
    website: 'https://erable.test',
    phone: '+1 514 555 0100',
    business_number: '123456789',
    tps_number: '123456789 RT0001',
    tvq_number: '1234567890 TQ0001',
    invoice_footer: 'Merci de votre confiance. Payable dans les 30 jours.',
    bilingual_invoices: true,
    default_taxes: [
      { name: 'TPS', rate: 5 },
      { name: 'TVQ', rate: 9.975 },
    ],
  });
  await send('retrieveBusinessProfile', 'GET', BP);
  const C = '/api/v1/clients';
  const client = await send('createClient', 'POST', C, { company_name: 'Acme Inc', company_email: 'billing@acme.test', website: 'https://acme.test', language: 'FRENCH', currency: 'EUR' });
  await send('retrieveClient', 'GET', `${C}/${client.id}`);
  await send('updateClient', 'PATCH', `${C}/${client.id}`, { status: 'ACTIVE', tps_number: '123456789 RT0001' });
  await send('listClients', 'GET', `${C}?status=ACTIVE&limit=10`);
  const P = '/api/v1/projects';
  const project = await send('createProject', 'POST', P, {
    name: 'Website redesign',
    client_id: client.id,
    billing_type: 'Monthly',
    hourly_rate: 120.5,
    start_date: '2026-11-01T00:00:00Z',
    end_date: '2027-03-31T00:00:00Z',
  });
  await send('retrieveProject', 'GET', `${P}/${project.id}`);
  await send('updateProject', 'PATCH', `${P}/${project.id}`, { status: 'ON_HOLD', description: 'Paused until the new brand is ready' });
  await send('listProjects', 'GET', `${P}?client_id=${client.id}&limit=10`);
  const T = '/api/v1/time_entries';
  const entry = await send('logTimeEntry', 'POST', T, { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 90, description: 'Kick-off meeting' });
  await send('retrieveTimeEntry', 'GET', `${T}/${entry.id}`);
  await send('listTimeSummaries', 'GET', `/api/v1/time_summaries?from=2026-11-01&to=2026-12-01&timezone=Europe/Paris&group_by=project&period=week&client_id=${client.id}&limit=10`);
  await send('updateTimeEntry', 'PATCH', `${T}/${entry.id}`, { duration_minutes: 75, billable: false });
  await send('listTimeEntries', 'GET', `${T}?project_id=${project.id}&started_from=2026-11-01T00:00:00Z&limit=10`);
  // Invoices, of a client of their own (a client with an invoice, even a void one, is never deleted).
  const setup = async (path: string, body: unknown) => (await call('POST', path, { token, body })).body;
  const setupGet = async (path: string) => (await call('GET', path, { token })).body;
  const billed = await setup(C, { company_name: 'Globex', company_email: 'ap@globex.test', currency: 'EUR' });
  const retainer = await setup(P, { name: 'Support retainer', client_id: billed.id, billing_type: 'Monthly', hourly_rate: 95 });
  for (const [started_at, duration_minutes] of [['2026-10-14T13:00:00Z', 60], ['2026-11-05T08:30:00Z', 120], ['2026-11-19T14:00:00Z', 45], ['2026-12-02T09:00:00Z', 30]] as const) {
    await setup(T, { project_id: retainer.id, started_at, duration_minutes, description: 'Support' });
  }
  await send('logTimeEntryBatch', 'POST', `${T}/batch`, {
    entries: [
      { project_id: retainer.id, started_at: '2026-11-26T10:00:00Z', duration_minutes: 50, description: 'Support' },
      { client_id: billed.id, started_at: '2026-11-27T16:00:00Z', duration_minutes: 20, billable: false, description: 'Quarterly review call' },
    ],
  });
  const I = '/api/v1/invoices';
  const month = (from: string, to: string) => ({ client_id: billed.id, from, to, timezone: 'Europe/Paris' });
  const invoice = await send('createInvoice', 'POST', I, { ...month('2026-11-01', '2026-12-01'), discount_rate: 5, tax_rate: 20, purchase_order: 'PO-1042' });
  await send('retrieveInvoice', 'GET', `${I}/${invoice.id}`);
  await send('retrieveInvoiceDocument', 'GET', `${I}/${invoice.id}/document`);
  await send('updateInvoice', 'PATCH', `${I}/${invoice.id}`, { memo: 'Support, November 2026', due_date: '2026-12-31' });
  await send('listInvoices', 'GET', `${I}?client_id=${billed.id}&status=draft&limit=10`);
  await send('finalizeInvoice', 'POST', `${I}/${invoice.id}/finalize`, { issue_date: '2026-12-01' });
  // A first instalment, and one recorded by mistake (deleted); then pay records the balance.
  const PAY = `${I}/${invoice.id}/payments`;
  const instalment = await send('createPayment', 'POST', PAY, { amount: '100.00', paid_at: '2026-12-01T10:00:00Z', method: 'bank_transfer', reference: 'WIRE-20261201-0042' });
  const mistaken = await setup(PAY, { amount: '100.00', paid_at: '2026-12-01T10:05:00Z', method: 'bank_transfer', reference: 'WIRE-20261201-0042' });
  await send('listPayments', 'GET', `${PAY}?limit=10`);
  await send('retrievePayment', 'GET', `${PAY}/${instalment.id}`);
  await send('deletePayment', 'DELETE', `${PAY}/${mistaken.id}`);
  await send('payInvoice', 'POST', `${I}/${invoice.id}/pay`, { paid_at: new Date(Date.now() - 60_000).toISOString(), method: 'card', reference: 'Card ending 4242' });
  const october = await setup(I, month('2026-10-01', '2026-11-01'));
  await setup(`${I}/${october.id}/finalize`, {});
  await send('voidInvoice', 'POST', `${I}/${october.id}/void`, {});
  const december = await setup(I, month('2026-12-01', '2027-01-01'));
  await send('deleteInvoice', 'DELETE', `${I}/${december.id}`);
  // December, as a billing run: the deleted draft released its time.
  const BR = '/api/v1/billing_runs';
  const run = await send('startBillingRun', 'POST', BR, { from: '2026-12-01', to: '2027-01-01', timezone: 'Europe/Paris', client_ids: [billed.id] });
  for (let i = 0; i < 200 && (await setupGet(`${BR}/${run.id}`)).status !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  await send('retrieveBillingRun', 'GET', `${BR}/${run.id}`);
  await send('listBillingRuns', 'GET', `${BR}?limit=10`);
  await send('listBillingRunResults', 'GET', `${BR}/${run.id}/results?limit=10`);
  const W = '/api/v1/webhook_endpoints';
  const endpoint = await send('createWebhookEndpoint', 'POST', W, {
    url: 'http://127.0.0.1:9/hooks/timebill',
    enabled_events: ['time_entry.created', 'time_entry.updated'],
    description: 'Invoicing sync',
  });
  await send('retrieveWebhookEndpoint', 'GET', `${W}/${endpoint.id}`);
  await send('updateWebhookEndpoint', 'PATCH', `${W}/${endpoint.id}`, { status: 'disabled' });
  await send('listWebhookEndpoints', 'GET', `${W}?limit=10`);
  await send('deleteWebhookEndpoint', 'DELETE', `${W}/${endpoint.id}`);
  await send('deleteTimeEntry', 'DELETE', `${T}/${entry.id}`);
  await send('deleteProject', 'DELETE', `${P}/${project.id}`);
  await send('deleteClient', 'DELETE', `${C}/${client.id}`);
  const events = await eventsOfEach(api, EVENT_TYPES);
  const updated = events.find((e) => e.type === 'client.updated')!;
  await send('listEvents', 'GET', `/api/v1/events?object_id=${client.id}&limit=2`);
  await send('retrieveEvent', 'GET', `/api/v1/events/${updated.id}`);
  await send('getOpenApiDocument', 'GET', '/api/v1/openapi.json');
  // What a delivery of each event type posts: the event, as the feed answers it.
  examples.webhooks = Object.fromEntries(EVENT_TYPES.map((type) => [type, events.find((e) => e.type === type)]));
  return examples;
}

describe('the OpenAPI examples', () => {
  it('are recorded from the local stack for every operation, and the recording conforms to the document', async () => {
    const examples = await record();
    expect(Object.keys(examples).sort()).toEqual([...ROUTES.map((r) => r.operation), 'webhooks'].sort());
    for (const type of EVENT_TYPES) {
      expect(failures(`openapi.json#/webhooks/${type}/post/requestBody/content/application~1json/schema`, examples.webhooks![type]), type).toEqual([]);
    }
    for (const { route, status, pointer } of operations) {
      const example = examples[route.operation]!;
      expect(String(example.response.status), route.operation).toBe(status);
      if (example.request.body !== undefined) {
        expect(failures(`${pointer}/requestBody/content/application~1json/schema`, example.request.body), route.operation).toEqual([]);
      }
      if (example.response.body !== undefined) {
        expect(failures(`${pointer}/responses/${status}/content/application~1json/schema`, example.response.body), route.operation).toEqual([]);
      }
    }
    if (process.env.RECORD_OPENAPI_EXAMPLES === '1') writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
  });

  it('are in the committed document: a request and a response of every operation, each valid against its schema', () => {
    expect(existsSync(EXAMPLES_FILE)).toBe(true);
    for (const { route, operation, status, pointer } of operations) {
      const name = route.operation;
      // The request: its body, or the examples of the parameters its path and query took.
      const body = operation.requestBody?.content['application/json'].examples?.recorded?.value;
      if (operation.requestBody) {
        expect(body, `${name} request body example`).toBeDefined();
        expect(failures(`${pointer}/requestBody/content/application~1json/schema`, body), name).toEqual([]);
      }
      const parameters = (operation.parameters ?? []).filter((p: any) => !p.$ref);
      for (const p of parameters.filter((p: any) => p.example !== undefined)) {
        const index = operation.parameters.indexOf(p);
        expect(failures(`${pointer}/parameters/${index}/schema`, p.example), `${name} ${p.name}`).toEqual([]);
      }
      // Without a body, the request is its parameters (none for the business profile's GET, nor the document's own).
      if (!operation.requestBody && parameters.length > 0) {
        expect(parameters.some((p: any) => p.example !== undefined), `${name} has a parameter example`).toBe(true);
      }
      // The response: the success status's body (the document's own is the document; an invoice's PDF has none in JSON).
      if (name === 'retrieveInvoiceDocument') {
        expect(Object.keys(operation.responses[status].content), name).toEqual(['application/pdf']);
        continue;
      }
      const response = operation.responses[status].content['application/json'];
      if (name === 'getOpenApiDocument') {
        // Its answer is this document: the example is the document cut to its header and first operation.
        const own = response.examples?.abbreviated?.value;
        expect(own, `${name} response example`).toMatchObject({ openapi: (doc as any).openapi, info: { title: (doc as any).info.title, version: (doc as any).info.version } });
        const [path, item] = Object.entries(own.paths as Record<string, Record<string, { operationId: string }>>)[0]!;
        const [method, op] = Object.entries(item)[0]!;
        expect((doc as any).paths[path][method].operationId).toBe(op.operationId);
        expect(failures(`${pointer}/responses/${status}/content/application~1json/schema`, own), name).toEqual([]);
        continue;
      }
      expect(response.examples?.recorded?.value, `${name} response example`).toBeDefined();
      expect(failures(`${pointer}/responses/${status}/content/application~1json/schema`, response.examples.recorded.value), name).toEqual([]);
    }
    for (const type of EVENT_TYPES) {
      const body = (doc as any).webhooks[type].post.requestBody.content['application/json'];
      expect(body.examples?.recorded?.value?.type, `${type} delivery example`).toBe(type);
      expect(failures(`openapi.json#/webhooks/${type}/post/requestBody/content/application~1json/schema`, body.examples.recorded.value), type).toEqual([]);
    }
  });
});
