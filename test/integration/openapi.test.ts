/**
 * The OpenAPI document: generated from the code, committed without drift, valid, served by the
 * stack, true to the stack's real responses, and usable to generate a typed client.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate, compileErrors } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { renderOpenApiDocument } from '../../scripts/openapi-document.ts';
import { SDK_TYPES_PATH, writeSdkTypes } from '../../sdk/scripts/types.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { baseUrl, call, createClient, createProject, logTime, workspace, type ApiResponse } from '../support/api.ts';
import { servedFrom } from '../../shared/http/origin.ts';
import { assertDeclaredStatus } from '../support/declared-statuses.ts';
import { TSC } from '../support/typecheck.ts';
import { eventsOfEach, eventsWhen } from '../support/events.ts';
import { EVENT_TYPES } from '../../shared/model/event-types.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const committed = readFileSync(join(repoRoot, 'docs/openapi.json'), 'utf8');
const doc = JSON.parse(committed) as { paths: Record<string, Record<string, any>>; components: any };
/** A response's header object, its $ref followed. */
const headerObject = (header: any): { required?: boolean; description: string } => (header.$ref ? doc.components.headers[header.$ref.split('/').pop()] : header);

describe('the OpenAPI document', () => {
  it('is exactly what the code generates (run `npm run openapi` after changing a schema or route)', () => {
    expect(committed).toBe(renderOpenApiDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(JSON.parse(committed));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  it('describes every route of the route table, with its scope', () => {
    for (const route of ROUTES) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operation);
      expect(operation.security).toEqual(route.scope === null ? [] : [{ oauth2: [`timebill-api/${route.scope}`] }]);
    }
  });

  it('declares the statuses the suites rely on, and the check the request helpers run refuses any other', () => {
    for (const route of ROUTES) {
      const responses = Object.keys(doc.paths[route.path]![route.method.toLowerCase()].responses);
      expect(responses, route.operation).toEqual(expect.arrayContaining(['413', '429', '431', '500']));
      if (route.scope !== null) expect(responses, route.operation).toEqual(expect.arrayContaining(['400', '401', '403']));
    }
    expect(() => assertDeclaredStatus('GET', '/api/v1/clients/cli_x', 404)).not.toThrow();
    expect(() => assertDeclaredStatus('GET', '/api/v1/clients/cli_x', 409)).toThrow(/does not declare/);
    expect(() => assertDeclaredStatus('GET', '/api/v1/clients', 422)).toThrow(/does not declare/);
    expect(() => assertDeclaredStatus('GET', '/api/v1/no-such-route', 404)).not.toThrow();
  });

  it('writes a time entry as an anyOf of complete bodies that exclude each other (project, or client without one), and keeps immutable fields out of updates', () => {
    const alternatives = doc.components.schemas.LogTimeEntry.anyOf;
    expect(alternatives.map((body: any) => body.required)).toEqual([
      ['started_at', 'duration_minutes', 'project_id'],
      ['started_at', 'duration_minutes', 'client_id'],
    ]);
    expect(alternatives.map((body: any) => [body.properties.project_id.type, body.additionalProperties])).toEqual([
      ['string', false],
      ['null', false],
    ]);
    expect(doc.components.schemas.UpdateProject.properties).not.toHaveProperty('client_id');
    expect(doc.components.schemas.UpdateProject.additionalProperties).toBe(false);
  });

  it('refuses in the schema itself what the API refuses: the inputs a fuzzer sent as valid', () => {
    // A default ajv, as validating proxies and integrators run it.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const at = (pointer: string) => ajv.getSchema(`openapi.json#/components/${pointer}`)!;
    const client = { company_name: 'Acme', company_email: 'billing@acme.test' };
    const createClient = at('schemas/CreateClient');
    expect(createClient(client)).toBe(true);
    expect(createClient({ ...client, company_email: '0@com' })).toBe(false);
    expect(createClient({ ...client, company_name: ' \u00a0\t ' })).toBe(false);
    expect(createClient({ ...client, company_name: 'A\u202eB' })).toBe(false);
    expect(createClient({ ...client, website: 'https://' })).toBe(false);
    expect(createClient({ ...client, relationship_start_date: '2026-01-01T00:00:00Z' })).toBe(false); // read-only
    const project = { name: 'Site', client_id: 'cli_1', billing_type: 'Monthly' };
    const createProject = at('schemas/CreateProject');
    expect(createProject({ ...project, hourly_rate: 120.1234, start_date: '1900-01-01T00:00:00Z' })).toBe(true);
    // Money with up to 4 decimal places passes a validator that divides doubles (no multipleOf: 0.0001 in the document).
    for (const amount of [12.34, 19.99, 0.0003, 99.9999, 0.0001, 1_000_000_000]) {
      expect(createProject({ ...project, hourly_rate: amount, fixed_price: amount, amount }), String(amount)).toBe(true);
    }
    expect(doc.components.schemas.Project.properties.hourly_rate.anyOf[0].description).toMatch(/at most 4 decimal places/);
    expect(createProject({ ...project, start_date: '1899-12-31T23:59:59Z' })).toBe(false);
    expect(createProject({ ...project, start_date: '2026-02-30T25:00:00Z' })).toBe(false);
    expect(createProject({ ...project, end_date: '2026-01-01T00:00:00' })).toBe(false);
    expect(doc.paths['/api/v1/projects']!.post.description).toMatch(/`end_date` must not be before `start_date`/);
    expect(doc.paths['/api/v1/projects/{id}']!.patch.description).toMatch(/`end_date` must not be before `start_date`/);
    const endpoint = at('schemas/CreateWebhookEndpoint');
    expect(endpoint({ url: 'https://hooks.acme.test/timebill', enabled_events: ['client.created', 'client.updated'] })).toBe(true);
    expect(endpoint({ url: 'https://com', enabled_events: ['*'] })).toBe(false);
    expect(endpoint({ url: 'https://user:pw@hooks.acme.test/', enabled_events: ['*'] })).toBe(false);
    expect(endpoint({ url: 'https://hooks.acme.test/', enabled_events: ['client.created', 'client.created'] })).toBe(false);
    const ifMatch = ajv.compile({ $ref: 'openapi.json#/components/parameters/IfMatch/schema' });
    for (const good of ['*', '"3"', '"3", "4"', 'W/"3", "4"', '"3",, "4",']) expect(ifMatch(good), good).toBe(true);
    for (const bad of ['abc', '3', '"3" "4"', '', ',', `"1"${', "1"'.repeat(100)}`]) expect(ifMatch(bad), bad).toBe(false);
    expect(doc.components.parameters.IfMatch.description).toMatch(/list/);
    const error = at('schemas/ErrorBody');
    expect(error({ error: { type: 'forbidden', message: 'Forbidden', request_id: null } })).toBe(true);
  });

  it('names no schema after a JavaScript global (generated types would shadow it), and lists refer to their items by name', () => {
    const names = Object.keys(doc.components.schemas);
    // Globals of every runtime a generated client runs in: this one's, and the browser's (lib.dom.d.ts).
    const dom = readFileSync(join(repoRoot, 'node_modules/typescript/lib/lib.dom.d.ts'), 'utf8');
    const globals = new Set([...Object.getOwnPropertyNames(globalThis), ...[...dom.matchAll(/^declare (?:var|function|type|interface) (\w+)/gm)].map((m) => m[1]!)]);
    expect(globals).toContain('Event');
    expect(names.filter((name) => globals.has(name))).toEqual([]);
    const lists = names.filter((name) => name.endsWith('List'));
    expect(lists).toEqual(['ClientList', 'ProjectList', 'TimeEntryList', 'InvoiceList', 'PaymentList', 'BillingRunList', 'WebhookEndpointList', 'TimeSummaryList', 'BillingRunResultList', 'EventList']);
    for (const list of lists) expect(doc.components.schemas[list].properties.data.items.$ref, list).toMatch(/^#\/components\/schemas\/\w+$/);
  });

  it('declares the headers every response sends as required: X-Request-Id everywhere the API answers, Location on every 201 but a batch\'s (several made)', () => {
    for (const route of ROUTES) {
      for (const [status, response] of Object.entries(doc.paths[route.path]![route.method.toLowerCase()].responses as Record<string, any>)) {
        const headers = (response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response).headers as Record<string, any>;
        const requestId = headerObject(headers['X-Request-Id']);
        // The firewall's refusals (401, 403, 429 in a deployed stage) reach no function and carry no request id.
        expect(requestId.required, `${route.operation} ${status}`).toBe(!['401', '403', '429'].includes(status));
        if (!requestId.required) expect(requestId.description).toMatch(/absent on the web application firewall's refusals/);
        // A batch's 201 makes several: no one Location.
        if (status === '201') expect(headers.Location === undefined ? undefined : headerObject(headers.Location).required, route.operation).toBe(route.action === 'createMany' ? undefined : true);
        if (['429', '503'].includes(status)) expect(headerObject(headers['Retry-After']).required, `${route.operation} ${status}`).toBe(true);
        if (status === '401') expect(headerObject(headers['WWW-Authenticate']).required, route.operation).toBe(true);
      }
    }
  });

  it("names the deployed stage as the server, from API Gateway's event, and ignores a Host that is not a host", () => {
    const event = (headers: Record<string, string>, path = '/prod/api/v1/openapi.json') =>
      ({ headers, path: '/api/v1/openapi.json', requestContext: { path } }) as never;
    expect(servedFrom(event({ Host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' }))).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    );
    expect(servedFrom(event({ host: '127.0.0.1:4321' }, '/api/v1/openapi.json'))).toBe('http://127.0.0.1:4321');
    expect(servedFrom(event({ Host: 'evil.test/"><script>' }))).toBeUndefined();
    expect(servedFrom(event({ Host: 'a.test', 'X-Forwarded-Proto': 'javascript' }))).toBeUndefined();
  });

  it('is served without a token at /api/v1/openapi.json', async () => {
    const response = await call('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    // The committed document, with `servers` naming where it was served from (this stack's port).
    expect(response.body).toEqual({ ...JSON.parse(committed), servers: [{ url: baseUrl() }] });
  });
});

describe('real responses of the local stack match the document', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const seen = new Set<string>();

  function expectConforms(method: string, path: string, response: ApiResponse) {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    let described = operation.responses[String(response.status)];
    expect(described, `${method} ${path} documents ${response.status}`).toBeDefined();
    if (described.$ref) described = doc.components.responses[described.$ref.split('/').pop()];
    const schemaRef = described.content['application/json'].schema.$ref as string;
    const validateBody = ajv.getSchema(`openapi.json${schemaRef}`)!;
    expect(validateBody(response.body), `${method} ${path} ${response.status}: ${ajv.errorsText(validateBody.errors)}`).toBe(true);
    for (const [name, header] of Object.entries(described.headers ?? {})) {
      if (!headerObject(header).required) continue; // sent in some cases, said in its description
      expect(response.headers.get(name), `${method} ${path} ${response.status} sends ${name}`).toBeTruthy();
    }
    seen.add(`${method} ${path} ${response.status}`);
  }

  let api: Awaited<ReturnType<typeof workspace>>['api'];
  let token: string;
  beforeAll(async () => {
    ({ api, token } = await workspace('contract'));
  });

  it('for every operation, success and error alike', async () => {
    const C = '/api/v1/clients';
    const P = '/api/v1/projects';
    const T = '/api/v1/time_entries';
    const client = await createClient(api, { website: 'https://acme.test', company_address: '1 Main St' });
    expectConforms('POST', C, await call('POST', C, { token, body: { company_name: 'B', company_email: 'b@b.test' } }));
    expectConforms('GET', `${C}/{id}`, await api.get(`/clients/${client.id}`));
    expectConforms('GET', C, await api.get('/clients?limit=1'));
    expectConforms('PATCH', `${C}/{id}`, await api.patch(`/clients/${client.id}`, { status: 'ACTIVE', tps_number: null }));
    const project = await createProject(api, client.id, { hourly_rate: 12.34, fixed_price: 19.99, amount: 99.9999, interval_count: 2, interval_unit: 'Week', end_date: '2027-01-01T00:00:00Z' });
    expectConforms('POST', P, await api.post('/projects', { name: 'Q', client_id: client.id, billing_type: 'Retainer' }));
    expectConforms('GET', `${P}/{id}`, await api.get(`/projects/${project.id}`));
    expectConforms('GET', P, await api.get(`/projects?client_id=${client.id}`));
    expectConforms('PATCH', `${P}/{id}`, await api.patch(`/projects/${project.id}`, { description: 'Rebuild' }));
    const entry = await logTime(api, { project_id: project.id, description: 'Kick-off' });
    expectConforms('POST', T, await api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T10:00:00Z', duration_minutes: 5 }));
    expectConforms('GET', `${T}/{id}`, await api.get(`/time_entries/${entry.id}`));
    expectConforms('GET', T, await api.get(`/time_entries?project_id=${project.id}`));

    // Errors, each documented for its operation.
    expectConforms('POST', C, await api.post('/clients', { company_email: 'x' }));
    expectConforms('POST', C, await call('POST', C, { token, rawBody: 'x', headers: { 'Content-Type': 'text/plain' } }));
    expectConforms('POST', C, await call('POST', C, { token, rawBody: JSON.stringify({ company_name: 'x'.repeat(70_000) }), headers: { 'Content-Type': 'application/json' } }));
    expectConforms('GET', C, await api.get('/clients?limit=0'));
    expectConforms('GET', C, await call('GET', C));
    expectConforms('GET', C, await call('GET', C, { token: 'not-a-token' }));
    expectConforms('DELETE', `${C}/{id}`, await api.delete(`/clients/${client.id}`));
    expectConforms('DELETE', `${P}/{id}`, await api.delete(`/projects/${project.id}`));
    expectConforms('GET', `${P}/{id}`, await api.get('/projects/prj_01M7YN6FC9FCH8W24JAA49XGS6'));
    expectConforms('PATCH', `${C}/{id}`, await call('PATCH', `${C}/${client.id}`, { token, body: { status: 'LOST' }, headers: { 'If-Match': '"999"' } }));
    const key = randomUUID();
    await call('POST', C, { token, body: { company_name: 'K', company_email: 'k@k.test' }, headers: { 'Idempotency-Key': key } });
    expectConforms('POST', C, await call('POST', C, { token, body: { company_name: 'L', company_email: 'k@k.test' }, headers: { 'Idempotency-Key': key } }));
    const readOnly = (await workspace('contract-ro')).id;
    const { token: roToken } = await import('../support/api.ts').then(async (m) => ({ token: await m.token(readOnly, ['clients:read']) }));
    expectConforms('POST', C, await call('POST', C, { token: roToken, body: { company_name: 'x', company_email: 'x@x.test' } }));

    // The business profile: there from the start, changed, and a refusal.
    const BP = '/api/v1/business_profile';
    expectConforms('GET', BP, await api.get('/business_profile'));
    expectConforms('PATCH', BP, await api.patch('/business_profile', { company_name: 'Studio Érable inc.', phone: null, default_taxes: [{ name: 'TPS', rate: 5 }, { name: 'TVQ', rate: 9.975 }] }));
    expectConforms('PATCH', BP, await api.patch('/business_profile', { bilingual_invoices: null }));

    // Deletes that succeed.
    expectConforms('DELETE', `${T}/{id}`, await api.delete(`/time_entries/${entry.id}`));

    // The events feed, once the stream poller has made the events of the changes above.
    const E = '/api/v1/events';
    const events = await eventsWhen(api, 10);
    expectConforms('GET', E, await api.get('/events?limit=2'));
    expectConforms('GET', E, await api.get(`/events?after=${events[0].id}&type=client.updated`));
    expectConforms('GET', `${E}/{id}`, await api.get(`/events/${events[0].id}`));
    expectConforms('GET', E, await api.get('/events?after=evt_0000000001AAAAAAAAAAAAAAAA'));
    expectConforms('GET', `${E}/{id}`, await api.get('/events/evt_0000000001AAAAAAAAAAAAAAAA'));
    // A webhook endpoint: its create alone answers the secret, and matches the create's own schema.
    const W = '/api/v1/webhook_endpoints';
    const created = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'] });
    expect(created.body.secret).toMatch(/^whsec_/);
    expectConforms('POST', W, created);
    const retrieved = await api.get(`/webhook_endpoints/${created.body.id}`);
    expect(retrieved.body).not.toHaveProperty('secret');
    expectConforms('GET', `${W}/{id}`, retrieved);
    expect(seen.size).toBeGreaterThanOrEqual(28);
  });
});

describe('the webhooks section', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');

  it('describes the delivery of each event type, signed, and real events of each type match their payload', async () => {
    const webhooks = (doc as any).webhooks as Record<string, { post: any }>;
    expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const { post } = webhooks[type]!;
      expect(post.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(Object.keys(post.responses)).toEqual(['2XX']);
    }
    const { api } = await workspace('contract-webhooks');
    const client = await createClient(api);
    await api.patch(`/clients/${client.id}`, { status: 'ACTIVE' });
    const project = await createProject(api, client.id);
    await api.patch(`/projects/${project.id}`, { name: 'Renamed' });
    const entry = await logTime(api, { project_id: project.id });
    await api.patch(`/time_entries/${entry.id}`, { duration_minutes: 5 });
    await api.delete(`/time_entries/${entry.id}`);
    await api.delete(`/projects/${project.id}`);
    await api.delete(`/clients/${client.id}`);
    // Invoices, of a client of their own (one with an invoice, even a void one, is never deleted).
    const billed = await createClient(api);
    const billedProject = await createProject(api, billed.id, { hourly_rate: 100 });
    for (const started_at of ['2026-10-20T09:00:00Z', '2026-11-20T09:00:00Z']) await logTime(api, { project_id: billedProject.id, started_at });
    const invoiceOf = async (from: string, to: string) => (await api.post('/invoices', { client_id: billed.id, from, to })).body;
    const october = await invoiceOf('2026-10-01', '2026-11-01');
    await api.delete(`/invoices/${october.id}`);
    const november = await invoiceOf('2026-10-01', '2026-12-01');
    await api.patch(`/invoices/${november.id}`, { memo: 'Autumn' });
    for (const step of ['finalize', 'pay']) await api.post(`/invoices/${november.id}/${step}`, {});
    const again = await invoiceOf('2026-11-01', '2026-12-01');
    expect(again).toMatchObject({ error: { type: 'nothing_to_invoice' } }); // all of it on the paid one
    const voided = await api.post(`/invoices/${november.id}/void`, {});
    expect(voided.body).toMatchObject({ error: { type: 'invalid_state' } }); // a paid invoice is never voided
    const other = await createClient(api);
    const otherProject = await createProject(api, other.id, { hourly_rate: 100 });
    await logTime(api, { project_id: otherProject.id });
    const open = (await api.post('/invoices', { client_id: other.id, from: '2026-11-01', to: '2026-12-01' })).body;
    await api.post(`/invoices/${open.id}/finalize`, {});
    // A payment recorded by mistake and deleted (the paid invoice's was recorded by pay): void takes an invoice without payments.
    const payment = await api.post(`/invoices/${open.id}/payments`, { amount: '1' });
    expect(payment.status).toBe(201);
    expect((await api.delete(`/invoices/${open.id}/payments/${payment.body.id}`)).status).toBe(200);
    expect((await api.post(`/invoices/${open.id}/void`, {})).status).toBe(200);
    // The business profile is only ever updated (its first change from the defaults).
    expect((await api.patch('/business_profile', { company_name: 'Studio Érable inc.', default_taxes: [{ name: 'TPS', rate: 5 }] })).status).toBe(200);
    // A billing run of no client with anything to invoice: created, then completed.
    expect((await api.post('/billing_runs', { from: '2026-01-01', to: '2026-02-01', client_ids: [other.id] })).status).toBe(202);
    const events = await eventsOfEach(api, EVENT_TYPES);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));
    for (const event of events) {
      const schema = webhooks[event.type]!.post.requestBody.content['application/json'].schema;
      const validate = ajv.compile({ $ref: `openapi.json#/webhooks/${event.type}/post/requestBody/content/application~1json/schema` });
      expect(schema.$ref).toBe(doc.components.schemas.EventObject.discriminator.mapping[event.type]);
      expect(validate(event), `${event.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      // And each payload refuses another type's event (its type and its object are pinned).
      const other = events.find((e) => e.type.split('.')[0] !== event.type.split('.')[0])!;
      expect(validate(other), `${other.type} as ${event.type}`).toBe(false);
    }
  });
});

describe('a client generated from the document', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'timebill-openapi-ts-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const CONTRACT_FILES = ['readme-example.ts.txt', 'rejected-bodies.ts.txt'] as const;
  let compiled: Promise<Map<string, string[]>> | undefined;
  /**
   * The diagnostics of `tsc --strict` (the repository's, TypeScript 7) on a file of test/contract/
   * beside the generated types, one message per diagnostic. Both files are checked in one program
   * (modules both, they share nothing but the types): the generation and the standard library's
   * declarations are read once. A diagnostic of the generated types themselves fails the compile.
   */
  async function compile(contractFile: (typeof CONTRACT_FILES)[number]): Promise<string[]> {
    compiled ??= (async () => {
      // The types openapi-typescript generates from the committed document are the SDK's: written
      // unless already generated from this document (npm test's type check writes them first).
      await writeSdkTypes();
      copyFileSync(SDK_TYPES_PATH, join(dir, 'api.ts'));
      const files = new Map(CONTRACT_FILES.map((file) => [file.replace(/\.txt$/, ''), file]));
      for (const [path, file] of files) writeFileSync(join(dir, path), readFileSync(join(repoRoot, 'test/contract', file), 'utf8'));
      const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM'], skipLibCheck: true, types: [] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [...files.keys()] }));
      const output = await new Promise<string>((resolveOutput) =>
        execFile(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { cwd: dir }, (_error, stdout, stderr) => resolveOutput(`${stdout}${stderr}`)),
      );
      // `file(line,col): error TS1234: message`, a message's further lines indented below it.
      const diagnostics = [...output.matchAll(/^(\S[^(\n]*)\(\d+,\d+\): error TS\d+: (.*(?:\n {2}.*)*)/gm)].map(([, path, message]) => ({ path: path!, message: message!.replace(/\n {2}/g, '\n') }));
      const elsewhere = output.split('\n').filter((line) => line.trim() !== '' && !/^\s|^Found \d+ errors?\b/.test(line) && ![...files.keys()].some((path) => line.startsWith(`${path}(`)));
      if (elsewhere.length > 0) throw new Error(`tsc: ${elsewhere.join('\n')}`);
      return new Map([...files].map(([path, file]) => [file, diagnostics.filter((d) => d.path === path).map((d) => d.message)]));
    })();
    return (await compiled).get(contractFile)!;
  }

  it('compiles against the README example (openapi-typescript types)', async () => {
    expect(await compile('readme-example.ts.txt')).toEqual([]);
  });

  it('refuses, at compile time, the bodies the API refuses, and narrows events and the created secret', async () => {
    // Each @ts-expect-error there would be an "Unused '@ts-expect-error' directive" here if the
    // generated types accepted the body.
    expect(await compile('rejected-bodies.ts.txt')).toEqual([]);
  });
});
